"""The first verdict: a suite's leading correctness tests (move generation, perft, search) are
heard as soon as they end, before the games, with the points the final score then counts
unchanged. Run on the tiny suite (movegen, search, then games) in the real sandbox."""

from __future__ import annotations

from typing import Any

from grader.harness import TEST_KINDS, grade_engine
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
