"""A term regrade end to end through real `grader worker` processes (issue 54): uploads graded
in the sandbox record the grader's and the suite's versions; after a suite fix (the search
test's 2 points made 1, in the slot's suite file) a regrade asked through the API is computed
by the worker, at low priority in the bulk class, into a preview of exactly the uploads whose
score the fix changes, computed here independently from the stored tests; replacing applies
it, and a second regrade finds every score given by the versions of now."""

from __future__ import annotations

import json
import re
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


def _regraded(client, headers, course_id, workers, **scope) -> tuple[str, dict, list[str]]:
    """A regrade asked through the API and computed by the worker: its URL, its preview, and
    the progress words the API gave while it ran."""
    started = client.post(
        f"/api/courses/{course_id}/term-regrades",
        json={"reason": "the suite gained a test", **scope},
        headers=headers,
    )
    assert started.status_code == 202, started.get_json()
    url = f"/api/term-regrades/{started.get_json()['id']}"
    seen: list[str] = []

    def done() -> dict | bool:
        got = client.get(url, headers=headers).get_json()
        if got.get("progress"):
            seen.append(got["progress"])
        return got["status"] in ("done", "failed") and got

    return url, wait_for(done, 240, "the regrade's preview", workers), seen


def test_a_test_the_suite_gained_is_run_in_the_sandbox_for_the_preview(
    app, client, factory, room, upload, workers, engine_env
):
    # Two uploads graded by the suite as it was; a test planted in the suite (a move generation
    # test on the starting position, which both engines pass); a third upload graded after it.
    # The regrade runs the planted test, and only it, on the two older uploads in the sandbox;
    # the correct engine's share stays 100%, the tie-strict one's rises (a passed test more).
    factory.user(SECOND)
    factory.member(room.course_id, SECOND)
    second = {"Authorization": f"Bearer {factory.token(SECOND)}"}
    workers.start(1)
    ids = {
        "correct": upload(engine_bytes("correct")).get_json()["id"],
        "tie_strict": upload(
            zip_bytes({"engine.py": engine_bytes("tie_strict"), "correct.py": engine_bytes()}),
            "engine.zip",
            headers=second,
        ).get_json()["id"],
    }
    for name, submission_id in ids.items():
        got = _finished(
            client, room.student if name == "correct" else second, submission_id, workers
        )
        assert got["status"] == "done", got
    suite = Path(engine_env["GRADER_ENGINE_SUITE"])
    definition = json.loads(suite.read_text())
    definition["groups"].append(
        {"kind": "movegen", "points": 1, "cpu": 1, "wall": 2, "positions": ["start"]}
    )
    suite.write_text(json.dumps(definition))
    from grader.harness import load_suite

    planted = load_suite(suite)
    (new_test,) = [t.name for t in planted.tests if "start" in t.name]
    later = upload(engine_bytes("correct")).get_json()["id"]
    assert _finished(client, room.student, later, workers)["status"] == "done"
    with app.app_context():
        stored = {
            s.id: (s.score, s.max_score, s.suite_version)
            for s in db.session.scalars(sa.select(Submission))
        }
        results = {r.submission_id: r.rich for r in db.session.scalars(sa.select(EngineResult))}
        db.session.remove()
    assert stored[later][2] == planted.version and new_test in {
        t["name"] for t in results[later]["tests"]
    }

    scope = {"assignment_id": room.assignment_id, "slot_index": room.slot_index}
    url, done, seen = _regraded(client, room.teacher, room.course_id, workers, **scope)
    assert done["status"] == "done", done
    assert done["examined"] == 2 and done["current"] == 1 and done["rerun"] == []
    # Exactly the two uploads that never ran the planted test were run, with its result.
    rows = {row["id"]: row for row in done["sandbox"]}
    assert set(rows) == set(ids.values())
    for submission_id in ids.values():
        row = rows[submission_id]
        score, most, _ = stored[submission_id]
        assert row["old_points"] == [score, most]
        assert row["new_points"] == [score + 1, most + 1]  # the planted test, passed
        assert row["changes"] == [
            f"{new_test}: new in the suite, run in the sandbox: passed, 1 of 1"
        ]
        assert row["new"] == pytest.approx(round((score + 1) / (most + 1), 6))
    # Only the tie-strict upload's share changes: it alone is a student's changed score.
    with app.app_context():
        owner = db.session.get_one(Submission, ids["tie_strict"]).owner_id
        db.session.remove()
    assert [row["user_id"] for row in done["students"]] == [owner]
    assert any(new_test in change for change in done["students"][0]["changes"])
    assert all(
        re.fullmatch(r"\d of 2 uploads run in the sandbox|\d+ of \d+ exercises? scored", w)
        for w in seen
    ), seen

    # Computed again in this process, the preview is the same, and its progress counts the
    # uploads run in the sandbox one by one.
    from grader.models import TermRegrade
    from grader.services.teaching.regrade_preview import preview, progress_words

    with app.app_context():
        progress: list[dict] = []
        again = preview(db.session.get_one(TermRegrade, done["id"]), progress.append)
        db.session.remove()
    assert [r["new_points"] for r in again["sandbox"]] == [
        rows[i]["new_points"] for i in sorted(rows)
    ]
    words = [progress_words(p) for p in progress if p["phase"] == "sandbox"]
    assert words == [f"{n} of 2 uploads run in the sandbox" for n in range(3)]

    # Discarded: every stored score and result is as it was.
    discarded = client.post(f"{url}/apply", json={"choice": "discard"}, headers=room.teacher)
    assert discarded.get_json() == {"changed": 0, "kept": 0, "stale": 0}
    with app.app_context():
        assert {
            s.id: (s.score, s.max_score, s.suite_version)
            for s in db.session.scalars(sa.select(Submission))
        } == stored
        assert {
            r.submission_id: r.rich for r in db.session.scalars(sa.select(EngineResult))
        } == results
        db.session.remove()

    # Replaced: the tests run in the sandbox are stored with the scores, so the next regrade
    # finds every upload graded by the suite of now and runs nothing.
    url, done, _ = _regraded(client, room.teacher, room.course_id, workers, **scope)
    applied = client.post(f"{url}/apply", json={"choice": "replace"}, headers=room.teacher)
    assert applied.get_json() == {"changed": 1, "kept": 0, "stale": 0}
    with app.app_context():
        for submission_id in ids.values():
            upload_row = db.session.get_one(Submission, submission_id)
            assert (upload_row.score, upload_row.max_score) == tuple(
                rows[submission_id]["new_points"]
            )
            assert upload_row.suite_version == planted.version
            result = db.session.scalar(
                sa.select(EngineResult).where(EngineResult.submission_id == submission_id)
            )
            assert [t["name"] for t in result.rich["tests"]] == [t.name for t in planted.tests]
            assert [t["name"] for t in result.gradescope["tests"]] == [
                t.name for t in planted.tests
            ]
        db.session.remove()
    _, repeat, _ = _regraded(client, room.teacher, room.course_id, workers, **scope)
    assert repeat["examined"] == 0 and repeat["current"] == 3 and repeat["sandbox"] == []
