"""The results page's data: identical failures grouped into one row, the Elo only when a game
was rated, diagnoses carried to each row."""

from __future__ import annotations

from grader.services.engines import grouped, summary


def _test(name: str, verdict: str, output: str, score: float = 0.0) -> dict:
    return {"name": name, "kind": "search", "verdict": verdict, "score": score,
            "max_score": 2.0, "cpu": 0.5, "wall": 1.0, "output": output}


def test_identical_failures_make_one_row_naming_them_all() -> None:
    trace = "search: RE (ZeroDivisionError)\nTraceback..."
    tests = [_test("a", "passed", "ok", 2.0), _test("b", "RE", trace), _test("c", "WA", "x"),
             _test("d", "RE", trace), _test("e", "passed", "ok", 2.0), _test("f", "RE", trace)]
    rows = grouped(tests)
    assert [r["names"] for r in rows] == [["a"], ["b", "d", "f"], ["c"], ["e"]]
    assert rows[1]["max_score"] == 6.0 and rows[1]["cpu"] == 1.5
    assert rows[1]["output"] == trace


def test_the_elo_is_left_out_when_no_game_was_rated() -> None:
    rich = {"tests": [], "games": [], "elo": {"rating": 0.0, "games": 0, "text": "no games"}}
    assert summary(rich)["elo"] is None
    rated = {"tests": [], "games": [], "elo": {"rating": 900.0, "games": 2, "text": "900"}}
    assert summary(rated)["elo"]["rating"] == 900.0


def test_each_row_carries_its_diagnosis() -> None:
    rich = {"tests": [{**_test("a", "WA", "looks like it"), "extra": {"diagnosis": "tie-strict"}}]}
    assert summary(rich)["rows"][0]["diagnosis"] == "tie-strict"
