"""The first verdict: a suite's leading correctness tests (move generation, perft, search) are
heard as soon as they end, before the games, with the points the final score then counts
unchanged. Run on the tiny suite (movegen, search, then games) in the real sandbox."""

from __future__ import annotations

from typing import Any

import pytest

from grader.harness import TEST_KINDS, Kept, grade_engine
from grader.services.engines.leases import first_verdict
from tests.harness._helpers import needs_bwrap


def _graded(submission: Any, tiny: Any, name: str) -> tuple[Any, list[Any], list[str]]:
    heard: list[list[Any]] = []
    events: list[str] = []

    def progress(kind: str, done: int, total: int, label: str) -> None:
        events.append(kind)

    def first(results: list[Any]) -> None:
        heard.append(results)
        events.append("first verdict")

    report = grade_engine(submission(name), tiny, progress=progress, first=first)
    assert len(heard) == 1  # once
    return report, heard[0], events


@needs_bwrap
def test_the_correct_engine_hears_every_correctness_test_before_its_games(submission, tiny):
    report, first, events = _graded(submission, tiny, "correct")
    correctness = [t for t in report.tests if TEST_KINDS[t.kind].correctness]
    assert [t.name for t in first] == [t.name for t in correctness]
    assert "game" not in events[: events.index("first verdict")]  # before any game
    assert "game" in events[events.index("first verdict") :]
    words = first_verdict(tiny.tests, first)
    assert words["score"] == words["max_score"] == sum(t.max_score for t in correctness)
    assert (words["failed"], words["tests"]) == (0, len(correctness))
    assert words["parts"] == ["Move generation", "Search"] and words["running"] == ["Games"]
    # The final score counts the same correctness points, and the games' beside them.
    assert report.score == sum(t.score for t in report.tests)
    assert sum(t.score for t in correctness) == words["score"]


@needs_bwrap
def test_a_wrong_search_shows_in_the_first_verdict_as_in_the_final_result(submission, tiny):
    report, first, _ = _graded(submission, tiny, "no_pruning")
    words = first_verdict(tiny.tests, first)
    final = {t.name: t for t in report.tests}
    assert words["failed"] >= 1 and words["score"] < words["max_score"]
    assert [t.score for t in first] == [final[t.name].score for t in first]


@needs_bwrap
@pytest.mark.parametrize("name", ["correct", "no_pruning"])
def test_a_run_that_ends_at_the_first_verdict_leaves_the_rest_to_the_next(submission, tiny, name):
    """`first_only`: the first run grades the leading correctness tests alone; the run given
    what it kept grades the rest, and the two give what one whole run gives, test for test."""
    engine = submission(name)
    first = grade_engine(engine, tiny, first_only=True)
    correctness = [t.name for t in tiny.tests if TEST_KINDS[t.kind].correctness]
    assert first.rest and [t.name for t in first.tests] == correctness
    kept = Kept.of(first, deferral=False)
    assert kept.deferrals == 0  # the rest is no deferral
    rest = grade_engine(engine, tiny, kept=Kept.from_dict(kept.to_dict()))
    assert not rest.rest and rest.deferrals == 0
    assert [t.name for t in rest.tests] == [t.name for t in tiny.tests]
    # Kept, not run again: the same CPU seconds measured by the first run.
    assert [t.cpu for t in rest.tests[: len(correctness)]] == [t.cpu for t in first.tests]
    whole = grade_engine(engine, tiny)
    assert [(t.name, t.verdict) for t in rest.tests] == [(t.name, t.verdict) for t in whole.tests]

    def seen(report: Any) -> list[tuple[Any, ...]]:  # the correctness tests as a student sees them
        return [(t.name, t.score, t.output) for t in report.tests[: len(correctness)]]

    assert seen(rest) == seen(whole)  # the diagnosis too, read across every test
    assert not any("deferred" in t.output for t in rest.tests)


@needs_bwrap
def test_an_engine_that_does_not_start_is_charged_whole_at_once(submission, tiny):
    first = grade_engine(submission("crash_at_import"), tiny, first_only=True)
    assert not first.rest and [t.name for t in first.tests] == [t.name for t in tiny.tests]
    assert first.score == 0
