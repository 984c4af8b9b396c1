"""Uploads graded by real `grader worker` processes: upload to results, a worker killed with
SIGKILL in the middle of a job, supersede, internal errors retried then failed uncharged."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import EngineResult, Submission
from grader.services.engines.leases import REST_RUNNING
from tests.jobs.engine_support import SMALL, engine_bytes, slow_engine_zip, wait_for

pytestmark = pytest.mark.slow


def status(client, headers, submission_id: int) -> dict:
    response = client.get(f"/api/engines/{submission_id}", headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def finished(client, headers, submission_id: int, workers, seconds: float, what: str) -> dict:
    """The submission's status once it is done or failed, waited for while the workers run."""
    return wait_for(
        lambda: (s := status(client, headers, submission_id))["status"] in ("done", "failed") and s,
        seconds,
        what,
        workers,
    )


def result_rows(app, submission_id: int) -> int:
    with app.app_context():
        count = db.session.scalar(
            sa.select(sa.func.count(EngineResult.id)).where(
                EngineResult.submission_id == submission_id
            )
        )
        db.session.remove()
        return count


def test_upload_to_results_through_a_real_worker(app, client, room, upload, workers):
    workers.start(1)
    submission_id = upload(engine_bytes("correct")).get_json()["id"]
    done = finished(client, room.student, submission_id, workers, 90, "the result")
    assert done["status"] == "done", done
    assert done["score"] == done["max_score"] == 5.0  # the tiny suite, every test passed
    assert done["attempts"] == 1 and done["finished_at"] and done["progress"]["phase"] == "done"
    results = done["results"]
    assert results["score"] == 5.0 and {t["status"] for t in results["tests"]} == {"passed"}
    summary = done["summary"]
    assert [t["verdict"] for t in summary["tests"]] == ["passed"] * len(summary["tests"])
    assert summary["games"] and summary["games"][0]["opponent"] == "greedy"
    # The replay: every ply's position, computed by the server from the PDN.
    game = client.get(f"/api/engines/{submission_id}/games/0", headers=room.student).get_json()
    assert (
        game["plies"][0]["move"] is None and len(game["plies"]) == summary["games"][0]["plies"] + 1
    )
    assert (
        all(p["fen"] for p in game["plies"]) and game["plies"][1]["fen"] != game["plies"][0]["fen"]
    )
    pdn = client.get(f"/api/engines/{submission_id}/games/0.pdn", headers=room.student)
    assert pdn.status_code == 200 and b"[Result" in pdn.data
    download = client.get(done["urls"]["results_json"], headers=room.student)
    assert download.status_code == 200 and download.get_json()["score"] == 5.0
    assert "attachment" in download.headers["Content-Disposition"]
    assert result_rows(app, submission_id) == 1


def test_worker_killed_mid_job_then_restarted(app, client, room, upload, workers):
    """Killed while it grades an upload's rest (its timing and games, after the first run's
    first verdict): the sweep requeues it with the first run's results, and the next claim
    grades the rest from them, its second claim of the rest."""
    app.config["GRADER_ENGINE_SUITE"] = str(SMALL)  # recorded with the submission
    first = workers.start(1)
    submission_id = upload(slow_engine_zip(), "slow.zip").get_json()["id"]
    running = wait_for(
        lambda: (
            (s := status(client, room.student, submission_id))["status"] == "running"
            and s["progress"].get("phase") == REST_RUNNING
            and s["progress"].get("tests_done", 0) > 0
            and s
        ),
        60,
        "the job to be running with progress",
        workers,
    )
    assert running["progress"]["tests_total"] > running["progress"]["tests_done"]
    os.kill(first.pid, signal.SIGKILL)  # the consumer; its worker process dies with it
    with app.app_context():  # the first run's results, which the running rest's progress holds
        kept = db.session.get(Submission, submission_id).progress["rest"]["kept"]["tests"]
        db.session.remove()
    assert kept
    first.wait(timeout=10)
    time.sleep(1.0)
    assert status(client, room.student, submission_id)["status"] == "running"  # the lease holds
    assert result_rows(app, submission_id) == 0
    workers.start(1)  # its sweep requeues the job once the dead worker's lease expires
    done = finished(client, room.student, submission_id, workers, 120, "the job to complete")
    assert done["status"] == "done", done
    assert done["attempts"] == 2 and done["score"] == done["max_score"]
    assert result_rows(app, submission_id) == 1
    with app.app_context():  # the first run's tests were not graded again: the same measures
        rich = db.session.scalar(sa.select(EngineResult.rich))
        db.session.remove()
    graded = {t["name"]: t for t in rich["tests"]}
    assert all(graded[t["name"]]["cpu"] == round(t["cpu"], 4) for t in kept)
    # The timing chart's rows, as the timing test stored them: one per depth of small.json.
    timing = done["summary"]["timing"]
    assert [(r["position"], r["depth"]) for r in timing] == [("opening-1", 3), ("opening-1", 4)]
    assert all(r["cpu"] > 0 and r["reference_cpu"] > 0 for r in timing)
    # The reference's work is kept in the worker's cache folder, and the page says when the
    # reference was timed (beside the engine's runs).
    assert list(Path(app.config["GRADER_CACHE_DIR"]).glob("references-*.json"))
    assert (
        "The reference was timed beside each of your engine's runs"
        in (done["summary"]["reference_timed"])
    )
    log = workers.log_text()
    assert "requeued 1 submissions whose worker stopped" in log


def test_supersede_then_only_the_newest_is_graded(app, client, room, upload, workers):
    older = upload(engine_bytes("wrong_eval")).get_json()["id"]
    newer = upload(engine_bytes("correct")).get_json()["id"]
    assert status(client, room.student, older)["status"] == "superseded"
    workers.start(1)
    wait_for(
        lambda: status(client, room.student, newer)["status"] == "done",
        90,
        "the newer submission",
        workers,
    )
    assert status(client, room.student, older)["status"] == "superseded"
    assert result_rows(app, older) == 0 and result_rows(app, newer) == 1


def test_internal_errors_are_retried_then_failed_uncharged(app, client, room, upload, workers):
    app.config["GRADER_ENGINE_SUITE"] = "/nonexistent/suite.json"  # the grader's fault
    submission_id = upload(engine_bytes("correct")).get_json()["id"]
    workers.start(1)
    failed = wait_for(
        lambda: (s := status(client, room.student, submission_id))["status"] == "failed" and s,
        60,
        "the job to fail",
        workers,
    )
    assert failed["attempts"] == 3 and "not charged to you" in failed["error"]
    assert failed["score"] is None and result_rows(app, submission_id) == 0
    with app.app_context():
        from grader.services.teaching import gradebook

        book = gradebook.build(room.course_id)
        slot_id = db.session.get(Submission, submission_id).slot_id
        db.session.remove()
    assert book.rows[0].slot_scores[slot_id] is None  # nothing charged to the gradebook


def test_a_job_past_its_worker_time_is_charged_once_not_retried(app, client, room, upload, workers):
    """Issue 10: a job's total worker time is capped (GRADER_JOB_SECONDS), end to end through a
    real worker: the tests left past the cap are the engine's TLE_WALL, naming the cap; the job
    ends `done` on its first attempt (no internal error, so no retry) and is charged."""
    workers.env["GRADER_JOB_SECONDS"] = "0"  # every test is past the cap
    workers.start(1)
    submission_id = upload(engine_bytes("correct")).get_json()["id"]
    done = finished(client, room.student, submission_id, workers, 90, "the result")
    assert done["status"] == "done" and done["attempts"] == 1, done
    verdicts = [t["verdict"] for t in done["summary"]["tests"]]
    assert verdicts and set(verdicts) == {"TLE_WALL"}, verdicts
    assert all("worker time" in t["output"] for t in done["results"]["tests"])
    assert done["score"] == 0.0 and result_rows(app, submission_id) == 1
