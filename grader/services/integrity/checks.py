"""Who sees the integrity checks, and a check's life as a queue job.

Only the course's instructors see them, and its TAs when the course allows it
(`Course.integrity_ta`); only instructors start one or change that setting. A student never
reaches any of it: nothing here is about the student who asks.

A check is a row (`IntegrityCheck`) and a queue message that only wakes a worker up, under the
same lease as the other jobs (services/leases/), run by their one runner (`CheckJob`):

    queued --a worker's claim--> running --> done (its result) / failed (the error)
       ^                            |
       +------lease expired---------+  (the worker's sweep)

Asking again while a check of the same thing is queued or running gives that check back; a
course runs one check at a time, so asking for another meanwhile is refused, naming it.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

import sqlalchemy as sa

from grader.extensions import INTEGRITY, db
from grader.models import (
    DONE,
    ENGINES_CHECK,
    INSTRUCTOR,
    QUEUED,
    RUNNING,
    Assignment,
    Course,
    IntegrityCheck,
    Slot,
    User,
)
from grader.services import Conflict, Forbidden, leases
from grader.services.courses import zones
from grader.services.courses.staff import Staff, staff
from grader.services.leases.runner import JobKind, Progress
from grader.services.transactions import writing

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 2  # claims of one check before it fails (a worker that died on it twice)
PRIORITY = -20  # after uploads (0) and regrades (-10): a check waits, a student does not


def integrity_staff(user: User, course_id: int, *, change: bool = False) -> Staff:
    """The course's staff who may see its integrity checks: instructors, and TAs where the
    course lets them; `change` (starting a check, the setting) is the instructors' alone."""
    who = staff(user, course_id, change=change)
    if who.role != INSTRUCTOR and not who.course.integrity_ta:
        raise Forbidden(
            "only the course's instructors see the academic-integrity checks "
            "(an instructor may let the course's TAs read them)"
        )
    return who


def set_ta_access(user: User, course_id: int, allowed: bool) -> Course:
    """Let the course's TAs read the integrity pages, or not (instructors only)."""
    integrity_staff(user, course_id, change=True)
    with writing() as session:
        course = session.get_one(Course, course_id)
        course.integrity_ta = allowed
    return course


def latest(kind: str, assignment_id: int, slot_id: int | None) -> IntegrityCheck | None:
    """The last check of this kind asked for the assignment (and slot)."""
    return db.session.scalar(
        sa.select(IntegrityCheck)
        .where(
            IntegrityCheck.kind == kind,
            IntegrityCheck.assignment_id == assignment_id,
            IntegrityCheck.slot_id.is_(None)
            if slot_id is None
            else IntegrityCheck.slot_id == slot_id,
        )
        .order_by(IntegrityCheck.id.desc())
        .limit(1)
    )


def request(
    kind: str,
    assignment_id: int,
    slot_id: int | None,
    params: dict[str, Any],
    by: User | None,
    *,
    wake: bool = True,
) -> IntegrityCheck:
    """A new check (queued; a worker is woken unless `wake` is False: the command line runs it
    itself), or the one of the same kind and target still queued or running. A course runs one
    check at a time: asking for another while one is queued or running is refused (Conflict),
    naming it, and stores and queues nothing."""
    with writing() as session:
        course_id = session.scalar(
            sa.select(Assignment.course_id).where(Assignment.id == assignment_id)
        )
        # One request of a course at a time from here to the commit (SQLite's write lock is
        # the whole database's already), so two cannot both find the course free.
        session.execute(sa.select(Course.id).where(Course.id == course_id).with_for_update())
        pending = latest(kind, assignment_id, slot_id)
        if pending is not None and pending.status in (QUEUED, RUNNING):
            return pending
        other = pending_in_course(course_id)
        if other is not None:
            raise Conflict(
                f"{what(other)} is still {other.status} (asked for at "
                f"{zones.words(other.created_at, _zone_of(course_id))}): a course runs one "
                "integrity check "
                "at a time, so ask again once it has finished"
            )
        check = IntegrityCheck(
            kind=kind,
            assignment_id=assignment_id,
            slot_id=slot_id,
            params=params,
            requested_by_id=by.id if by is not None else None,
            status=QUEUED,
            progress={"phase": "queued"},
        )
        session.add(check)
    if wake:
        CheckJob().wake(check.id)
    return check


def pending_in_course(course_id: int | None) -> IntegrityCheck | None:
    """The course's check queued or running, if any (the oldest)."""
    return db.session.scalar(
        sa.select(IntegrityCheck)
        .join(Assignment, Assignment.id == IntegrityCheck.assignment_id)
        .where(Assignment.course_id == course_id, IntegrityCheck.status.in_([QUEUED, RUNNING]))
        .order_by(IntegrityCheck.id)
        .limit(1)
    )


def what(check: IntegrityCheck) -> str:
    """A check in words: its number, kind and target."""
    assignment = db.session.get_one(Assignment, check.assignment_id)
    if check.kind == ENGINES_CHECK:
        slot = db.session.get(Slot, check.slot_id) if check.slot_id is not None else None
        where = f"exercise {slot.index + 1} of " if slot is not None else ""
        return f"similarity check {check.id} of {where}“{assignment.title}”"
    return f"answers check {check.id} of “{assignment.title}”"


def claim(check_id: int, worker: str) -> IntegrityCheck | None:
    """queued -> running under this worker's lease; None when another has it or it is over."""
    with writing() as session:
        if not leases.claim_phased(session, IntegrityCheck, check_id, worker):
            return None
        return session.get_one(IntegrityCheck, check_id)


def finish(check_id: int, worker: str, result: dict[str, Any]) -> bool:
    with writing() as session:
        return leases.finish_phased(session, IntegrityCheck, check_id, worker, result=result)


def fail(check_id: int, worker: str, message: str) -> str | None:
    """Back to the queue while claims are left, else failed; the new status (None: the lease
    was lost already)."""
    error = f"the check stopped on an error of the grader: {message[:2000]}"
    return leases.give_back_phased(IntegrityCheck, check_id, worker, MAX_ATTEMPTS, error)


class CheckJob(JobKind[IntegrityCheck, dict[str, Any]]):
    """A check as a leased job: its result computed by its kind (the package's `CHECK`
    declares how), its progress on the page."""

    job, noun, model = INTEGRITY, "integrity check", IntegrityCheck
    priority = PRIORITY
    first_phase = "starting"

    def claim(self, job_id: int, worker: str) -> IntegrityCheck | None:
        return claim(job_id, worker)

    def run(self, claimed: IntegrityCheck, progress: Progress) -> dict[str, Any]:
        raise NotImplementedError  # the package's `CHECK`: by the check's kind

    def give_back(self, job_id: int, worker: str, message: str) -> str | None:
        return fail(job_id, worker, message)

    def record(self, job_id: int, worker: str, result: dict[str, Any]) -> bool:
        return finish(job_id, worker, result)


def sweep(now: dt.datetime | None = None) -> list[int]:
    """Checks whose worker died back to the queue (failed after MAX_ATTEMPTS); queued ones
    with no recent wake-up message: their ids, to wake."""
    stopped = f"the worker stopped {MAX_ATTEMPTS} times on this check"
    return leases.sweep_phased(IntegrityCheck, MAX_ATTEMPTS, stopped, now)


def status(check: IntegrityCheck | None) -> dict[str, Any]:
    """What the page polls: the status, the progress, and whether the result is there."""
    if check is None:
        return {"status": None, "progress": None, "done": False}
    return {
        "id": check.id,
        "status": check.status,
        "progress": check.progress,
        "done": check.status == DONE,
        "error": check.error,
    }


def _zone_of(course_id: int | None) -> str:
    course = db.session.get(Course, course_id) if course_id is not None else None
    return course.timezone if course is not None else "UTC"
