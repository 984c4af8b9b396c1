"""The assignment's documents say what the code does: the template's counts, time_left's
numbers for each suite, the window in the contract."""

from __future__ import annotations

import ast
import re

import pytest

from grader import data
from grader.harness.suite import SUITES, load_suite

CHECKERS = data.checkers()
TEMPLATE = (CHECKERS / "template" / "engine.py").read_text()
ASSIGNMENT = (CHECKERS / "ASSIGNMENT.md").read_text()
NUMBERS = {"three": 3, "four": 4, "five": 5, "six": 6}


def test_the_template_counts_its_todos_and_graded_functions() -> None:
    todos = len(re.findall(r"TODO", TEMPLATE.split('"""', 2)[2]))
    said = re.search(r"Fill in the (\w+) TODOs", TEMPLATE)
    assert said and NUMBERS[said[1]] == todos
    tree = ast.parse(TEMPLATE)
    below = TEMPLATE.index("# -- what the grader calls")
    graded = [
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and TEMPLATE.index(f"def {n.name}(") > below
    ]
    assert graded == ["legal_moves", "search", "choose_move"]
    said = re.search(r"only the (\w+)\s+functions at the bottom", TEMPLATE)
    assert said and NUMBERS[said[1]] == len(graded)


def test_the_template_search_takes_the_window() -> None:
    tree = ast.parse(TEMPLATE)
    search = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "search")
    assert [a.arg for a in search.args.args] == ["fen", "depth", "alpha", "beta"]
    assert len(search.args.defaults) == 2


@pytest.mark.parametrize("name", SUITES)
def test_time_left_is_documented_with_each_suites_numbers(name: str) -> None:
    games = [t for t in load_suite(name).tests if t.kind == "play"]
    per_move, margin = games[0].params["time_per_move"], games[0].params["margin"]
    assert all(t.params["time_per_move"] == per_move for t in games)
    row = f"| {name} | {per_move:g} s | {margin:g} s | {games[0].cpu:g} s | {games[0].wall:g} s |"
    assert row in ASSIGNMENT
    assert f"{per_move:g} s in the {name} suite" in " ".join(TEMPLATE.split())
