# The two commands of the quick start: `make run` and `make test`. Each sets up what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-kind-plugin typecheck test-bytecode test-backends test-image docs lint bench bench-load bench-hostile bench-autograder bench-deadline bench-machines mutation system-deps clean

# Packages go into the virtualenv with uv (resolved from the same index, with pyproject.toml's
# bounds, as pip would): it installs the test setup's 200 distributions in about 30 s where pip
# takes about 90 s, byte-compiling them as pip does (the tests start hundreds of Python
# processes, and where PYTHONDONTWRITEBYTECODE is set each would compile what it imports).
INSTALL := $(BIN)/uv pip install --quiet --python $(BIN)/python --compile-bytecode
$(BIN)/uv:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet 'uv>=0.9'

# The checks' and tools' setup: the package with the server's extra and the test, bench and docs
# extras.
$(STAMP): pyproject.toml | $(BIN)/uv
	$(INSTALL) -e '.[server,test,bench,docs]'
	touch $(STAMP)

# What running needs, and nothing more: the package with the server's extra (make run).
RUN_STAMP := $(VENV)/.installed-run
$(RUN_STAMP): pyproject.toml | $(BIN)/uv
	$(INSTALL) -e '.[server]'
	touch $(RUN_STAMP)

# axe-core for the accessibility checks of the e2e suite and ESLint for the JavaScript lint,
# from package-lock.json.
NODE_STAMP := node_modules/.installed
$(NODE_STAMP): package.json package-lock.json | system-deps
	npm ci --no-audit --no-fund --silent
	touch $(NODE_STAMP)

# Debian packages the sandbox and the browser tests need (installed only when missing).
system-deps:
	@./scripts/system-deps.sh

# Migrates, seeds the demo course (idempotent; prints its logins) and serves on 127.0.0.1:$(PORT),
# with one queue worker grading engine uploads (both stop together). Each port has its own
# instance folder (database, queue, uploads, logins; `instance/` for 8000, else `instance-PORT/`),
# so `make run PORT=8001` serves a second course beside the first.
PORT ?= 8000
RUN_INSTANCE := $(if $(filter 8000,$(PORT)),instance,instance-$(PORT))
run: $(RUN_STAMP)
	export GRADER_INSTANCE_PATH="$(CURDIR)/$(RUN_INSTANCE)"; \
	$(BIN)/grader db upgrade && $(BIN)/grader demo || exit 1; \
	$(BIN)/grader worker & worker=$$!; trap 'kill $$worker 2>/dev/null; wait $$worker' EXIT INT TERM; \
	$(BIN)/gunicorn -c python:grader.gunicorn_conf -w 2 -b 127.0.0.1:$(PORT) --access-logfile - 'grader:create_app()'

# The web service's load benchmark alone (30 s of graded submissions, 100 clients).
bench-load: $(STAMP)
	$(BIN)/python -m bench.load --seconds 30 --clients 100 --compare-deferred

# The service beside 4 clients sending the costliest requests it accepts: p99 ratios.
bench-hostile: $(STAMP)
	$(BIN)/python -m bench.hostile --seconds 10

# make test: the Debian packages, then the virtualenv beside node_modules (each mostly waiting
# on its package index), the checks that read the code (mypy, the slow one, beside the bytecode
# below), then pytest in pytest-xdist's workers, one a core (tests/conftest.py keeps what they
# would share apart); `--dist loadgroup` keeps each `xdist_group` mark's tests on one worker,
# where they share a costly session fixture. PYTEST_PARALLEL= runs it in one process. The run
# ends with its 30 slowest steps (a test's setup, call or teardown), where to look when the
# suite slows.
PYTEST_PARALLEL ?= -n auto --dist loadgroup
test: system-deps
	@$(MAKE) --no-print-directory -j2 $(STAMP) $(NODE_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	node_modules/.bin/eslint grader/web/static tests/js eslint.config.js
	node --test tests/js/*.test.mjs
	@$(MAKE) --no-print-directory -j2 typecheck test-bytecode
	$(BIN)/pytest $(PYTEST_PARALLEL) --durations=30

typecheck: $(STAMP)
	$(BIN)/mypy

# The bytecode the test run reads, written once before it: the package's and the benchmarks'
# (the tests start hundreds of Python processes, servers, workers and `grader` commands, and
# where PYTHONDONTWRITEBYTECODE is set, as in many CI images, each would compile every module it
# imports again), and the tests' own, which pytest rewrites for its assertion messages and
# otherwise rewrites again in each xdist worker (about 10 s of CPU each): one collection, with
# bytecode written, leaves them in __pycache__, where pytest reads them whether or not it may
# write.
test-bytecode: $(STAMP)
	$(BIN)/python -m compileall -q grader bench
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest --collect-only -qq -p no:cacheprovider > /dev/null

# The queue tests (tests/jobs) again on PostgreSQL and Redis, which the tests start themselves
# (Debian's postgresql and redis-server, installed when missing; psycopg from the extra), then
# every test marked `backends` (deselected by make test, whose machine need not have them).
test-backends: $(STAMP)
	@./scripts/system-deps.sh backends
	$(INSTALL) -e '.[server,postgres]'
	GRADER_TEST_BACKENDS=postgres-redis $(BIN)/pytest $(PYTEST_PARALLEL) tests/jobs
	GRADER_TEST_BACKENDS=postgres-redis $(BIN)/pytest $(PYTEST_PARALLEL) -m backends tests

# The real Dockerfile built (podman, on a debootstrap base) and its image checked from its own
# filesystem: entrypoint, gunicorn as uid 10001, worker --check, files, the sandbox inside.
test-image: $(STAMP)
	BIN=$(BIN) ./scripts/test-image.sh

# The documentation site into site/ (make test builds it too, with --strict, in tests/deploy).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# Time from upload to result, 1 and 2 workers, and a burst of 20 uploads.
bench-autograder: $(STAMP)
	$(BIN)/python -m bench.autograder

# An assignment's deadline hour (300 uploads beside a print and an integrity check), this code
# and the code before issue 40 in the same run; hours of CPU at its defaults.
bench-deadline: $(STAMP)
	$(BIN)/python -m bench.deadline $(DEADLINE_ARGS)

# The deadline hour with each worker on a machine of its own (network namespaces; root), on 1
# and then 2 machines, reaching PostgreSQL and Redis over virtual links; what it needs (iproute2,
# PostgreSQL, Redis, psycopg) installed first if missing.
bench-machines: $(STAMP)
	@./scripts/system-deps.sh backends
	$(INSTALL) -e '.[server,postgres]'
	$(BIN)/python -m bench.deadline --machines 1,2 $(DEADLINE_ARGS)

# Mutation testing of the cores (mutmut), file by file, with the share of mutants killed in each.
# CPU-heavy: MUTATION_ARGS="grader/gametree/solver.py --max-children 1" runs one file.
mutation: $(STAMP)
	$(BIN)/python scripts/mutation.py $(MUTATION_ARGS)

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) node_modules .pytest_cache .ruff_cache .mypy_cache .hypothesis

# A kind added, shown by a test-only one (tests/kinds/leaves_evaluated: its module, page module,
# styles and tests) registered as a plugin's is (GRADER_KIND_MODULES, importable from the
# checkout by PYTHONPATH): the JavaScript tests and pytest with it registered. KIND_TESTS narrows
# pytest to some paths (default: every test).
KIND_TESTS ?=
test-kind-plugin: $(STAMP) $(NODE_STAMP)
	PYTHONPATH=$(CURDIR) GRADER_KIND_MODULES=tests.kinds.leaves_evaluated.kind node --test tests/js/*.test.mjs
	PYTHONPATH=$(CURDIR) GRADER_KIND_MODULES=tests.kinds.leaves_evaluated.kind $(BIN)/pytest $(PYTEST_PARALLEL) $(KIND_TESTS)
