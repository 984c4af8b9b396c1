"""A timing deferred on a busy machine, then timed again (issue 51): the upload goes back to
the queue at low priority with no score and nothing for the LMS, its page and the API say why
and give the first verdict; the retime runs only the timing tests, keeps every other result,
writes the score once, and only that final score is sent to the LMS.

The worker's job runs in the test's process (`grade_submission_job`, the queue's own body), so
each step is taken when the test says. "Busy" is the worker's own setting: a share of a core
no run reaches (2.0) makes every timing busy, one no run falls below (a millionth) none
(tests/harness/test_contention.py shows a real busy machine deferring)."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa

from grader import jobs
from grader.extensions import GRADE, db
from grader.jobs import grade_submission_job
from grader.models import DONE, QUEUED, EngineResult, LtiPassback, Submission, utcnow
from grader.services.engines.leases import MAX_DEFERRALS, RETIME_PRIORITY, sweep_submissions
from tests.harness._helpers import ALWAYS_BUSY, NEVER_BUSY
from tests.jobs.engine_support import SMALL, add_student, engine_bytes
from tests.jobs.test_lti_passback import lms, sent_to_the_lms  # noqa: F401  (the fixture)

pytestmark = pytest.mark.slow


def _count(model) -> int:
    return db.session.scalar(sa.select(sa.func.count()).select_from(model))


def _first_run(upload_id: int) -> None:
    """The upload's first run: its correctness tests, the rest queued behind
    (tests/jobs/test_first_verdict_first.py)."""
    assert grade_submission_job(upload_id, "worker-first") == "done"
    assert db.session.get(Submission, upload_id).status == QUEUED
    db.session.remove()


def test_a_deferred_timing_is_timed_again_and_only_the_final_score_reaches_the_lms(
    app,
    client,
    room,
    upload,
    lms,  # noqa: F811
) -> None:
    app.config["GRADER_ENGINE_SUITE"] = str(SMALL)
    upload_id = upload(engine_bytes("correct")).get_json()["id"]

    app.config["GRADER_TIMING_BUSY_SHARE"] = ALWAYS_BUSY
    with app.app_context():
        _first_run(upload_id)
        assert grade_submission_job(upload_id, "worker-1") == "done"
        row = db.session.get(Submission, upload_id)
        assert (row.status, row.priority, row.score, row.attempts) == (
            QUEUED,
            RETIME_PRIORITY,
            None,
            0,
        )
        assert _count(EngineResult) == 0 and _count(LtiPassback) == 0  # nothing to send
        kept = {t["name"]: t for t in row.progress["deferred"]["kept"]["tests"]}
        db.session.remove()
    assert all(test["kind"] != "timing" for test in kept.values())
    assert {test["kind"] for test in kept.values()} == {"movegen", "search", "play"}

    body = client.get(f"/api/engines/{upload_id}", headers=room.student).get_json()
    assert body["status"] == "queued" and body["score"] is None
    deferred = body["timing_deferred"]
    assert deferred["deferrals"] == 1
    assert deferred["words"].startswith("Timing deferred: the machine was busy (the reference got")
    assert deferred["words"].endswith("it will be timed again, and the score comes then")
    assert body["first_verdict"]["running"] == ["Timing"]
    assert body["first_verdict"]["score"] == sum(t["score"] for t in kept.values())
    assert "deferred" not in body["progress"]  # the kept results stay the server's

    app.config["GRADER_TIMING_BUSY_SHARE"] = NEVER_BUSY  # later, timed whatever the machine
    with app.app_context():
        assert grade_submission_job(upload_id, "worker-2") == "done"
        row = db.session.get(Submission, upload_id)
        assert row.status == DONE and row.score == row.max_score == 10.0
        result = db.session.scalar(sa.select(EngineResult))
        tests = {t["name"]: t for t in result.rich["tests"]}
        assert _count(LtiPassback) == 1  # marked once, with the final score
        db.session.remove()
    for name, test in kept.items():  # not run again: the first run's measurements
        assert (tests[name]["cpu"], tests[name]["output"]) == (
            round(test["cpu"], 4),
            test["output"],
        )
    (timing,) = [t for t in tests.values() if t["kind"] == "timing"]
    assert timing["score"] == 2.0 and timing["output"].startswith("full timing credit")
    assert timing["output"].endswith(  # NEVER_BUSY: this worker judges no machine busy
        "Its timing was deferred once for a busy machine; this run timed it, the machine no "
        "longer busy."
    )
    body = client.get(f"/api/engines/{upload_id}", headers=room.student).get_json()
    assert body["timing_deferred"] is None and body["first_verdict"] is None

    scores = sent_to_the_lms(app, lms)
    assert len(scores) == 1 and scores[0]["scoreGiven"] == pytest.approx(1.0)


def test_a_timing_deferred_as_often_as_allowed_is_timed_anyway(app, room, upload) -> None:
    app.config["GRADER_ENGINE_SUITE"] = str(SMALL)
    upload_id = upload(engine_bytes("correct")).get_json()["id"]
    app.config["GRADER_TIMING_BUSY_SHARE"] = ALWAYS_BUSY  # busy on every try
    with app.app_context():
        _first_run(upload_id)
        for deferral in range(1, MAX_DEFERRALS + 1):
            assert grade_submission_job(upload_id, f"worker-{deferral}") == "done"
            row = db.session.get(Submission, upload_id)
            assert row.status == QUEUED and row.progress["deferred"]["deferrals"] == deferral
            db.session.remove()
        assert grade_submission_job(upload_id, "worker-last") == "done"
        row = db.session.get(Submission, upload_id)
        assert row.status == DONE and row.score is not None
        result = db.session.scalar(sa.select(EngineResult))
        (timing,) = [t for t in result.rich["tests"] if t["kind"] == "timing"]
        db.session.remove()
    assert timing["output"].endswith(  # ALWAYS_BUSY: still busy, and timed all the same
        f"Its timing was deferred {MAX_DEFERRALS} times for a busy machine; this run timed it "
        "anyway, the machine still busy."
    )


def _woken(app) -> list[tuple[int, ...]]:
    """The uploads the grading queue holds a wake-up message for (taken off the queue)."""
    huey = jobs.queue(app, jobs.queue_of(app, GRADE))
    return [m.args for m in (huey.dequeue() for _ in range(huey.pending_count()))]


@pytest.mark.parametrize("others", [0, 1])
def test_a_timing_deferred_while_uploads_wait_is_timed_again_behind_them(
    app, factory, room, upload, others
) -> None:
    """At a deadline, what makes the machine busy is the queue's own first runs: a deferral is
    woken at once, at the lowest priority, so a worker times it again as soon as the uploads
    waiting before it are graded. With none waiting, the sweep wakes it later."""
    app.config["GRADER_ENGINE_SUITE"] = str(SMALL)
    upload_id = upload(engine_bytes("correct")).get_json()["id"]
    with app.app_context():
        _first_run(upload_id)
    waiting = [
        upload(engine_bytes("correct"), headers=add_student(factory, room, f"s{n}@example.com"))
        for n in range(others)
    ]
    _woken(app)  # the uploads' and the rest's messages, sent before the deferral
    app.config["GRADER_TIMING_BUSY_SHARE"] = ALWAYS_BUSY
    with app.app_context():
        assert grade_submission_job(upload_id, "worker-1") == "done"
        row = db.session.get(Submission, upload_id)
        assert (row.status, row.priority) == (QUEUED, RETIME_PRIORITY)
        db.session.remove()
    assert _woken(app) == ([(upload_id,)] if waiting else [])


def test_a_timing_deferred_with_no_upload_waiting_is_woken_soon_then_ever_later(
    app, room, upload
) -> None:
    """With none waiting, the machine was busy from outside the queue: the sweep wakes the
    deferral after GRADER_RETIME_SECONDS, doubled at each deferral, at most
    GRADER_REWAKE_SECONDS; not before, so a machine busy for long is not timed on at once."""
    app.config.update(
        GRADER_ENGINE_SUITE=str(SMALL),
        GRADER_RETIME_SECONDS=15.0,
        GRADER_REWAKE_SECONDS=45.0,
        GRADER_TIMING_BUSY_SHARE=ALWAYS_BUSY,
    )
    upload_id = upload(engine_bytes("correct")).get_json()["id"]
    with app.app_context():
        _first_run(upload_id)
    for deferral, wait in ((1, 15.0), (2, 30.0), (3, 45.0)):
        with app.app_context():
            began = utcnow()
            assert grade_submission_job(upload_id, f"worker-{deferral}") == "done"
            ended = utcnow()
            row = db.session.get(Submission, upload_id)
            assert row.progress["deferred"]["deferrals"] == deferral
            db.session.remove()
            assert sweep_submissions(began + dt.timedelta(seconds=wait - 1)) == []
            db.session.remove()
            woken = sweep_submissions(ended + dt.timedelta(seconds=wait + 1))
            assert woken == [(upload_id, RETIME_PRIORITY)]
            db.session.remove()
