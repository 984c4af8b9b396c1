# The two commands of the quick start: `make run` and `make test`. Each sets up what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench bench-load system-deps clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,bench]'
	touch $(STAMP)

# Debian packages the sandbox and the browser tests need (installed only when missing).
system-deps:
	@./scripts/system-deps.sh

# Migrates, seeds the demo course (idempotent; prints its logins) and serves on 127.0.0.1:8000.
run: $(STAMP)
	$(BIN)/grader db upgrade
	$(BIN)/grader demo
	$(BIN)/gunicorn -w 2 -b 127.0.0.1:8000 --access-logfile - 'grader:create_app()'

# The web service's load benchmark alone (30 s of graded submissions, 100 clients).
bench-load: $(STAMP)
	$(BIN)/python -m bench.load --seconds 30 --clients 100 --compare-deferred

test: $(STAMP) system-deps
	$(BIN)/ruff check .
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
