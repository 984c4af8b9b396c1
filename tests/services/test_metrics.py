"""What the queue tells the operator and the student. The operator's figures
(`services/metrics.py`): each class of work's queue read from the leased jobs' rows, the workers'
slots, and grader_desired_workers's rule, which rises when students open an engine slot's page,
before their uploads reach the queue, and holds a rush's peak while it drains. The student's: a
queued upload's estimated wait, and a running upload's first verdict (never while held)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import BULK, INTERACTIVE, db
from grader.models import DONE, QUEUED, RUNNING, ExamPrint, Submission, User, utcnow
from grader.services import liveness, metrics
from tests.app_support import upload_row

STUDENTS = [f"s{n}@example.com" for n in range(12)]


@pytest.fixture
def engine_slot(app: Any, factory: Any) -> dict[str, Any]:
    from grader.services.engines import submissions

    made = factory.classroom()
    for email in STUDENTS:
        factory.user(email)
        factory.member(made["course_id"], email)
    with app.app_context():
        slot = submissions.add_engine_slot(made["assignment_id"], suite="quick")
        return {**made, "slot_id": slot.id, "index": slot.index}


def _submit(
    slot_id: int,
    email: str,
    status: str,
    created: dt.datetime,
    started: dt.datetime | None = None,
    finished: dt.datetime | None = None,
    **fields: Any,
) -> None:
    owner = db.session.query(User).filter_by(email=email).one()
    upload_row(
        owner.id,
        slot_id,
        status=status,
        created_at=created,
        started_at=started,
        finished_at=finished,
        **fields,
    )
    db.session.commit()


def _graded_an_hour_ago(slot_id: int, now: dt.datetime, **fields: Any) -> None:
    """The suite's latest gradings: two uploads done an hour before `now`, graded 20 and 40 s
    (median and mean 30 s)."""
    hour_ago = now - dt.timedelta(hours=1)
    for n, seconds in enumerate((20, 40)):
        _submit(
            slot_id,
            STUDENTS[n],
            DONE,
            hour_ago,
            hour_ago,
            hour_ago + dt.timedelta(seconds=seconds),
            **fields,
        )


# -- the rule, on figures ----------------------------------------------------------------------


def test_the_desired_workers_are_the_greatest_estimate_rounded_up():
    rule = {
        "slots_per_worker": 2.0,
        "headroom": 1.5,
        "uploads_per_visitor": 1.0,
        "upload_seconds": 20.0,
    }
    idle = metrics.desired_workers(ungraded=0, running=0, held_ungraded=0, visitors=0, **rule)
    assert idle.desired == 1  # never none: an upload always finds a worker
    queue = metrics.desired_workers(ungraded=9, running=4, held_ungraded=9, visitors=0, **rule)
    assert (queue.queue, queue.current, queue.desired) == (4.5, 3.0, 5)
    # 120 visitors, an upload each in 10 minutes: 0.2 a second, 20 s each, so 4 grading at once;
    # with headroom 6 slots, 3 workers (Little's law).
    pages = metrics.desired_workers(ungraded=0, running=0, held_ungraded=0, visitors=120, **rule)
    assert (pages.pages, pages.desired) == (3.0, 3)  # exactly 3: not rounded up to 4
    held = metrics.desired_workers(ungraded=1, running=1, held_ungraded=30, visitors=0, **rule)
    assert (held.held, held.desired) == (15.0, 15)


def test_the_peak_counts_spans_open_at_once_and_an_end_before_a_start():
    t = dt.datetime(2026, 12, 4, 23, 0)
    minute = dt.timedelta(minutes=1)
    spans: list[tuple[dt.datetime, dt.datetime | None]] = [
        (t, t + 2 * minute),
        (t + minute, t + 3 * minute),
        (t + 2 * minute, None),  # starts as the first ends: two at once, not three
        (t + 5 * minute, t + 6 * minute),
    ]
    assert metrics.peak_overlap(spans, t + 10 * minute) == 2
    assert metrics.peak_overlap([], t) == 0


# -- read from the rows ------------------------------------------------------------------------


def test_the_queues_workers_and_grading_times_come_from_the_rows(app, engine_slot):
    now = utcnow()
    with app.app_context():
        slot = engine_slot["slot_id"]
        _submit(slot, STUDENTS[0], QUEUED, now - dt.timedelta(seconds=40))
        _submit(slot, STUDENTS[1], QUEUED, now - dt.timedelta(seconds=5))
        _submit(slot, STUDENTS[2], RUNNING, now - dt.timedelta(seconds=90), now)
        for n, seconds in enumerate((12, 25, 70)):
            start = now - dt.timedelta(hours=1)
            end = start + dt.timedelta(seconds=seconds)
            _submit(slot, STUDENTS[3 + n], DONE, start, start, end)
        teacher = db.session.query(User).filter_by(email="teacher@example.com").one()
        db.session.add(
            ExamPrint(
                assignment_id=engine_slot["assignment_id"],
                requested_by_id=teacher.id,
                status=QUEUED,
                created_at=now - dt.timedelta(minutes=3),
            )
        )
        db.session.commit()
        liveness.beat("box:1", "box", slots=2)
        liveness.beat("box:2", "box", slots=0)  # bulk work only

        shot = metrics.snapshot(now)

    queues = {queue.work_class: queue for queue in shot.queues}
    assert (queues[INTERACTIVE].queued, queues[INTERACTIVE].running) == (2, 1)
    assert queues[INTERACTIVE].oldest_seconds == pytest.approx(40, abs=1)
    assert (queues[BULK].queued, queues[BULK].running) == (1, 0)
    assert queues[BULK].oldest_seconds == pytest.approx(180, abs=1)
    assert (shot.workers, shot.slots) == (2, 2)
    assert sorted(shot.grading_seconds["quick"]) == [12, 25, 70]
    # 3 ungraded on the one grading worker's 2 slots: 1.5, so 2 workers.
    assert shot.estimates.queue == 1.5 and shot.estimates.desired == 2


def test_desired_workers_rise_when_students_open_the_page_before_any_upload(
    app, client, auth, engine_slot
):
    with app.app_context():
        liveness.beat("box:1", "box", slots=2)
        before = metrics.snapshot()
    assert before.estimates.desired == 1 and before.visitors == 0

    page = f"/assignments/{engine_slot['assignment_id']}/slots/{engine_slot['index']}/engine"
    for email in STUDENTS:
        auth.login(email)
        assert client.get(page).status_code == 200
        client.get(page)  # a reload within the minute writes nothing more
        auth.logout()
    app.config["GRADER_SCALE_UPLOADS_PER_VISITOR"] = 5

    with app.app_context():
        after = metrics.snapshot()
    assert after.visitors == len(STUDENTS)
    assert sum(queue.queued + queue.running for queue in after.queues) == 0  # nothing queued yet
    # 12 visitors x 5 uploads in 600 s, 30 s each (none measured yet), x 1.5, on 2 slots.
    assert after.estimates.pages == pytest.approx(2.25) and after.estimates.desired == 3


def test_a_drained_rush_keeps_its_peak_for_the_hold_then_lets_it_go(app, engine_slot):
    now = utcnow()
    with app.app_context():
        liveness.beat("box:1", "box", slots=2)
        for n, email in enumerate(STUDENTS[:8]):  # 8 uploads at once, all graded by now
            start = now - dt.timedelta(minutes=6)
            end = start + dt.timedelta(minutes=1, seconds=n)
            _submit(engine_slot["slot_id"], email, DONE, start, start, end)

        held = metrics.snapshot(now)
        app.config["GRADER_SCALE_HOLD_MINUTES"] = 3  # the rush ended 4-5 minutes ago
        released = metrics.snapshot(now)

    assert sum(queue.queued for queue in held.queues) == 0
    assert (held.estimates.held, held.estimates.desired) == (4.0, 4)
    assert (released.estimates.held, released.estimates.desired) == (0.0, 1)


# -- a queued upload's estimated wait ----------------------------------------------------------


def test_the_wait_takes_the_slot_that_frees_first():
    from grader.services.engines import waiting

    # Two slots, busy 8 s and 2 s more. Three jobs of 10 s go first.
    assert waiting.start_after([10.0] * 3, [8.0, 2.0], 2) == 18.0
    assert waiting.start_after([], [7.0], 2) == 0.0  # a slot is idle
    assert waiting.start_after([], [], 0) == 0.0  # no worker seen: taken for one slot
    assert waiting.start_after([10.0, 10.0], [], 1) == 20.0
    assert waiting.start_after([1.0, 30.0, 1.0], [], 2) == 2.0  # short first runs, a long rest


def test_the_api_gives_the_estimate_from_the_suites_grading_times(
    app, client, factory, engine_slot
):
    now = utcnow()
    with app.app_context():
        slot = engine_slot["slot_id"]
        _graded_an_hour_ago(slot, now)  # the suite's mean: 30 s
        _submit(
            slot,
            STUDENTS[2],
            RUNNING,
            now - dt.timedelta(seconds=60),
            now - dt.timedelta(seconds=10),
        )
        _submit(slot, STUDENTS[3], QUEUED, now - dt.timedelta(seconds=30))
        _submit(slot, "student@example.com", QUEUED, now - dt.timedelta(seconds=5))
        liveness.beat("box:1", "box", slots=1)
        mine = (
            db.session.query(Submission)
            .filter_by(status=QUEUED)
            .order_by(Submission.id.desc())
            .first()
        )
        mine_id = mine.id

    token = factory.token("student@example.com")
    body = client.get(
        f"/api/engines/{mine_id}", headers={"Authorization": f"Bearer {token}"}
    ).get_json()
    assert body["queue_position"] == 1
    # The running one frees its slot in about 20 s, the one ahead takes 30 s, then this one 30 s.
    assert body["estimated_seconds"] == pytest.approx(80, abs=2)


def test_the_estimate_takes_the_median_of_the_latest_gradings(app, engine_slot):
    # A worker's first grading fills its reference cache (bench.deadline --machines: 110 s
    # where the others took 25): the median keeps it from stretching every estimate after it,
    # and only the latest RECENT_GRADINGS count, so the machines' speed now is what is used.
    from grader.services.engines import waiting

    start = utcnow() - dt.timedelta(hours=1)
    with app.app_context():
        slot = engine_slot["slot_id"]
        times = [200, 200, 110, 25, 26, 24, 25, 27, 25, 23, 30, 25]  # oldest first
        assert len(times) == waiting.RECENT_GRADINGS + 2
        for n, seconds in enumerate(times):
            began = start + dt.timedelta(minutes=4 * n)
            _submit(slot, STUDENTS[n], DONE, began, began, began + dt.timedelta(seconds=seconds))
        assert waiting.typical_grading_seconds("quick") == 25.0  # the mean: 35.0
        assert waiting.typical_grading_seconds("full") is None


# -- the first verdict in the API --------------------------------------------------------------

FIRST = {
    "score": 7.0,
    "max_score": 7.0,
    "tests": 24,
    "failed": 0,
    "parts": ["Move generation", "Perft", "Search"],
    "running": ["Timing", "Games"],
}


def test_the_api_gives_the_first_verdict_while_running_and_never_while_held(
    app, client, factory, engine_slot
):
    from grader.models import Assignment

    now = utcnow()
    with app.app_context():
        _submit(engine_slot["slot_id"], "student@example.com", RUNNING, now, now)
        row = db.session.query(Submission).one()
        row.progress = {"tests_done": 24, "tests_total": 40, "first_verdict": FIRST}
        db.session.commit()
        upload_id = row.id
    student = {"Authorization": f"Bearer {factory.token('student@example.com')}"}
    teacher = {"Authorization": f"Bearer {factory.token('teacher@example.com')}"}

    body = client.get(f"/api/engines/{upload_id}", headers=student).get_json()
    assert body["first_verdict"] == FIRST and "first_verdict" not in body["progress"]
    assert body["score"] is None  # the final score is not there yet

    with app.app_context():
        assignment = db.session.get(Assignment, engine_slot["assignment_id"])
        assignment.hold_scores = True
        assignment.scores_release_at = now + dt.timedelta(days=3)
        db.session.commit()
    held = client.get(f"/api/engines/{upload_id}", headers=student).get_json()
    assert held["first_verdict"] is None and "first_verdict" not in held["progress"]
    staff = client.get(f"/api/engines/{upload_id}", headers=teacher).get_json()
    assert staff["first_verdict"] == FIRST  # staff see every result at once

    with app.app_context():
        row = db.session.get(Submission, upload_id)
        row.status, row.finished_at = DONE, utcnow()
        db.session.commit()
    done = client.get(f"/api/engines/{upload_id}", headers=teacher).get_json()
    assert done["first_verdict"] is None  # the whole result replaces it


def _rest(phase: str) -> dict[str, Any]:
    """A rest's progress in `phase`: what leases.queue_rest carries (the first run's results)."""
    return {"phase": phase, "rest": {"first_verdict": FIRST, "first_seconds": 4.0, "kept": {}}}


def _phases() -> list[str]:
    """Every phase a rest can wear while queued: waiting for it, and put back by the sweep
    (its worker stopped) or by a failed run."""
    from grader.services.engines.leases import REST_PHASE
    from grader.services.leases import REQUEUED, RETRYING

    return [REST_PHASE, REQUEUED, RETRYING]


@pytest.mark.parametrize("queued_phase", _phases())
def test_the_estimate_counts_each_upload_ahead_at_what_it_has_left(app, engine_slot, queued_phase):
    """Graded in two runs (leases.queue_rest): an upload waiting for its first run has both
    runs left, one waiting for its rest (one step below its priority) the rest alone, whatever
    its phase says; each counts at its upload's priority, so an older upload's rest is ahead
    of a newer upload."""
    from grader.services.engines import waiting
    from grader.services.engines.leases import REST_RUNNING

    now = utcnow()
    with app.app_context():
        slot = engine_slot["slot_id"]
        # the last runs: median 30 s; first runs 4 s
        _graded_an_hour_ago(slot, now, progress={"phase": "done", "first_seconds": 4.0})
        assert waiting.typical_first_seconds("quick") == 4.0
        # Running: a rest 10 s in (20 s left); queued: an older upload's rest (30 s), then an
        # upload waiting for its first run (4 + 30 s), then this one.
        _submit(
            slot,
            STUDENTS[2],
            RUNNING,
            now - dt.timedelta(seconds=60),
            now - dt.timedelta(seconds=10),
            progress=_rest(REST_RUNNING),
        )
        _submit(
            slot,
            STUDENTS[3],
            QUEUED,
            now - dt.timedelta(seconds=40),
            priority=-1,
            progress=_rest(queued_phase),
        )
        _submit(slot, STUDENTS[4], QUEUED, now - dt.timedelta(seconds=30))
        _submit(slot, "student@example.com", QUEUED, now - dt.timedelta(seconds=5))
        liveness.beat("box:1", "box", slots=1)
        mine = db.session.scalars(
            sa.select(Submission).where(Submission.status == QUEUED).order_by(Submission.id)
        ).all()
        assert [waiting.queue_position(row) for row in mine] == [2, 0, 1]  # its next run's place
        # This one: 20 + 30 + 34 s before it, then its own 4 + 30 s.
        assert waiting.estimated_wait(mine[2]) == pytest.approx(118, abs=2)
        # The older rest: after the running rest, then its own 30 s.
        assert waiting.estimated_wait(mine[0]) == pytest.approx(50, abs=2)


def test_an_upload_claimed_after_it_was_read_has_no_estimate(app, engine_slot):
    """The upload's page (and the upload's own answer) read the row, then ask for its estimate;
    a worker may claim it in between, on another connection. The estimate then reads it as
    running, as every row it counts, and gives none rather than failing the request."""
    from grader.services.engines import waiting

    now = utcnow()
    with app.app_context():
        slot = engine_slot["slot_id"]
        _graded_an_hour_ago(slot, now)
        _submit(slot, "student@example.com", QUEUED, now - dt.timedelta(seconds=5))
        mine = db.session.scalars(sa.select(Submission).filter_by(status=QUEUED)).one()
        assert mine.status == QUEUED and waiting.estimated_wait(mine) == pytest.approx(30, abs=2)
        with db.engine.begin() as worker:  # the worker's claim, not seen by the copy in hand
            worker.execute(
                sa.update(Submission)
                .where(Submission.id == mine.id)
                .values(status=RUNNING, started_at=now)
            )
        # The caller's copy, as it was read; the estimate's reads come after the claim (on
        # PostgreSQL each statement sees what is committed, as SQLite's next transaction does).
        db.session.expunge(mine)
        db.session.rollback()
        assert mine.status == QUEUED
        assert waiting.estimated_wait(mine) is None
