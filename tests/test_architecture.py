"""Rules of ARCHITECTURE.md that a reading of the source checks: what differs by kind is asked of
the kind (`gametree.KINDS`, `models.SLOT_KINDS`), never an `if` on its name outside its class.

An exercise kind's name written anywhere in grader/ (a Python string, a quoted word in a template
or a script) outside the kind's own module (and its page module, `static/js/kinds/<name>.js`)
and the registry is a failure that names the place: sets, maps, choice lists and defaults are
derived from the registry. A kind's name compared (``== "best-order"``, ``kind in ("prune",
...)``, ``=== "leaf-order"``) or its class tested (``isinstance(kind, BestOrderKind)``) is one too.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from grader.gametree import KINDS, ExerciseKind
from grader.models import ENGINE_KIND, SLOT_KINDS

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("*.py", "*.html", "*.js")

# Where each kind's name may be compared: the module that registers the kinds.
HOMES = {
    "exercise": {
        Path("grader/gametree/kinds/__init__.py"),
        Path("grader/gametree/kinds/registry.py"),
    }
    | {Path(inspect.getfile(type(kind))).relative_to(ROOT) for kind in KINDS.values()},
    # models registers the slot kinds; submissions is the engine slot's own service.
    "slot": {Path("grader/models/courses.py"), Path("grader/services/engines/submissions.py")},
}


# Kind names that are also other words: "prune" is a value of the `ties` convention, "values" and
# "bounds" conventions' names (a cut node's value; Star1's leaf bounds), "engine" the sandbox's
# hello. Compared, they count when a kind is the operand.
HOMONYMS = {"prune", "values", "bounds", "engine"}


def _compared(name: str) -> re.Pattern[str]:
    quoted = rf"""["']{re.escape(name)}["']"""
    operator = r"(?:===|!==|==|!=)"
    listed = rf"""(?:not\s+)?in\s*[(\[{{][^)\]}}]*{quoted}"""
    operand = r"\bkind\w*\s*" if name in HOMONYMS else ""
    return re.compile(
        rf"{operand}{operator}\s*{quoted}|{quoted}\s*{operator}\s*{operand}|{operand}{listed}"
    )


def _type_test(classes: list[str]) -> re.Pattern[str]:
    return re.compile(rf"isinstance\([^)]*\b(?:{'|'.join(classes)})\b")


def offending_lines(pattern: re.Pattern[str], homes: set[Path], root: Path = ROOT) -> list[str]:
    """Every line of grader/ outside ``homes`` that ``pattern`` finds, as path:line: text."""
    found = []
    for glob in SOURCES:
        for path in sorted((root / "grader").rglob(glob)):
            relative = path.relative_to(root)
            if relative in homes:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line):
                    found.append(f"{relative}:{number}: {line.strip()}")
    return found


@pytest.mark.parametrize("name", sorted(KINDS))
def test_no_exercise_kind_is_compared_by_name_outside_its_class(name):
    assert offending_lines(_compared(name), HOMES["exercise"]) == []


def test_no_exercise_kind_class_is_tested_outside_its_module():
    classes = [type(kind).__name__ for kind in KINDS.values()] + [ExerciseKind.__name__]
    assert offending_lines(_type_test(classes), HOMES["exercise"]) == []


def test_no_slot_kind_is_compared_by_name_outside_its_registry():
    assert set(SLOT_KINDS) == {*KINDS, ENGINE_KIND}
    pattern = re.compile(rf"{_compared(ENGINE_KIND).pattern}|(?:==|!=)\s*ENGINE_KIND\b")
    assert offending_lines(pattern, HOMES["slot"]) == []


@pytest.mark.parametrize(
    "line",
    [
        'if kind == "best-order":',
        "{% if s.kind == 'best-order' %}",
        'if (exercise.kind !== "best-order") {',
        'if kind in ("prune", "leaf-order", "best-order"):',
        'choices=[k for k in KINDS if k not in ["best-order"]]',
        'return "best-order" == kind',
    ],
)
def test_the_check_finds_a_comparison(tmp_path, line):
    """The rule is not vacuous: each way of comparing a name, planted in a copy, is found."""
    planted = tmp_path / "grader" / "planted.py"
    planted.parent.mkdir()
    planted.write_text(f"{line}\n", encoding="utf-8")
    assert offending_lines(_compared("best-order"), set(), tmp_path) == [
        f"grader/planted.py:1: {line}"
    ]
    type_test = tmp_path / "grader" / "typed.py"
    type_test.write_text("if isinstance(KINDS[k], BestOrderKind):\n", encoding="utf-8")
    assert offending_lines(_type_test(["BestOrderKind"]), set(), tmp_path) != []


def test_a_registry_or_a_command_name_is_not_a_comparison():
    pattern = _compared("best-order")
    for line in (
        '"best-order": (page) => new BestOrderUI(page),',
        '@tree.command("best-order")',
        'name = "best-order"',
    ):
        assert not pattern.search(line), line
    # a homonym compared as a convention is not a kind compared; as a kind it is
    assert not _compared("prune").search('if self.ties == "prune"')
    assert _compared("prune").search('if exercise.kind == "prune":')
    assert _compared("values").search('if kind in ("values", "minimax"):')
    assert not _compared("bounds").search('for k in ("ties", "values", "order", "bounds")')
    assert _compared("bounds").search('if kind == "bounds":')


def test_an_attempt_stores_what_a_grade_fills():
    """`Attempt.GRADED` is the one list of a grade's stored fields: a `Grade.to_dict()`'s keys,
    each a column of the attempt, as are the fields it copies from its exercise."""
    from grader.gametree import Grade
    from grader.models import Attempt, Exercise

    assert tuple(Grade(1.0, {}, []).to_dict()) == Attempt.GRADED
    columns = set(Attempt.__table__.columns.keys())
    assert set(Attempt.GRADED) <= columns and set(Attempt.FROM_EXERCISE) <= columns
    assert set(Attempt.FROM_EXERCISE) <= set(Exercise.__table__.columns.keys())


# -- ARCHITECTURE.md names only files that exist -------------------------------------------------

_TICKED = re.compile(r"`([^`\s]+)`")
_PLAIN = re.compile(
    r"(?<![\w/`.-])((?:grader|tests|bench|docs|scripts|exercises|migrations)/[\w/.-]*[\w/])"
)
_FILE = re.compile(r"^[\w./-]+(?:\.(?:py|js|html|css|md|toml|json|sh|yml)|/)$")


def named_files(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each file or folder the document names, with the folders it may be relative to: the
    folder a top-level list item opens with (for it and the items nested under it), else the
    repository and `grader/`."""
    named = []
    room = ""
    for line in text.splitlines():
        if line.startswith("- "):
            opening = _TICKED.match(line[2:])
            room = opening.group(1) if opening and opening.group(1).endswith("/") else ""
        elif line and not line.startswith(" "):
            room = ""
        bases = ("", "grader/", room)
        for token in [*_TICKED.findall(line), *_PLAIN.findall(line)]:
            if _FILE.match(token) and "<" not in token and not token.startswith(("/", ".")):
                named.append((token, bases))
    return named


def missing_files(text: str, root: Path = ROOT) -> list[str]:
    return sorted(
        {
            name
            for name, bases in named_files(text)
            if not any((root / base / name).exists() for base in bases)
        }
    )


def test_architecture_names_only_files_that_exist():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert len(named_files(text)) > 40  # the check reads the rooms, not nothing
    assert missing_files(text) == []


def test_a_made_up_file_in_architecture_fails_the_check():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    made_up = (
        text.replace("`verdicts.py`", "`verdicts.py`, `verdict_words.py`")
        + "\nbeside them: grader/harness/strict_json.py and `grader/web/student.py`\n"
    )
    assert missing_files(made_up) == [
        "grader/harness/strict_json.py",
        "grader/web/student.py",
        "verdict_words.py",
    ]


# -- a kind's name lives in its module and the registry only -------------------------------------

# The registry: `kinds/__init__.py` lists the kinds' modules, `kinds/registry.py` holds `KINDS`.
REGISTRY = {Path("grader/gametree/kinds/__init__.py"), Path("grader/gametree/kinds/registry.py")}

# Where a kind's name is written as another word, counted per file: a new use there changes the
# count, and an entry no longer true fails as much as a new one.
# - "prune": a value of the `ties` convention (cut when alpha >= beta);
# - "values": the `values` convention's name, the generator's leaf-value range, the values and
#   minimax answers' part;
# - "bounds": the leaf-bounds convention's name, the bounds answer's part, a match's SPRT bounds.
OTHER_MEANINGS: dict[tuple[str, str], int] = {
    ("grader/checkers/engine.py", "prune"): 1,
    ("grader/cli/tree.py", "bounds"): 3,
    ("grader/cli/tree.py", "values"): 5,
    ("grader/gametree/adaptive.py", "prune"): 1,
    ("grader/gametree/adaptive.py", "values"): 2,
    ("grader/gametree/generator.py", "bounds"): 1,
    ("grader/gametree/generator.py", "values"): 3,
    ("grader/gametree/solver.py", "bounds"): 3,
    ("grader/gametree/solver.py", "prune"): 1,
    ("grader/gametree/solver.py", "values"): 3,
    ("grader/gametree/variants.py", "prune"): 3,
    ("grader/harness/ladder.py", "bounds"): 1,
    ("grader/gametree/variants.py", "values"): 2,
    ("grader/web/api/schemas.py", "prune"): 1,
    ("grader/web/api/schemas.py", "values"): 4,
    ("grader/web/forms.py", "bounds"): 1,
    ("grader/web/forms.py", "values"): 3,
    ("grader/web/instructor/editor_forms.py", "values"): 1,
    ("grader/web/words.py", "prune"): 1,
}


def _python_strings(text: str) -> list[tuple[str, int]]:
    """Every string constant of a module with its line, but the names listed in `__all__`
    (Python names: "minimax" there is the solver's function)."""
    tree = ast.parse(text)
    exported = {
        id(item)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
        for item in ast.walk(node.value)
    }
    return [
        (node.value, node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in exported
    ]


def written_names(names: set[str], root: Path = ROOT) -> dict[tuple[str, str], list[int]]:
    """Each kind name written in grader/ as a Python string or a quoted word of a template or a
    script, by (file, name), with its lines; a kind's own module and page module, and the
    registry, left out."""
    homes = {
        name: {Path(inspect.getfile(type(KINDS[name]))).relative_to(ROOT)}
        if name in KINDS
        else set()
        for name in names
    }
    found: dict[tuple[str, str], list[int]] = {}
    for path in sorted((root / "grader").rglob("*")):
        relative = path.relative_to(root)
        if path.suffix not in (".py", ".html", ".js") or relative in REGISTRY:
            continue
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".py":
            strings = _python_strings(text)
        else:
            strings = [
                (m.group(1), text.count("\n", 0, m.start()) + 1)
                for m in re.finditer(r"""["'`]([\w-]+)["'`]""", text)
            ]
        for value, line in strings:
            if value not in names:
                continue
            if relative in homes[value] or relative == Path(
                f"grader/web/static/js/kinds/{value}.js"
            ):
                continue
            found.setdefault((str(relative), value), []).append(line)
    return {place: sorted(lines) for place, lines in found.items()}


def test_a_kind_name_is_written_only_in_its_module_and_the_registry():
    found = written_names(set(KINDS))
    counts = {place: len(lines) for place, lines in found.items()}
    unexpected = {
        f"{path}: {name!r} on lines {sorted(found[path, name])}"
        for (path, name), n in counts.items()
        if OTHER_MEANINGS.get((path, name)) != n
    }
    stale = {f"{path}: {name!r}" for path, name in set(OTHER_MEANINGS) - set(counts)}
    assert sorted(unexpected | stale) == []


def test_the_name_check_finds_a_planted_name(tmp_path):
    """The check is not vacuous: a name in a set, a map, a default and a template, planted in a
    copy, is found; a Python name in `__all__` is not a kind's."""
    package = tmp_path / "grader"
    package.mkdir()
    (package / "planted.py").write_text(
        'SEARCH = frozenset({"leaf-order"})\nBEST = {"x": "best-order"}\n'
        'def f(kind="leaf-order"): ...\n__all__ = ["f"]\n',
        encoding="utf-8",
    )
    (package / "page.html").write_text("{% if k == 'best-order' %}{% endif %}\n", encoding="utf-8")
    found = written_names({"leaf-order", "best-order"}, tmp_path)
    assert found == {
        ("grader/page.html", "best-order"): [1],
        ("grader/planted.py", "best-order"): [2],
        ("grader/planted.py", "leaf-order"): [1, 3],
    }


# -- a long module says why it stays whole -------------------------------------------------------

LONG = 400  # lines: a module longer is split, or states why not in a `# Whole:` line at its top
_WHOLE = re.compile(r"^# Whole: \S.*", re.M)


def long_modules_without_reason(root: Path = ROOT) -> list[str]:
    """Every module of grader/ over LONG lines with no `# Whole:` line in its first 40 lines."""
    found = []
    for path in sorted((root / "grader").rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) > LONG and not _WHOLE.search("\n".join(lines[:40])):
            found.append(str(path.relative_to(root)))
    return found


def test_every_long_module_states_why_it_stays_whole():
    assert long_modules_without_reason() == []


def test_the_check_finds_a_long_module_with_no_reason(tmp_path):
    package = tmp_path / "grader"
    package.mkdir()
    (package / "short.py").write_text('"""Short."""\n')
    (package / "said.py").write_text('"""Long."""\n\n# Whole: one idea.\n' + "x = 1\n" * LONG)
    (package / "long.py").write_text('"""Long."""\n' + "x = 1\n" * LONG)
    assert long_modules_without_reason(tmp_path) == ["grader/long.py"]


# -- one gate per rule: "held" is decided by `release.held_work` alone -------------------------

# The gate's module; the editor that saves an assignment's hold settings, its form and the model.
HELD_HOMES = {
    Path("grader/services/courses/release.py"),
    Path("grader/services/teaching/editor.py"),
    Path("grader/web/instructor/editor_forms.py"),
    Path("grader/models/courses.py"),
    Path("grader/web/templates/instructor/assignment_form.html"),
}
HOLD_SETTINGS = {"hold_scores", "scores_release_at"}  # an assignment's hold, read
RULE = {"_held_until", "_release_for", "scores_release_for"}  # the rule under the gate
RULE_CALLED = {"held_until"}  # a called name (a field of that name only carries the gate's date)
_SETTING_IN_TEMPLATE = re.compile(rf"\b(?:{'|'.join(sorted(HOLD_SETTINGS))})\b")


def _named(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def held_decisions(root: Path = ROOT) -> list[str]:
    """Every place of grader/ outside HELD_HOMES that decides whether a student's work is held by
    itself, not through the gate: reading an assignment's hold settings, or asking the rule the
    gate asks (`release._held_until` ...). As path:line: name."""
    found = []
    for path in sorted((root / "grader").rglob("*.py")):
        relative = path.relative_to(root)
        if relative in HELD_HOMES:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = _named(node)
            settings = HOLD_SETTINGS if isinstance(node, ast.Attribute) else set()
            if isinstance(node, ast.Attribute | ast.Name) and name in RULE | settings:
                found.append(f"{relative}:{node.lineno}: {name}")
            elif isinstance(node, ast.Call) and _named(node.func) in RULE_CALLED:
                found.append(f"{relative}:{node.lineno}: {_named(node.func)}()")
    for path in sorted((root / "grader").rglob("*.html")):
        relative = path.relative_to(root)
        if relative in HELD_HOMES:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [f"{relative}:{number}: {m}" for m in _SETTING_IN_TEMPLATE.findall(line)]
    return found


def test_only_the_gate_decides_what_is_held():
    """Every reader of a student's work or standing asks `release.held_work`: a reader that asks
    the rule beneath it, or the assignment's settings, would skip what the gate adds (staff see
    all; practice is never held) and drift from it."""
    assert held_decisions() == []


def test_the_held_check_finds_a_planted_decision(tmp_path):
    package = tmp_path / "grader"
    package.mkdir()
    (package / "planted.py").write_text(
        "from grader.services.courses import release\n"
        "def score(a, u):\n"
        "    if a.hold_scores:\n"
        "        return release.held_until(u, a)\n"
        "    return page.held_until or release.held_work(u, a) or release._release_for(u, a)\n",
        encoding="utf-8",
    )
    (package / "page.html").write_text(
        "{% if assignment.scores_release_at %}{% endif %}{{ row.held_until }}\n", encoding="utf-8"
    )
    assert held_decisions(tmp_path) == [
        "grader/planted.py:3: hold_scores",
        "grader/planted.py:4: held_until()",
        "grader/planted.py:5: _release_for",
        "grader/page.html:1: scores_release_at",
    ]
