"""A term regrade end to end through real `grader worker` processes (issue 54): uploads graded
in the sandbox record the grader's and the suite's versions; after a suite fix (the search
test's 2 points made 1, in the slot's suite file) a regrade asked through the API is computed
by the worker, at low priority in the bulk class, into a preview of exactly the uploads whose
score the fix changes, computed here independently from the stored tests; replacing applies
it, and a second regrade finds every score given by the versions of now."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import EngineResult, Submission, grader_version
from tests.harness._helpers import TINY
from tests.jobs.engine_support import engine_bytes, wait_for, zip_bytes

pytestmark = pytest.mark.slow

SECOND = "second@example.com"


@pytest.fixture
def engine_env(engine_env, tmp_path: Path):
    """The slots grade with a copy of the tiny suite that the test fixes later."""
    suite = tmp_path / "suite" / "tiny.json"
    suite.parent.mkdir()
    shutil.copyfile(TINY, suite)
    return {**engine_env, "GRADER_ENGINE_SUITE": str(suite)}


def _fraction(tests: list[dict], points: dict[str, float]) -> float:
    score = sum(t["score"] / t["max_score"] * points.get(t["kind"], t["max_score"]) for t in tests)
    most = sum(points.get(t["kind"], t["max_score"]) for t in tests)
    return round(score / most, 6)


def _finished(client, headers, submission_id, workers) -> dict:
    return wait_for(
        lambda: (
            (s := client.get(f"/api/engines/{submission_id}", headers=headers).get_json())["status"]
            in ("done", "failed")
            and s
        ),
        120,
        "the grading",
        workers,
    )


def test_a_suite_fix_regraded_by_the_worker(
    app, client, factory, room, upload, workers, engine_env
):
    factory.user(SECOND)
    factory.member(room.course_id, SECOND)
    second = {"Authorization": f"Bearer {factory.token(SECOND)}"}
    workers.start(1)
    ids = {
        "correct": upload(engine_bytes("correct")).get_json()["id"],
        # The classic mistake of cutting only on a strict inequality, beside the engine it
        # changes (as the misconception samples are uploaded).
        "tie_strict": upload(
            zip_bytes({"engine.py": engine_bytes("tie_strict"), "correct.py": engine_bytes()}),
            "engine.zip",
            headers=second,
        ).get_json()["id"],
    }
    for name, submission_id in ids.items():
        headers = room.student if name == "correct" else second
        got = _finished(client, headers, submission_id, workers)
        assert got["status"] == "done", got
    suite = Path(engine_env["GRADER_ENGINE_SUITE"])
    from grader.harness import load_suite

    before = load_suite(suite).version
    with app.app_context():
        stored = {
            s.id: (s.grader_version, s.suite_version)
            for s in db.session.scalars(sa.select(Submission))
        }
        tests = {
            r.submission_id: r.rich["tests"] for r in db.session.scalars(sa.select(EngineResult))
        }
        db.session.remove()
    assert set(stored.values()) == {(grader_version(), before)}
    # The fix: the search test is worth 1 point, not 2.
    definition = json.loads(suite.read_text())
    for group in definition["groups"]:
        if group["kind"] == "search":
            group["points"] = 1
    suite.write_text(json.dumps(definition))
    expected = {
        i for i in ids.values() if _fraction(tests[i], {}) != _fraction(tests[i], {"search": 1.0})
    }
    assert ids["tie_strict"] in expected  # it fails the search test: the fix raises it
    assert ids["correct"] not in expected

    started = client.post(
        f"/api/courses/{room.course_id}/term-regrades",
        json={
            "assignment_id": room.assignment_id,
            "slot_index": room.slot_index,
            "reason": "the search test was worth too much",
        },
        headers=room.teacher,
    )
    assert started.status_code == 202, started.get_json()
    url = f"/api/term-regrades/{started.get_json()['id']}"
    done = wait_for(
        lambda: (r := client.get(url, headers=room.teacher).get_json())["status"] == "done" and r,
        120,
        "the regrade's preview",
        workers,
    )
    assert done["examined"] == 2 and done["current"] == 0
    with app.app_context():
        owners = {
            s.id: s.owner_id
            for s in db.session.scalars(sa.select(Submission).where(Submission.id.in_(expected)))
        }
        db.session.remove()
    assert {row["user_id"] for row in done["students"]} == set(owners.values())
    for row in done["students"]:
        (submission_id,) = [i for i, owner in owners.items() if owner == row["user_id"]]
        assert row["new"] == pytest.approx(_fraction(tests[submission_id], {"search": 1.0}))
        assert any("search" in change.lower() for change in row["changes"])
    applied = client.post(f"{url}/apply", json={"choice": "replace"}, headers=room.teacher)
    assert applied.get_json() == {"changed": len(expected), "kept": 0, "stale": 0}
    again = client.post(
        f"/api/courses/{room.course_id}/term-regrades",
        json={"reason": "nothing changed since"},
        headers=room.teacher,
    ).get_json()
    repeat = wait_for(
        lambda: (
            (r := client.get(f"/api/term-regrades/{again['id']}", headers=room.teacher).get_json())[
                "status"
            ]
            == "done"
            and r
        ),
        120,
        "the second regrade",
        workers,
    )
    assert repeat["examined"] == 0 and repeat["current"] == 2 and repeat["students"] == []
