"""Each classic mistake of a student's engine, through the real sandbox, gets its verdicts, its
score and its named diagnosis; the correct engine still gets full marks.

The suite (tests/harness/data/mistakes.json) is small: two move-generation positions, a search
at depth 4, the same search with a null window above the value (at value + 74, where fail-soft
and fail-hard differ), a timing test scored as the real suites do (3x / 30x, median of 3 runs)
and search_parallel with that window. Each run is explained by its engine's own mistake alone,
and no line it says is contradicted by another of its tests (`assert_words_hold`). The tie-rule
engine is also run on the quick suite's search tests, where some of its answers are minimax's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader import data
from grader.checkers import Board
from grader.checkers.engine import CONTRACT, search
from grader.checkers.variants import VARIANTS
from grader.harness.results import gradescope, summary
from grader.harness.runner import grade_engine
from grader.harness.suite import Suite, load_suite
from grader.harness.testkinds.search import root_window
from grader.harness.verdicts import Verdict
from tests.harness._helpers import assert_words_hold, needs_bwrap

MISTAKES = Path(__file__).parent / "data" / "mistakes.json"
P, WA = Verdict.PASSED, Verdict.WA

# name: (verdicts, scores, diagnoses) per test: movegen x2, search, windowed search, timing,
# windowed search_parallel (no points, as parallel tests in the real suites; an engine without
# search_parallel passes it as optional).
# A search answer earns the credit of its right parts (value 0.4, move 0.2, leaves within
# minimax's 0.1, exact 0.3; with a window: value 0.5, within 0.1, exact 0.4).
EXPECTED: dict[str, tuple[list[Verdict], list[float], list[str | None]]] = {
    "correct": ([P, P, P, P, P, P], [1, 1, 2, 1, 2, 0], [None] * 6),
    "fail_hard": (
        [P, P, P, WA, P, WA],
        [1, 1, 2, 0.5, 2, 0],
        [None, None, None, "fail-hard", None, "fail-hard"],
    ),
    "tie_strict": (
        [P, P, WA, P, WA, P],
        [1, 1, 1.4, 1, 0, 0],
        [None, None, "tie-strict", None, "tie-strict", None],
    ),
    "no_pruning": (
        [P, P, WA, WA, WA, P],
        [1, 1, 1.4, 0.6, 0, 0],
        [None, None, *["no-pruning"] * 3, None],
    ),
    "shallow_cutoffs": (
        [P, P, WA, WA, WA, P],
        [1, 1, 1.4, 0.6, 0, 0],
        [None, None, *["shallow-cutoffs"] * 3, None],
    ),
    "wrong_order": (
        [P, P, WA, WA, WA, P],
        [1, 1, 1.4, 0.6, 0, 0],
        [None, None, *["text-order"] * 3, None],
    ),
    "reversed_order": (
        [P, P, WA, WA, WA, P],
        [1, 1, 1.4, 0.6, 0, 0],
        [None, None, *["reversed-order"] * 3, None],
    ),
    "wrong_side": (
        [P, P, WA, WA, WA, WA],
        [1, 1, 0.2, 0.1, 0, 0],
        [None, None, *["wrong-side"] * 4],
    ),
    "captures_not_forced": ([WA] * 6, [0, 0, 1.4, 0.1, 0, 0], ["captures-optional"] * 6),
    "crowned_continues": (
        [WA, P, P, P, P, P],
        [0, 1, 2, 1, 2, 0],
        ["crowned-continues", *[None] * 5],
    ),
    "slow": ([P] * 6, [1, 1, 2, 1, 0, 0], [None] * 6),
}


# Each sample engine's one mistake: its run is explained by that code alone.
MISTAKE = {
    name: next(code for code in diagnoses if code)
    for name, (_, _, diagnoses) in EXPECTED.items()
    if any(diagnoses)
}


def test_every_mistake_of_the_library_has_a_sample_engine() -> None:
    assert sorted(MISTAKE.values()) == sorted(VARIANTS)


@pytest.fixture(scope="module")
def mistakes():
    return load_suite(MISTAKES)


@needs_bwrap
@pytest.mark.parametrize("name", list(EXPECTED))
def test_classic_mistake_is_caught_and_named(name: str, submission, mistakes) -> None:
    verdicts, scores, diagnoses = EXPECTED[name]
    report = grade_engine(submission(name), mistakes)
    detail = [(t.verdict.value, t.score, t.output) for t in report.tests]
    assert [t.verdict for t in report.tests] == verdicts, detail
    assert [t.score for t in report.tests] == pytest.approx(scores), detail
    assert [t.extra.get("diagnosis") for t in report.tests] == diagnoses, detail
    assert report.score == pytest.approx(sum(scores))
    results = gradescope(report)
    assert report.explanation.codes == ((MISTAKE[name],) if name in MISTAKE else ())
    assert_words_hold(report, mistakes)
    for test, code in zip(results["tests"], diagnoses, strict=True):
        if code is not None:  # the sentence, in words, in results.json's output
            assert VARIANTS[code].sentence in test["output"]
            assert test["extra_data"]["diagnosis"] == code
    if name == "slow":
        timing = report.tests[4]
        assert timing.extra["ratio"] > 30  # past the zero-credit ratio
        rows = timing.extra["rows"]  # the chart's rows, as data: one per depth
        assert [r["depth"] for r in rows] == mistakes.tests[4].params["depths"]
        assert sum(r["cpu"] for r in rows) / sum(r["reference_cpu"] for r in rows) == pytest.approx(
            timing.extra["ratio"], rel=0.01
        )
        # No credit from either end of its first two runs: a third could not change it.
        assert all(r["leaves"] > 0 and r["runs"] == 2 for r in rows)
        assert "Each search ran 2 times, not 3" in timing.output
        assert timing.output.startswith("passed with reduced timing credit: 0 of 2 points")
        assert results["tests"][4]["output"].startswith("passed (reduced timing credit)")
        assert "1 with reduced timing credit" in summary(report)
    if name == "correct":
        assert report.score == report.max_score == 7
    if name == "captures_not_forced":  # its moves: the legal ones and the captures it skipped
        (moves,) = report.tests[0].extra["differs"]
        assert moves["what"] == "moves"
        assert set(moves["expected"].split(", ")) < set(moves["got"].split(", "))


@needs_bwrap
def test_an_engine_that_never_moved_gets_no_elo(submission, tiny) -> None:
    report = grade_engine(submission("no_move"), tiny)
    assert [t.verdict for t in report.tests] == [P, P, Verdict.RE, Verdict.RE]
    assert all(g.extra["engine_moves"] == 0 for g in report.games)
    assert report.elo is not None and report.elo.games == 0
    assert "Elo" not in summary(report)
    assert all(row["name"] != "Elo" for row in gradescope(report)["leaderboard"])


@needs_bwrap
def test_a_search_without_the_window_is_told_so(submission, mistakes) -> None:
    """The two-argument form still answers the full-window tests; the windowed ones say what
    the contract's signature is (PROTOCOL), without calling it."""
    report = grade_engine(submission("two_arguments"), mistakes)
    assert [t.verdict for t in report.tests] == [P, P, P, Verdict.PROTOCOL, P, Verdict.PROTOCOL]
    assert "your search takes 2 arguments" in report.tests[3].output
    assert "search(fen, depth, alpha=-INF, beta=INF)" in report.tests[3].output
    assert "your search_parallel takes 3 arguments" in report.tests[5].output


@pytest.fixture(scope="module")
def quick_search(tmp_path_factory) -> Suite:
    """The quick suite's search tests: where the issue's tie-rule engine was told two mistakes."""
    definition = json.loads((data.suite_dir() / "quick.json").read_text(encoding="utf-8"))
    definition["groups"] = [g for g in definition["groups"] if g["kind"] == "search"]
    path = tmp_path_factory.mktemp("suite") / "quick-search.json"
    path.write_text(json.dumps(definition), encoding="utf-8")
    return load_suite(path)


@needs_bwrap
def test_the_tie_rule_engine_is_told_tie_strict_alone(submission, quick_search) -> None:
    """At the start position every evaluation is equal, so every cutoff is a tie: there the
    tie-rule engine's answers are minimax's too. Those tests name both mistakes; the run, and
    every line of it, names tie-strict alone."""
    report = grade_engine(submission("tie_strict"), quick_search)
    assert report.explanation.codes == ("tie-strict",)
    assert_words_hold(report, quick_search)
    ambiguous = []
    for case, result in zip(quick_search.tests, report.tests, strict=True):
        fen, depth = case.params["fen"], case.params["depth"]
        alpha, beta = root_window(case)
        answers = {
            code: (r.value, r.leaves)
            for code in ("no-pruning", "tie-strict")
            for r in [VARIANTS[code].run(fen, depth, alpha, beta)]
        }
        contract = search(Board(fen), depth, CONTRACT, alpha, beta)
        if answers["tie-strict"] == answers["no-pruning"] != (contract.value, contract.leaves):
            ambiguous.append(case.name)
            assert result.extra["candidates"] == ["no-pruning", "tie-strict"]
            assert result.extra["diagnosis"] == "tie-strict"
            assert (
                "What it looks like: tie-strict or no-pruning: on this position they give your "
                "value and leaf count." in result.output
            )
            assert "tie-strict alone explains every test of yours" in result.output
        if result.verdict is not P:  # the results page's row: the leaf count, ours and theirs
            assert result.extra["differs"] == [
                {
                    "what": "leaves",
                    "got": str(answers["tie-strict"][1]),
                    "expected": f"{contract.leaves} (alpha-beta in canonical order; minimax "
                    f"evaluates {VARIANTS['no-pruning'].run(fen, depth).leaves})",
                }
            ]
        else:
            assert "differs" not in result.extra
    assert "Search depth 2: start" in ambiguous and "Search depth 3: start" in ambiguous
    failed = sum(t.verdict is not P for t in report.tests)
    text = summary(report)
    assert f"{failed} tests failed the way a known mistake does (tie-strict)" in text
    assert f"{len(ambiguous)} of them match no-pruning too" in text
    assert f"tie-strict alone explains all {failed}." in text
    assert "(no-pruning)" not in text
