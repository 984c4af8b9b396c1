"""An exercise kind is a plugin: a package that registers one class (`tests/kinds/leaves_evaluated`,
the test-only `leaves-evaluated`) is offered by everything that offers kinds, with nothing else
touched.

In process, the kind is registered and withdrawn again around each test: the core grades it, the
CLI's kind choices offer it and refuse it once withdrawn, and the facts derived from the
registry (the variants, adaptive practice) are the kind's own. The API's models and the pages'
forms are built when the app is imported, as a deployment imports its plugins first: a pytest of
their own loads the kind before anything else (`GRADER_KIND_MODULES`) and runs `app_cases.py`.
Where the run registered the kind already (`make test-kind-plugin`), it stays registered."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.cli import main
from grader.gametree import KINDS, VARIANTS, Conventions, Tree, grade
from grader.gametree.adaptive import BEST_KIND, revealing_kinds
from grader.gametree.kinds import ANSWER_KEYS, register, unregister
from grader.gametree.kinds.registry import PLUGINS_VARIABLE

ROOT = Path(__file__).resolve().parents[3]
LEAVES = ["--leaves", "3,12,8,2,4,6,14,5,2", "--branching", "3", "--depth", "2"]


@pytest.fixture
def plugin() -> Iterator[str]:
    """The test-only kind registered for the test, withdrawn after it unless the run registered
    it (GRADER_KIND_MODULES)."""
    from tests.kinds.leaves_evaluated.kind import (  # importing registers it
        NAME,
        LeavesEvaluatedKind,
    )

    kept = os.environ.get(PLUGINS_VARIABLE, "")
    if NAME not in KINDS:
        register(LeavesEvaluatedKind)
    yield NAME
    if NAME in KINDS and "tests.kinds.leaves_evaluated.kind" not in kept:
        unregister(NAME)
    elif NAME not in KINDS and "tests.kinds.leaves_evaluated.kind" in kept:
        register(LeavesEvaluatedKind)


def test_the_core_grades_a_registered_kind_and_forgets_it_when_withdrawn(plugin):
    before = [name for name in KINDS if name != plugin]
    assert plugin in KINDS and ANSWER_KEYS[plugin] == ("leaf_count",)
    tree = Tree.from_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    assert grade(plugin, tree, Conventions(), {"leaf_count": 7}).score == 1.0
    assert grade(plugin, tree, Conventions(), {"leaf_count": 8}).score == 0.0
    # no misconception names it, and adaptive practice gives it only what it reveals (nothing)
    assert all(plugin not in v.kinds for v in VARIANTS.values())
    assert plugin not in revealing_kinds() and plugin not in BEST_KIND.values()
    unregister(plugin)
    assert list(KINDS) == before and plugin not in ANSWER_KEYS
    from tests.kinds.leaves_evaluated.kind import LeavesEvaluatedKind

    register(LeavesEvaluatedKind)  # as the fixture found it


def test_a_kind_cannot_be_registered_twice(plugin):
    from tests.kinds.leaves_evaluated.kind import LeavesEvaluatedKind

    with pytest.raises(ValueError, match="registered already"):
        register(LeavesEvaluatedKind)


def test_the_cli_offers_a_registered_kind_and_refuses_it_once_withdrawn(plugin):
    runner = CliRunner()
    assert plugin in runner.invoke(main, ["tree", "grade", "--help"]).output
    answer = json.dumps({"leaf_count": 7})
    graded = runner.invoke(main, ["tree", "grade", *LEAVES, "--kind", plugin, "--answer", answer])
    assert graded.exit_code == 0, graded.output
    assert "score: 1.000" in graded.output and "how: Score 1 for the right count" in graded.output
    unregister(plugin)
    refused = runner.invoke(main, ["tree", "grade", *LEAVES, "--kind", plugin, "--answer", answer])
    assert refused.exit_code == 2 and f"'{plugin}' is not one of" in refused.output
    from tests.kinds.leaves_evaluated.kind import LeavesEvaluatedKind

    register(LeavesEvaluatedKind)  # as the fixture found it


def test_the_api_and_the_pages_offer_a_kind_loaded_before_the_app():
    """The cases of `app_cases.py`, in a pytest that loads the kind first."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        str(Path(__file__).with_name("app_cases.py")),
    ]
    # The cases use no installed pytest plugin (hypothesis', schemathesis', pytest-xdist's), and
    # importing those costs the child half its CPU: it loads only the ones named here.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env[PLUGINS_VARIABLE] = "tests.kinds.leaves_evaluated.kind"
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "3 passed" in run.stdout


def test_its_page_module_and_styles_are_served_from_beside_it_and_nothing_else(plugin, client):
    folder = Path(__file__).parent
    for suffix, mimetype in (("js", "text/javascript"), ("css", "text/css")):
        served = client.get(f"/kinds/{plugin}/{plugin}.{suffix}")
        assert served.status_code == 200 and served.mimetype == mimetype
        assert served.data == (folder / f"{plugin}.{suffix}").read_bytes()
    for path in (
        f"/kinds/{plugin}/__init__.py",
        f"/kinds/{plugin}/app_cases.py",
        f"/kinds/{plugin}/other.js",
        "/kinds/prune/prune.js",  # a kind of the package: its files are the static folder's
        "/kinds/essay/essay.js",
    ):
        assert client.get(path).status_code == 404, path


def test_its_examples_are_graded_as_they_say(plugin):
    kind = KINDS[plugin]
    assert [e.name for e in kind.examples()] == ["wrong", "right"]
    for example in kind.examples():
        assert kind.grade(example.tree, Conventions(), example.answer).score == example.score
