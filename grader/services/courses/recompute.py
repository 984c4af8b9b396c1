"""Lateness recomputed: after a student's terms changed (an extension granted or removed, a
group's members changed, the course's slip days' budget), their stored graded work (attempts and
engine uploads) is made late again as `deadlines.lateness_for` says now, in the order it was
submitted, so slip days are spent again as on arrival. Changed scores are marked for the LMS."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from grader.models import Assignment, Attempt, Course, Exercise, Slot, Submission
from grader.services import outbox
from grader.services.courses.deadlines import lateness_for

EPSILON = 1e-9


def relate(session: Session, users: list[int], slots: list[Slot]) -> list[dict[str, Any]]:
    """After the students' terms in the slots changed (an extension given, removed or a group's
    members changed): their graded work in the slots is late again as `lateness_for` says now,
    and, since lateness decides the slip days spent, their late work anywhere in the course
    spends them again in the order it was submitted (`_recompute`). Marks changed scores for the
    LMS; the changes, for the audit log."""
    if not users or not slots:
        return []
    return _recompute(session, slots[0].assignment.course_id, users, [s.id for s in slots])


def _late_again(
    row: Attempt | Submission, owner: int, slot: Slot, score: float, slip_before: int
) -> dict[str, Any] | None:
    """Stores the row's lateness as `lateness_for` gives it now; the change for the audit log
    (None: the same days late, slip days and penalty as before)."""
    late = lateness_for(owner, slot, row.created_at)
    before = row.penalty
    same = late.days == row.days_late and late.slip_days == slip_before
    row.days_late, row.penalty, row.slip_days = late.days, late.penalty, late.slip_days
    if same and abs(late.penalty - before) < EPSILON:
        return None
    return {  # the audit log's columns (a regrade's): the credited score before and after
        "attempt_id": row.id if isinstance(row, Attempt) else None,
        "upload_id": row.id if isinstance(row, Submission) else None,
        "user_id": owner,
        "slot_id": slot.id,
        "old": round(score * (1.0 - before), 6),
        "new": round(score * (1.0 - late.penalty), 6),
        "kept": False,
    }


def respend_slip_days(session: Session, course: Course) -> list[dict[str, Any]]:
    """After the course's budget of slip days changed: every student's late graded work (its
    attempts and uploads) spends them again in the order it was submitted, as `lateness_for`
    spent them on arrival, under the new budget as if it had held all term. A larger budget
    turns penalties into slip days; a smaller one turns the slip days past it back into the
    penalty. Marks changed scores for the LMS; the changes, for the audit log."""
    return _recompute(session, course.id, None, [])


def _recompute(
    session: Session, course_id: int, users: list[int] | None, slot_ids: list[int]
) -> list[dict[str, Any]]:
    """The graded work of ``users`` (None: everyone) in the course that is late, or is in
    ``slot_ids`` (whose terms changed, so it may now be late), made late again in the order it
    was submitted, from no slip days spent: each row spends what the rows before it left, as
    on arrival. Marks changed scores for the LMS; the changes, for the audit log."""
    session.flush()
    in_course = Assignment.course_id == course_id
    attempt_rows = (Attempt.days_late > 0) | Exercise.slot_id.in_(slot_ids)
    upload_rows = (Submission.days_late > 0) | Submission.slot_id.in_(slot_ids)
    if users is not None:
        attempt_rows &= Attempt.user_id.in_(users)
        upload_rows &= Submission.owner_id.in_(users)
    attempts = session.scalars(
        sa.select(Attempt)
        .join(Exercise, Attempt.exercise_id == Exercise.id)
        .join(Slot, Exercise.slot_id == Slot.id)
        .join(Assignment, Slot.assignment_id == Assignment.id)
        .where(in_course, Exercise.variant == 0, attempt_rows)
    )
    uploads = session.scalars(
        sa.select(Submission)
        .join(Slot, Submission.slot_id == Slot.id)
        .join(Assignment, Slot.assignment_id == Assignment.id)
        .where(in_course, upload_rows)
    )
    rows: list[tuple[Attempt | Submission, int, Slot, float]] = [
        (a, a.user_id, a.exercise.slot, a.score) for a in attempts if a.exercise.slot
    ]
    rows += [
        (s, s.owner_id, s.slot, (s.score or 0.0) / s.max_score if s.max_score else 0.0)
        for s in uploads
    ]
    rows.sort(key=lambda r: (r[0].created_at, isinstance(r[0], Submission), r[0].id))
    spent = [row.slip_days for row, *_ in rows]
    for row, *_ in rows:  # spent again from none spent
        row.slip_days = 0
    session.flush()
    changed = []
    for (row, owner, slot, score), before in zip(rows, spent, strict=True):
        change = _late_again(row, owner, slot, score, before)
        session.flush()  # what the next row's `slip_days_available` reads
        if change is not None:
            changed.append(change)
    outbox.passback_after_commit(session, [(c["user_id"], c["slot_id"]) for c in changed])
    return changed
