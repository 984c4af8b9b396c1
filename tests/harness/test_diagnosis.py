"""A run's explanation, without the sandbox: the fewest misconceptions that explain every
diagnosed test (an exact minimum set cover, ties broken by the library's order and said), the
variants a passed test rules out, and the words each test and the summary say.

An engine here is a variant of grader.checkers answering the quick suite's search tests as a
student's engine would (value, best move, leaf count), judged by the search kind's own check.
"""

from __future__ import annotations

import functools
import json
import random
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader import data
from grader.checkers import Board
from grader.checkers.engine import CONTRACT, INFINITY, search
from grader.checkers.variants import (
    VARIANTS,
    Variant,
    diagnose_moves,
    diagnose_search,
    either,
    fewest_explaining,
)
from grader.harness.cases import TestCase, TestResult, result_of
from grader.harness.diagnosis import explain
from grader.harness.runner import Report
from grader.harness.suite import Suite, load_suite, positions
from grader.harness.testkinds.search import check_search, reference, root_window
from grader.harness.verdicts import Verdict
from tests.harness._helpers import assert_words_hold

CODES = list(VARIANTS)


@pytest.fixture(scope="module")
def quick_search(tmp_path_factory) -> Suite:
    definition = json.loads((data.suite_dir() / "quick.json").read_text(encoding="utf-8"))
    definition["groups"] = [g for g in definition["groups"] if g["kind"] == "search"]
    path = Path(tmp_path_factory.mktemp("suite")) / "quick-search.json"
    path.write_text(json.dumps(definition), encoding="utf-8")
    return load_suite(path)


def answered(case: TestCase, variant: Variant) -> TestResult:
    """The search test's result for an engine that makes exactly this variant's mistake."""
    fen, depth = case.params["fen"], case.params["depth"]
    alpha, beta = root_window(case)
    found = variant.run(fen, depth, alpha, beta)
    answer = {
        "value": found.value,
        "move": found.best_move.pdn() if found.best_move else None,
        "leaves": found.leaves,
    }
    check = check_search(answer, reference(fen, depth, alpha, beta), fen, depth)
    extra = {"candidates": list(check.candidates)} if check.candidates else {}
    return result_of(case, check.verdict, "\n".join(check.lines), **extra)


def graded(suite: Suite, variant: Variant) -> Report:
    report = Report(suite.name, variant.code, tests=[answered(c, variant) for c in suite.tests])
    report.explanation = explain(suite.tests, report.tests)
    return report


@pytest.mark.parametrize("code", CODES)
def test_an_engine_with_one_mistake_is_explained_by_it_alone(code: str, quick_search) -> None:
    report = graded(quick_search, VARIANTS[code])
    diagnosed = [t for t in report.tests if t.extra.get("candidates")]
    assert report.explanation.codes == ((code,) if diagnosed else ())
    assert all(t.extra["diagnosis"] == code for t in diagnosed)
    assert_words_hold(report, quick_search)


def test_a_tie_between_explanations_names_the_first_and_says_so(quick_search) -> None:
    """Only the tests where tie-strict is minimax (the start position, depths 2 and 3), with
    no passed test to tell them apart: either explains them, the first in the library's order
    is named, and the other is said to explain them as well."""
    cases = [
        c
        for c in quick_search.tests
        if c.name in ("Search depth 2: start", "Search depth 3: start")
    ]
    report = graded(Suite("two", "", 5, 10, tuple(cases), {}), VARIANTS["tie-strict"])
    assert [t.extra["candidates"] for t in report.tests] == [["no-pruning", "tie-strict"]] * 2
    assert report.explanation.codes == ("no-pruning",)
    assert report.explanation.alternatives == (("tie-strict",),)
    lines = report.explanation.summary_lines()
    assert lines[-1] == (
        "As few mistakes would explain them as well (tie-strict): the one named is the first "
        "in the library's order."
    )


def test_a_passed_test_rules_out_what_it_contradicts(quick_search) -> None:
    """The same two ambiguous tests beside a passed one where no-pruning would have failed:
    tie-strict alone is named, and the ambiguous tests say what ruled no-pruning out."""
    tie_strict, no_pruning = VARIANTS["tie-strict"], VARIANTS["no-pruning"]
    ambiguous = [c for c in quick_search.tests if c.name == "Search depth 2: start"]
    passed = next(  # the first where tie-strict gives the contract's answer, no-pruning not
        c
        for c in quick_search.tests
        if answered(c, tie_strict).verdict is Verdict.PASSED
        and answered(c, no_pruning).verdict is Verdict.WA
    )
    cases = (*ambiguous, passed)
    report = graded(Suite("two", "", 5, 10, cases, {}), tie_strict)
    assert report.explanation.codes == ("tie-strict",)
    assert report.explanation.ruled_out == ("no-pruning",)
    assert "A test you passed rules out no-pruning" in report.tests[0].output
    assert report.explanation.summary_lines() == [
        "1 test failed the way a known mistake does (tie-strict): "
        f"{tie_strict.sentence} 1 of them matches no-pruning too (on that position they give "
        "the same answer); a test you passed rules out no-pruning; tie-strict alone explains it."
    ]
    assert VARIANTS["no-pruning"].sentence not in report.tests[0].output


def brute_force(sets: list[frozenset[str]]) -> list[tuple[str, ...]]:
    """Every smallest cover, by trying every subset of the library."""
    if not sets:
        return []
    for size in range(1, len(CODES) + 1):
        found = [c for c in combinations(CODES, size) if all(s & set(c) for s in sets)]
        if found:
            return found
    return []


@given(st.lists(st.frozensets(st.sampled_from(CODES), min_size=1, max_size=4), max_size=12))
def test_the_cover_is_exact_and_in_the_library_order(sets: list[frozenset[str]]) -> None:
    assert fewest_explaining(sets) == brute_force(sets)


def test_the_cover_is_smaller_than_greedy_where_greedy_is_wrong() -> None:
    """Greedy takes the code in most tests (no-pruning, in four), then needs both others."""
    a, b, c = "no-pruning", "tie-strict", "fail-hard"
    sets = [{a, b}, {a, b}, {b}, {a, c}, {a, c}, {c}]
    assert fewest_explaining(sets) == [(b, c)]
    assert fewest_explaining([set(), {c}]) == [(c,)]  # a test with no candidate is left out
    assert fewest_explaining([]) == []


def _positions() -> list[str]:
    """The suites' named positions and positions of seeded random games from the start."""
    fens = [p["fen"] for p in positions().values()]
    rng = random.Random(1)
    for _ in range(20):
        board = Board(positions()["start"]["fen"])
        for _ply in range(rng.randrange(4, 40)):
            moves = list(board.generate_legal_moves())
            if not moves:
                break
            board.push(rng.choice(moves))
        fens.append(board.fen())
    return fens


@functools.cache
def coincidences() -> dict[tuple[str, str], list[tuple[str, int, int, int]]]:
    """Per pair of variants (library order), the searches (fen, depth, alpha, beta; full and
    null windows around the value, depths 1 to 3) where both give the same value and leaf count
    and it is not the contract's."""
    found: dict[tuple[str, str], list[tuple[str, int, int, int]]] = {}
    for fen in _positions():
        for depth in (1, 2, 3):
            value = search(Board(fen), depth, CONTRACT).value
            windows = [(-INFINITY, INFINITY)] + [
                (value + o, value + o + 1) for o in (-26, -1, 0, 74)
            ]
            for alpha, beta in windows:
                contract = search(Board(fen), depth, CONTRACT, alpha, beta)
                answers = {}
                for code, variant in VARIANTS.items():
                    mine = variant.run(fen, depth, alpha, beta)
                    answers[code] = (mine.value, mine.leaves)
                for a, b in combinations(VARIANTS, 2):
                    if answers[a] == answers[b] != (contract.value, contract.leaves):
                        found.setdefault((a, b), []).append((fen, depth, alpha, beta))
    return found


def test_where_two_variants_coincide_the_test_names_both_and_the_first_explains_it() -> None:
    """Every pair of the library's variants, on every search found where the two give the same
    wrong answer: the diagnosis holds both (and every other variant giving it), in the library's
    order; the test's words name them all; one test alone is explained by the first, the others
    said to explain it as well."""
    found = coincidences()
    assert ("no-pruning", "tie-strict") in found  # the issue's: ties at the start position
    for (a, b), searches in found.items():
        for fen, depth, alpha, beta in searches:
            mine = VARIANTS[a].run(fen, depth, alpha, beta)
            named = [
                v.code for v in diagnose_search(fen, depth, mine.value, mine.leaves, alpha, beta)
            ]
            assert a in named and b in named, (a, b, fen, depth, alpha, beta)
            assert named == [c for c in VARIANTS if c in named]
            case = TestCase("t", "search", 1, {"fen": fen, "depth": depth}, 5, 10)
            result = result_of(case, Verdict.WA, "", candidates=named)
            explanation = explain([case], [result])
            assert explanation.codes == (named[0],)
            assert explanation.alternatives == tuple((c,) for c in named[1:])
            assert f"What it looks like: {either(named)}: on this position" in result.output
            assert result.output.endswith(VARIANTS[named[0]].sentence)
            assert result.extra["diagnosis"] == named[0]


def test_move_generation_variants_that_coincide_are_both_named() -> None:
    """The same for the move-generation variants, on the named positions."""
    movegen = [c for c, v in VARIANTS.items() if "movegen" in v.kinds]
    diagnosed = set()
    for fen in _positions():
        contract = sorted(m.pdn() for m in Board(fen).generate_legal_moves())
        lists = {c: sorted(VARIANTS[c].moves(fen)) for c in movegen}
        for code, moves in lists.items():
            named = [v.code for v in diagnose_moves(fen, moves)]
            same = [c for c in movegen if lists[c] == moves]
            assert named == ([] if moves == contract else same), (fen, code)
            diagnosed.update(named)
    assert diagnosed == set(movegen)
