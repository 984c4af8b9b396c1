"""The results page's data: failed tests grouped by the mistake or verdict they share (the
costliest group first, identical failures one row), passed tests counted per kind, the Elo only
when a game was rated, diagnoses carried to each row."""

from __future__ import annotations

from grader.checkers.variants import VARIANTS
from grader.services.engines.results import grouped, position_of, summary


def _test(
    name: str, verdict: str, output: str, score: float = 0.0, kind: str = "search", points=2.0
) -> dict:
    return {
        "name": name,
        "kind": kind,
        "verdict": verdict,
        "score": score,
        "max_score": points,
        "cpu": 0.5,
        "wall": 1.0,
        "output": output,
    }


def test_identical_failures_make_one_row_naming_them_all() -> None:
    trace = "search: RE (ZeroDivisionError)\nTraceback..."
    tests = [
        _test("a", "passed", "ok", 2.0),
        _test("b", "RE", trace),
        _test("c", "WA", "x"),
        _test("d", "RE", trace),
        _test("e", "passed", "ok", 2.0),
        _test("f", "RE", trace),
    ]
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
    (group,) = summary(rich)["failed"]
    assert group["rows"][0]["diagnosis"] == "tie-strict"
    assert group["rows"][0]["candidates"] == []  # stored before candidates were kept
    both = {"diagnosis": "tie-strict", "candidates": ["no-pruning", "tie-strict"]}
    ambiguous = {"tests": [{**_test("a", "WA", "either"), "extra": both}]}
    row = summary(ambiguous)["failed"][0]["rows"][0]
    assert (row["diagnosis"], row["candidates"]) == ("tie-strict", ["no-pruning", "tie-strict"])


def test_a_name_splits_into_the_test_and_its_position() -> None:
    assert position_of("Search depth 4, null window at value-1: start") == (
        "Search depth 4, null window at value-1",
        "start",
    )
    assert position_of("Game vs ref:2, ballot 038, you play black") == (
        "Game vs ref:2, ballot 038, you play black",
        "",
    )


def test_failed_tests_group_by_the_mistake_that_explains_them_then_by_verdict() -> None:
    """Five failures: three a mistake explains (two kinds), one crash, one wrong answer no
    mistake explains; and passed, partly credited and 0-point tests, which are not failures."""
    leaves = [{"what": "leaves", "got": "49", "expected": "13 (alpha-beta ...)"}]
    tie = {"diagnosis": "tie-strict", "candidates": ["tie-strict"], "differs": leaves}
    tests = [
        _test("Move generation: start", "passed", "7 moves", 1.0, "movegen", 1.0),
        _test("Move generation: blocked", "passed", "0 moves", 1.0, "movegen", 1.0),
        _test("Search depth 1: start", "passed", "ok", 2.0),
        {**_test("Search depth 2: start", "WA", "leaves 49", 1.4), "extra": tie},
        {**_test("Search depth 3: start", "WA", "leaves 302", 1.4), "extra": tie},
        _test("Search depth 2: king-hunt", "WA", "value 3: expected 5", 0.6),
        _test("Search depth 3: king-hunt", "RE", "search: RE (ZeroDivisionError)"),
        {
            **_test("Timing depths 5-6: opening-1", "WA", "no credit", 0.0, "timing", 4.0),
            "extra": tie,
        },
        _test("Timing depths 5-6: opening-2", "passed", "reduced", 1.0, "timing", 4.0),
        _test("Parallel search depth 6: opening-4", "RE", "boom", 0.0, "parallel", 0.0),
        _test("Parallel search depth 4: start", "passed", "right", 0.0, "parallel", 0.0),
    ]
    found = summary({"tests": tests})
    mistake, crash, wrong = found["failed"]  # points lost: 5.2, 2.0, 1.4
    assert mistake["code"] == "tie-strict" and mistake["verdict"] is None
    assert mistake["title"] == "3 tests failed the way a known mistake does (tie-strict)"
    assert mistake["about"] == VARIANTS["tie-strict"].sentence
    assert mistake["lost"] == 5.2 and mistake["verdicts"] == "WA (wrong answer)"
    assert [(r["test"], r["position"]) for r in mistake["rows"]] == [
        ("Search depth 2", "start"),
        ("Search depth 3", "start"),
        ("Timing depths 5-6", "opening-1"),
    ]
    assert mistake["rows"][0]["differs"] == leaves
    assert (crash["verdict"], crash["title"], crash["lost"]) == (
        "RE",
        "1 test: RE (runtime error)",
        2.0,
    )
    assert (wrong["verdict"], wrong["code"], wrong["lost"]) == ("WA", None, 1.4)
    assert wrong["rows"][0]["differs"] == []  # stored before the harness listed them
    folded = {k["kind"]: k for k in found["passed"]}
    assert [k["title"] for k in found["passed"]] == [
        "Move generation",
        "Search",
        "Timing",
        "Parallel search",
    ]
    assert (folded["movegen"]["passed"], folded["movegen"]["graded"]) == (2, 2)
    assert (folded["search"]["passed"], folded["search"]["graded"]) == (1, 5)
    assert (folded["timing"]["passed"], folded["timing"]["graded"]) == (1, 2)
    assert [t["score"] for t in folded["timing"]["tests"]] == [1.0]  # partly credited, shown
    parallel = folded["parallel"]
    assert (parallel["passed"], parallel["graded"]) == (0, 0)
    assert [t["verdict"] for t in parallel["ungraded"]] == ["RE", "passed"]


def test_a_crash_at_import_is_one_group_whose_repeats_make_one_row() -> None:
    first = _test("Move generation: start", "RE", "import failed\nTraceback ...", 0, "movegen", 1)
    rest = [
        _test(f"Search depth {d}: start", "RE", "the engine did not start (see the first test)")
        for d in (1, 2, 3)
    ]
    (group,) = summary({"tests": [first, *rest]})["failed"]
    assert group["title"] == "4 tests: RE (runtime error)" and group["lost"] == 7.0
    assert [r["names"] for r in group["rows"]] == [
        ["Move generation: start"],
        ["Search depth 1: start", "Search depth 2: start", "Search depth 3: start"],
    ]
    assert summary({"tests": [first, *rest]})["passed"] == []


def _timing(extra: dict) -> dict:
    return {
        "name": "Timing depths 3-4: opening-1",
        "kind": "timing",
        "verdict": "passed",
        "score": 2.0,
        "max_score": 2.0,
        "cpu": 0.1,
        "wall": 0.2,
        "output": "full timing credit: ratio 1.00\ndepth 3: you 9.000 s CPU, reference "
        "9.000 s (medians of 3 runs)",
        "extra": extra,
    }


def test_the_timing_chart_reads_the_rows_the_test_stored_not_its_prose() -> None:
    rows = [
        {"depth": 3, "cpu": 0.012, "reference_cpu": 0.01, "wall": 0.02, "leaves": 40, "runs": 3},
        {"depth": 4, "cpu": 0.05, "reference_cpu": 0.04, "wall": 0.07, "leaves": 120, "runs": 3},
    ]
    chart = summary({"tests": [_timing({"rows": rows}), _test("a", "passed", "ok")]})["timing"]
    assert chart == [
        {"position": "opening-1", "depth": 3, "cpu": 0.012, "reference_cpu": 0.01},
        {"position": "opening-1", "depth": 4, "cpu": 0.05, "reference_cpu": 0.04},
    ]
    assert summary({"tests": [_timing({})]})["timing"] == []  # prose alone is not read


def test_migration_gives_older_timing_results_their_rows(tmp_path, monkeypatch) -> None:
    import json
    import sqlite3

    import sqlalchemy as sa
    from flask_migrate import upgrade

    from grader import create_app
    from grader.extensions import db
    from grader.models import EngineResult
    from tests.migrations.rows_support import Schema, fill

    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path / "instance"))
    monkeypatch.delenv("GRADER_DATABASE_URL", raising=False)
    app = create_app(
        {"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'old.sqlite3'}"}
    )
    with app.app_context():
        upgrade(directory=app.config["GRADER_MIGRATIONS_DIR"], revision="e566b50e1b7d")
        # The submissions the results belong to (an upgrade refuses rows pointing at nothing).
        with db.engine.begin() as connection:
            fill(connection, Schema.of(connection))
            connection.execute(sa.text("DELETE FROM engine_result"))
        db.engine.dispose()
    old = {
        "tests": [
            {
                **_timing({"ratio": 1.2}),
                "output": "full timing credit: ratio 1.20 (...)\n"
                "depth 3: you 0.012 s CPU, reference 0.010 s (medians of 3 runs)\n"
                "depth 4: you 0.050 s CPU, reference 0.040 s (medians of 3 runs)",
            },
            _test("a", "passed", "depth 9: you 1.000 s CPU, reference 1.000 s (medians of 3 runs)"),
        ]
    }
    stored = {**old, "tests": [old["tests"][0] | {"extra": {"rows": [], "ratio": 1.0}}]}
    connection = sqlite3.connect(tmp_path / "old.sqlite3")  # results of the older release
    for ident, rich in ((1, old), (2, stored)):
        connection.execute(
            "INSERT INTO engine_result (id, submission_id, worker, gradescope, "
            "rich, created_at) VALUES (?, ?, 'w', '{}', ?, "
            "'2026-01-01 00:00:00')",
            (ident, ident, json.dumps(rich)),
        )
    connection.commit()
    connection.close()
    with app.app_context():
        upgrade(directory=app.config["GRADER_MIGRATIONS_DIR"])
        rich = {r.id: r.rich for r in db.session.scalars(sa.select(EngineResult))}
        db.session.remove()
        db.engine.dispose()
    timing, other = rich[1]["tests"]
    assert timing["extra"] == {
        "ratio": 1.2,
        "rows": [
            {"depth": 3, "cpu": 0.012, "reference_cpu": 0.01, "runs": 3},
            {"depth": 4, "cpu": 0.05, "reference_cpu": 0.04, "runs": 3},
        ],
    }
    assert "extra" not in other  # only timing tests get rows
    assert rich[2] == stored  # a result that has its rows is left as it is
    assert [r["depth"] for r in summary(rich[1])["timing"]] == [3, 4]


def test_the_page_says_when_the_reference_was_timed_and_nothing_when_it_cannot() -> None:
    timed = {"reference": {"timed_at": "2026-11-26 12:31 UTC", "retime_seconds": 3600.0}}
    assert summary({"tests": [], **timed})["reference_timed"] == (
        "The reference was timed on this grading machine at 2026-11-26 12:31 UTC "
        "(timed again once 60 minutes old)."
    )
    # Since issue 51 the reference is timed beside the engine's runs, and the page says so.
    beside = {"reference": {"timed_at": "2026-11-29 10:01 UTC", "beside": True}}
    assert summary({"tests": [], **beside})["reference_timed"] == (
        "The reference was timed beside each of your engine's runs, in the same grading slot, "
        "from 2026-11-29 10:01 UTC."
    )
    # A run without timing tests, or one stored before results said it: no sentence at all.
    assert summary({"tests": [], "reference": {"timed_at": None}})["reference_timed"] == ""
    assert summary({"tests": []})["reference_timed"] == ""
