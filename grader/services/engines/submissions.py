"""Engine slots and submissions: an upload's intake (checked, stored with its row, then a
wake-up message) and the staff's reruns. Where a submission stands after that is the workers'
state machine (services/leases/); what a student or the staff may see of it is the read model
(services/engines/results.py).

    queued --a worker's claim--> running --> done / failed (services/leases/)
    queued --a newer upload of the same student and slot--> superseded
    done / failed --a staff rerun--> queued (its old result deleted)

The database row is the truth; a queue message only wakes a worker up. The upload's bytes are a
blob in the database (services/engines/blobs.py).
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from flask import current_app

from grader import data
from grader.extensions import db
from grader.models import (
    ENGINE_KIND,
    QUEUED,
    RUNNING,
    SUPERSEDED,
    Assignment,
    EngineResult,
    Slot,
    Submission,
    User,
    utcnow,
)
from grader.ratelimits import retry_after
from grader.services import Conflict, Invalid, NotFound, RateLimited
from grader.services.courses import deadlines, release, zones
from grader.services.courses.courses import append_slot, check_open, get_slot
from grader.services.courses.staff import Staff, staff_for_assignment, staff_for_slot
from grader.services.engines import blobs, leases, results, uploads, visits
from grader.services.transactions import writing

NORMAL, LOW = 0, -10  # queue priorities: uploads, regrade-all
DEFAULT_SUITE = "quick"


# -- slots ----------------------------------------------------------------------------------


def is_engine_slot(slot: Slot) -> bool:
    return slot.kind == ENGINE_KIND


#: Engine slots, in a query (`sa.select(Slot).where(ENGINE_SLOTS)`).
ENGINE_SLOTS = Slot.kind == ENGINE_KIND


def engine_slot(user: User, assignment_id: int, index: int) -> Slot:
    slot = get_slot(user, assignment_id, index)
    if not is_engine_slot(slot):
        raise NotFound("this exercise takes no engine uploads")
    return slot


@dataclass(frozen=True)
class EngineSlotPage:
    """What a student's engine slot page shows."""

    slot: Slot
    suite: str
    submissions: list[Submission]  # the student's own, newest first
    teaches: bool  # the student is on the course's staff too (the page links the staff view)
    terms: deadlines.Deadline  # the student's own due date
    held_until: dt.datetime | None  # the student's scores here are held until then
    late_cost: deadlines.LateCost | None  # what an upload now costs, when it would be late


def engine_slot_page(user: User, assignment_id: int, index: int) -> EngineSlotPage:
    """A student's engine slot: its suite, their uploads, whether they also teach the course.
    The visit is noted (`visits`): a student on this page may upload soon."""
    slot = engine_slot(user, assignment_id, index)
    visits.note(user, slot)
    terms = deadlines.deadline_for(user.id, slot)
    return EngineSlotPage(
        slot,
        suite_of(slot),
        results.my_submissions(user, slot),
        results.teaches(user, slot),
        terms,
        release.held_work(user.id, release.Standing(user.id, slot.assignment)),
        deadlines.cost_now(user.id, slot, utcnow(), terms),
    )


def suite_of(slot: Slot) -> str:
    """The suite the slot grades with; GRADER_ENGINE_SUITE overrides it (tests, benchmarks)."""
    return current_app.config.get("GRADER_ENGINE_SUITE") or (slot.params or {}).get(
        "suite", DEFAULT_SUITE
    )


@functools.cache
def engine_suites() -> dict[str, str]:
    """The shipped suites an engine slot may grade with, by name, with their descriptions (the
    harness loads here, for the editor's page, not with the app)."""
    from grader.harness import SUITES, load_suite

    return {name: load_suite(name).description for name in SUITES}


def add_engine_slot(
    assignment_id: int,
    *,
    suite: str = DEFAULT_SUITE,
    title: str | None = None,
    user: User | None = None,
) -> Slot:
    """An engine slot at the end of an assignment: the one way they are made, by the editor's
    form (``user``, who must be able to change the course, and a shipped suite) or by the
    operator (None: the CLI and the demo, which may name a suite file on the server)."""
    from grader.harness import SUITES

    if user is not None:
        staff_for_assignment(user, assignment_id, change=True)
        if suite not in SUITES:  # a path on the server is the operator's to give
            raise Invalid(f"suite must be one of {', '.join(SUITES)}", field="suite")
    elif suite not in SUITES and not Path(suite).is_file():
        raise Invalid(f"suite must be one of {', '.join(SUITES)} or a suite file", field="suite")
    title = (title or "").strip() or None
    with writing() as session:
        assignment = session.get(Assignment, assignment_id)
        if assignment is None:
            raise NotFound(f"no assignment {assignment_id}")
        return append_slot(
            session,
            assignment,
            title=title or "Checkers engine",
            kind=ENGINE_KIND,
            params={"suite": suite},
            conventions={},
            attempts_allowed=None,
            practice_allowed=False,
            replay_allowed=True,
        )


# -- uploads --------------------------------------------------------------------------------


# What the upload page offers to read and to start from: name -> (file, download name).
HANDOUTS = {
    "assignment": ("ASSIGNMENT.md", "ASSIGNMENT.md"),
    "rules": ("RULES.md", "RULES.md"),
    "starter": ("template/engine.py", "engine.py"),
}
# How the handouts link to each other (`[RULES.md](RULES.md)`): the file's relative path -> name.
HANDOUT_NAMES = {relative: name for name, (relative, _) in HANDOUTS.items()}
# The handouts read as pages (Markdown); the others (the starter) are files to download.
HANDOUT_PAGES = frozenset(name for name, (_, file) in HANDOUTS.items() if file.endswith(".md"))


def handout(user: User, assignment_id: int, index: int, name: str) -> tuple[Slot, Path, str]:
    """A handout of an engine slot (the assignment text, the rules, the starter engine) for a
    member of its course: the slot, the handout's path and the file name to give it."""
    slot = engine_slot(user, assignment_id, index)
    if name not in HANDOUTS:
        raise NotFound(f"no handout {name!r}")
    relative, download = HANDOUTS[name]
    return slot, data.checkers(relative), download


def _rate() -> tuple[int, int]:
    count, _, seconds = current_app.config["GRADER_UPLOAD_RATE"].partition("/")
    return int(count), int(seconds or 600)


def _rate_refusal(count: int, seconds: int, wait: int) -> RateLimited:
    return RateLimited(
        f"at most {count} uploads in {seconds // 60} minutes, refused ones included; "
        f"try again in {wait} s",
        wait,
    )


def _count_try(user: User) -> None:
    """Every upload, taken or refused, counts against the account's upload rate before any of
    its work (a refused upload stores nothing, so the stored window below cannot see it)."""
    count, seconds = _rate()
    wait = retry_after(f"{count} per {seconds} seconds", "upload", f"account:{user.id}", hit=True)
    if wait:
        raise _rate_refusal(count, seconds, wait)


def _check_rate(session: Any, user: User, now: dt.datetime) -> None:
    count, seconds = _rate()
    since = now - dt.timedelta(seconds=seconds)
    recent = list(
        session.scalars(
            sa.select(Submission.created_at)
            .where(Submission.owner_id == user.id, Submission.created_at > since)
            .order_by(Submission.created_at)
        )
    )
    if len(recent) >= count:
        wait = max(1, int((recent[-count] - since).total_seconds()) + 1)
        raise _rate_refusal(count, seconds, wait)


def _check_open(user: User, slot: Slot, now: dt.datetime) -> None:
    check_open(slot.assignment.course)
    closes = deadlines.closed(user.id, slot, now)  # past their own due date or late window
    if closes is not None:
        zone = slot.assignment.course.timezone
        raise Conflict(f"your due date ({zones.words(closes, zone)}) has passed")


def upload(
    user: User,
    assignment_id: int,
    index: int,
    data: bytes,
    filename: str,
    *,
    tournament: bool = False,
) -> Submission:
    """Check an engine, commit its bytes (a blob) with its submission, then wake a worker.

    A refused upload stores nothing (no blob, no row), but counts against the account's upload
    rate. The row is committed before the queue hears of it; if the queue cannot be reached the
    workers' sweep finds the row anyway.
    """
    slot = engine_slot(user, assignment_id, index)
    now = utcnow()
    _check_open(user, slot, now)
    _check_rate(db.session, user, now)  # before the work; again under the write lock
    _count_try(user)
    checked = uploads.check(data, filename)
    with writing() as session:
        _check_rate(session, user, now)
        late = deadlines.lateness_for(user.id, slot, now)
        blobs.store().put(session, checked.sha256, checked.data)
        session.execute(
            sa.update(Submission)
            .where(
                Submission.owner_id == user.id,
                Submission.slot_id == slot.id,
                Submission.status == QUEUED,
            )
            .values(status=SUPERSEDED, finished_at=now)
        )
        submission = Submission(
            owner_id=user.id,
            slot_id=slot.id,
            sha256=checked.sha256,
            stored_path=checked.relative_path,
            filename=checked.filename or Path(checked.relative_path).name,
            size=len(data),
            suite=suite_of(slot),
            status=QUEUED,
            priority=NORMAL,
            tournament_opt_in=tournament,
            days_late=late.days,
            penalty=late.penalty,
            slip_days=late.slip_days,
            created_at=now,
            progress=None,
        )
        session.add(submission)
    leases.SUBMISSION.wake(submission.id, priority=submission.priority)
    return submission


# -- the staff's side -----------------------------------------------------------------------


def slot_submissions(
    user: User, assignment_id: int, index: int
) -> tuple[Staff, Slot, list[Submission]]:
    as_staff, slot = staff_for_slot(user, assignment_id, index)
    if not is_engine_slot(slot):
        raise NotFound("this exercise takes no engine uploads")
    found = list(
        db.session.scalars(
            sa.select(Submission)
            .where(Submission.slot_id == slot.id)
            .options(sa.orm.joinedload(Submission.owner))
            .order_by(Submission.id.desc())
        )
    )
    return as_staff, slot, found


def _requeue(session: Any, ids: list[int], priority: int) -> None:
    # A rerun starts afresh: its old result goes, its status and attempts are reset.
    session.execute(sa.delete(EngineResult).where(EngineResult.submission_id.in_(ids)))
    session.execute(
        sa.update(Submission)
        .where(Submission.id.in_(ids))
        .values(
            status=QUEUED,
            priority=priority,
            attempts=0,
            lease_owner=None,
            lease_expires_at=None,
            score=None,
            max_score=None,
            error=None,
            progress=None,
            started_at=None,
            finished_at=None,
            enqueued_at=None,
        )
    )


def rerun(user: User, submission_id: int) -> Submission:
    """Grade one submission again (instructors); not while it runs."""
    submission = results.get_submission(user, submission_id)
    staff_for_slot(user, submission.slot.assignment_id, submission.slot.index, change=True)
    with writing() as session:
        status = session.scalar(sa.select(Submission.status).where(Submission.id == submission_id))
        if status == RUNNING:
            raise Conflict("it is being graded now")
        _requeue(session, [submission_id], NORMAL)
    submission.priority = NORMAL
    leases.SUBMISSION.wake(submission.id, priority=submission.priority)
    return submission


def latest_ids(slot_id: int, session: Any = None) -> list[int]:
    """Each student's latest submission of the slot that is not superseded."""
    session = session or db.session
    latest = (
        sa.select(sa.func.max(Submission.id))
        .where(Submission.slot_id == slot_id, Submission.status != SUPERSEDED)
        .group_by(Submission.owner_id)
    )
    return list(session.scalars(latest))


def rerun_all(user: User, assignment_id: int, index: int) -> int:
    """Regrade every student's latest submission at low priority (uploads go first)."""
    _, slot = staff_for_slot(user, assignment_id, index, change=True)
    with writing() as session:
        ids = [
            i
            for i in latest_ids(slot.id, session)
            if session.scalar(sa.select(Submission.status).where(Submission.id == i)) != RUNNING
        ]
        if ids:
            _requeue(session, ids, LOW)
    for submission_id in ids:
        leases.SUBMISSION.wake(submission_id, priority=LOW)
    return len(ids)
