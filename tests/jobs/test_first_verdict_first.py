"""The first verdict first (issue 51): an upload's first run grades its correctness tests alone
and goes back to the queue one step below its priority, so every upload's first verdict comes
before any upload's timing and games; the run that grades the rest keeps those results, writes
the score once, and only that final score is sent to the LMS.

The worker's job runs in the test's process (`grade_submission_job`, the queue's own body), so
each step is taken when the test says."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.jobs import grade_submission_job
from grader.models import DONE, QUEUED, EngineResult, LtiPassback, Submission
from grader.models.base import utcnow
from grader.services.engines.leases import (
    MAX_ATTEMPTS,
    REST_PHASE,
    claim_submission,
    submission_error,
    sweep_submissions,
)
from grader.services.engines.submissions import NORMAL
from grader.services.transactions import writing
from tests.jobs.engine_support import SMALL, add_student, engine_bytes
from tests.jobs.test_lti_passback import lms, sent_to_the_lms  # noqa: F401  (the fixture)

pytestmark = pytest.mark.slow

CORRECTNESS = {"movegen", "search"}  # the small suite's leading tests


def _count(model) -> int:
    return db.session.scalar(sa.select(sa.func.count()).select_from(model))


def test_the_first_run_gives_the_first_verdict_and_the_rest_waits_behind_new_uploads(
    app,
    client,
    factory,
    room,
    upload,
    lms,  # noqa: F811
) -> None:
    app.config["GRADER_ENGINE_SUITE"] = str(SMALL)
    upload_id = upload(engine_bytes("correct")).get_json()["id"]

    with app.app_context():
        assert grade_submission_job(upload_id, "worker-1") == "done"
        row = db.session.get(Submission, upload_id)
        assert (row.status, row.priority, row.score, row.attempts) == (QUEUED, NORMAL - 1, None, 0)
        assert row.progress["phase"] == REST_PHASE
        assert _count(EngineResult) == 0 and _count(LtiPassback) == 0  # nothing to send yet
        kept = {t["name"]: t for t in row.progress["rest"]["kept"]["tests"]}
        db.session.remove()
    assert {test["kind"] for test in kept.values()} == CORRECTNESS

    body = client.get(f"/api/engines/{upload_id}", headers=room.student).get_json()
    assert body["status"] == "queued" and body["score"] is None
    assert body["timing_deferred"] is None  # the rest is no deferral
    first = body["first_verdict"]
    assert first["parts"] == ["Move generation", "Search"]
    assert first["running"] == ["Timing", "Games"]
    assert first["score"] == first["max_score"] == sum(t["score"] for t in kept.values())
    assert "rest" not in body["progress"]  # the kept results stay the server's

    # A later upload's first run goes before this rest: it is ahead in the queue.
    other = add_student(factory, room, "second@example.com")
    later = upload(engine_bytes("correct"), headers=other).get_json()["id"]
    body = client.get(f"/api/engines/{upload_id}", headers=room.student).get_json()
    assert body["queue_position"] == 1
    assert client.get(f"/api/engines/{later}", headers=other).get_json()["queue_position"] == 0

    with app.app_context():
        assert grade_submission_job(upload_id, "worker-2") == "done"
        row = db.session.get(Submission, upload_id)
        assert row.status == DONE and row.score == row.max_score
        result = db.session.scalar(
            sa.select(EngineResult).where(EngineResult.submission_id == upload_id)
        )
        tests = {t["name"]: t for t in result.rich["tests"]}
        assert _count(LtiPassback) == 1  # marked once, with the final score
        db.session.remove()
    assert {t["kind"] for t in tests.values()} == CORRECTNESS | {"timing", "play"}
    for name, test in kept.items():  # not run again: the first run's measurements
        assert tests[name]["cpu"] == round(test["cpu"], 4)
    assert not any("deferred" in t["output"] for t in tests.values())
    body = client.get(f"/api/engines/{upload_id}", headers=room.student).get_json()
    assert body["first_verdict"] is None and body["score"] == row.score

    scores = sent_to_the_lms(app, lms)
    assert len(scores) == 1 and scores[0]["scoreGiven"] == pytest.approx(1.0)


def test_an_engine_that_does_not_start_is_graded_in_one_run(app, room, upload) -> None:
    app.config["GRADER_ENGINE_SUITE"] = str(SMALL)
    upload_id = upload(engine_bytes("crash_at_import")).get_json()["id"]
    with app.app_context():
        assert grade_submission_job(upload_id, "worker-1") == "done"
        row = db.session.get(Submission, upload_id)
        assert row.status == DONE and row.score == 0
        db.session.remove()


@pytest.mark.parametrize("stop", ["worker stopped", "grader failed"])
def test_a_rest_given_back_goes_on_from_the_first_run(app, room, upload, stop) -> None:
    """A rest whose worker stopped (the sweep) or whose run failed in the grader (given back)
    is queued again with the first run's results: the next claim grades the rest from them, and
    its claims count on, so a rest that keeps failing ends failed rather than starting over."""
    app.config["GRADER_ENGINE_SUITE"] = str(SMALL)
    upload_id = upload(engine_bytes("correct")).get_json()["id"]
    with app.app_context():
        assert grade_submission_job(upload_id, "worker-1") == "done"
        rest = db.session.get(Submission, upload_id).progress["rest"]
        db.session.remove()
        for claims in range(1, MAX_ATTEMPTS):
            claimed = claim_submission(upload_id, f"worker-{claims}")
            assert claimed is not None and claimed.rest == rest and claimed.attempts == claims
            if stop == "worker stopped":
                with writing() as session:  # its lease runs out
                    session.execute(
                        sa.update(Submission)
                        .where(Submission.id == upload_id)
                        .values(lease_expires_at=utcnow() - dt.timedelta(seconds=1))
                    )
                sweep_submissions()
            else:
                assert submission_error(upload_id, f"worker-{claims}", "boom") == QUEUED
            row = db.session.get(Submission, upload_id)
            assert row.status == QUEUED and row.progress["rest"] == rest
            assert row.progress["first_verdict"] == rest["first_verdict"]  # still on the page
            db.session.remove()
        assert grade_submission_job(upload_id, "worker-last") == "done"
        row = db.session.get(Submission, upload_id)
        assert row.status == DONE and row.attempts == MAX_ATTEMPTS
        result = db.session.scalar(sa.select(EngineResult.rich))
        db.session.remove()
    graded = {t["name"]: t for t in result["tests"]}
    for test in rest["kept"]["tests"]:  # not graded again
        assert graded[test["name"]]["cpu"] == round(test["cpu"], 4)
