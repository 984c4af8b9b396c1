"""A term regraded with a diff, a choice and a record (issue 54): asking for it and the job.

The staff ask for a regrade of a slot, an assignment or a course (`start`). A worker computes it
at low priority as a leased job (`TERM_REGRADE`, run by services/leases/runner.py) into a
preview (`regrade_preview`), applying nothing; the staff then choose (`regrade_choice`).
A course has one regrade queued or running at a time.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from grader.extensions import TERM_REGRADE as TERM_REGRADE_JOB
from grader.extensions import db
from grader.models import (
    QUEUED,
    RUNNING,
    Assignment,
    Course,
    Slot,
    TermRegrade,
    User,
)
from grader.services import NotFound, leases
from grader.services.courses.staff import staff, staff_for_assignment, staff_for_slot
from grader.services.engines.submissions import LOW
from grader.services.leases.runner import JobKind, Progress
from grader.services.teaching.regrade_preview import preview, slot_words
from grader.services.transactions import writing

MAX_ATTEMPTS = 2  # claims of one regrade before it fails


# -- asking --------------------------------------------------------------------------------


def start(
    user: User,
    course_id: int,
    *,
    assignment_id: int | None = None,
    index: int | None = None,
    reason: str,
) -> TermRegrade:
    """A regrade of the course, one assignment of it, or one slot (instructors only), queued at
    low priority; the course's regrade still queued or running if there is one."""
    if assignment_id is None:
        staff(user, course_id, change=True)
        slot_id = None
    elif index is None:
        _, assignment = staff_for_assignment(user, assignment_id, change=True)
        if assignment.course_id != course_id:
            raise NotFound("no such assignment in this course")
        slot_id = None
    else:
        _, slot = staff_for_slot(user, assignment_id, index, change=True)
        if slot.assignment.course_id != course_id:
            raise NotFound("no such assignment in this course")
        slot_id = slot.id
    with writing() as session:
        # One request of a course at a time to the commit (SQLite's write lock is the whole
        # database's already), so two cannot both find no regrade pending.
        session.execute(sa.select(Course.id).where(Course.id == course_id).with_for_update())
        pending = session.scalar(
            sa.select(TermRegrade).where(
                TermRegrade.course_id == course_id, TermRegrade.status.in_([QUEUED, RUNNING])
            )
        )
        if pending is not None:
            return pending
        regrade = TermRegrade(
            course_id=course_id,
            assignment_id=assignment_id,
            slot_id=slot_id,
            requested_by_id=user.id,
            reason=reason.strip()[:300] or "the grading changed",
            status=QUEUED,
            progress={"phase": "queued"},
        )
        session.add(regrade)
    TERM_REGRADE.wake(regrade.id)
    return regrade


def get(user: User, regrade_id: int) -> TermRegrade:
    """A regrade of a course `user` teaches (its TAs read it too)."""
    regrade = db.session.get(TermRegrade, regrade_id)
    if regrade is None:
        raise NotFound("no such regrade")
    staff(user, regrade.course_id)
    return regrade


def listed(user: User, course_id: int) -> list[TermRegrade]:
    staff(user, course_id)
    return list(
        db.session.scalars(
            sa.select(TermRegrade)
            .where(TermRegrade.course_id == course_id)
            .order_by(TermRegrade.id.desc())
        )
    )


def scope_words(regrade: TermRegrade) -> str:
    if regrade.slot_id is not None:
        return slot_words(db.session.get_one(Slot, regrade.slot_id))
    if regrade.assignment_id is not None:
        return f"“{db.session.get_one(Assignment, regrade.assignment_id).title}”"
    return "the whole course"


# -- the job ------------------------------------------------------------------------------


class TermRegradeJob(JobKind[int, dict[str, Any]]):
    """A term regrade's preview computed under its lease, at the regrades' low priority."""

    job, noun, model = TERM_REGRADE_JOB, "term regrade", TermRegrade
    priority = LOW
    first_phase = "scoring"

    def claim(self, job_id: int, worker: str) -> int | None:
        with writing() as session:
            if not leases.claim_phased(session, TermRegrade, job_id, worker):
                return None
        return job_id

    def run(self, claimed: int, progress: Progress) -> dict[str, Any]:
        return preview(db.session.get_one(TermRegrade, claimed), progress)

    def give_back(self, job_id: int, worker: str, message: str) -> str | None:
        error = f"the regrade stopped on an error of the grader: {message[:2000]}"
        return leases.give_back_phased(TermRegrade, job_id, worker, MAX_ATTEMPTS, error)

    def record(self, job_id: int, worker: str, result: dict[str, Any]) -> bool:
        with writing() as session:
            return leases.finish_phased(session, TermRegrade, job_id, worker, result=result)


TERM_REGRADE = TermRegradeJob()


def sweep() -> list[int]:
    """Regrades whose worker died back to the queue; queued ones to wake again."""
    stopped = f"the worker stopped {MAX_ATTEMPTS} times on this regrade"
    return leases.sweep_phased(TermRegrade, MAX_ATTEMPTS, stopped)


__all__ = ["TERM_REGRADE", "get", "listed", "scope_words", "start", "sweep"]
