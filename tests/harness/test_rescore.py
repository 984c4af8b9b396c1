"""A stored run's tests scored against a suite as it now is (harness.rescore, issue 54)."""

from __future__ import annotations

import json
from pathlib import Path

from grader.harness import load_suite, rescore
from tests.harness._helpers import TINY


def _stored(suite, failed: str = "") -> list[dict]:
    return [
        {
            "name": t.name,
            "kind": t.kind,
            "verdict": "WA" if t.name == failed else "passed",
            "score": 0.0 if t.name == failed else t.points,
            "max_score": t.points,
        }
        for t in suite.tests
    ]


def _fixed(tmp_path: Path, **points: float) -> object:
    definition = json.loads(TINY.read_text())
    definition["groups"] = [
        {**group, "points": points.get(group["kind"], group["points"])}
        for group in definition["groups"]
        if points.get(group["kind"], 1) is not None
    ]
    path = tmp_path / "fixed.json"
    path.write_text(json.dumps(definition))
    return load_suite(path)


def test_the_same_suite_scores_the_same_and_says_nothing_changed():
    suite = load_suite(TINY)
    search = next(t.name for t in suite.tests if t.kind == "search")
    again = rescore(_stored(suite, search), suite)
    assert (again.score, again.max_score) == (suite.max_score - 2, suite.max_score)
    assert again.changes == [] and again.missing == []


def test_changed_points_keep_each_test_share_and_name_what_changed(tmp_path):
    suite = load_suite(TINY)
    search = next(t.name for t in suite.tests if t.kind == "search")
    fixed = _fixed(tmp_path, search=1)
    assert fixed.version != suite.version
    failed = rescore(_stored(suite, search), fixed)
    assert (failed.score, failed.max_score) == (fixed.max_score - 1, fixed.max_score)
    assert failed.changes == [f"{search}: 0 of 2 is now 0 of 1"]
    passed = rescore(_stored(suite), fixed)
    assert passed.score == passed.max_score == fixed.max_score
    assert passed.changes == [f"{search}: 2 of 2 is now 1 of 1"]


def test_a_dropped_test_goes_and_a_new_one_needs_the_sandbox(tmp_path):
    suite = load_suite(TINY)
    movegen = next(t.name for t in suite.tests if t.kind == "movegen")
    dropped = _fixed(tmp_path, movegen=None)
    again = rescore(_stored(suite), dropped)
    assert again.max_score == suite.max_score - 1
    assert again.changes == [f"{movegen}: dropped from the suite (1 of 1)"]
    stored = [t for t in _stored(suite) if t["name"] != movegen]
    assert rescore(stored, suite).missing == [movegen]
