"""Held scores' release: an assignment's scores and keys held from its students until a date, or
each student's own due date (`deadlines`), and what a student reads meanwhile."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from grader.extensions import db
from grader.models import Assignment, Extension, utcnow
from grader.services.courses import zones
from grader.services.courses.deadlines import deadline_from, extensions_in


def scores_release_for(user_id: int | None, assignment: Assignment) -> dt.datetime | None:
    """When the student's scores and keys on the assignment are shown (None: not held): its
    release date, else the latest of the student's own due dates on it."""
    if not assignment.hold_scores:
        return None
    if assignment.scores_release_at is not None:
        return assignment.scores_release_at
    found = extensions_in(user_id, [assignment]) if user_id is not None else []
    whole = [e for e in found if e.slot_id is None]
    moments = [deadline_from(assignment.due_at, None, whole).due_at]
    for slot in assignment.slots:
        mine = [e for e in found if e.slot_id in (None, slot.id)]
        moments.append(deadline_from(slot.effective_due_at, None, mine).due_at)
    known = [m for m in moments if m is not None]
    return max(known) if known else None


def held_until(
    user_id: int | None, assignment: Assignment, now: dt.datetime | None = None
) -> dt.datetime | None:
    """The release moment while the student's scores are still held; None once shown."""
    release = scores_release_for(user_id, assignment)
    if release is None or (now or utcnow()) >= release:
        return None
    return release


def held_from(
    viewer_id: int | None, owner_id: int | None, assignment: Assignment
) -> dt.datetime | None:
    """While the owner's scores on the assignment are held from the viewer, their release
    moment: they are held from their owner alone (staff see everything at once), until then."""
    if owner_id is None or viewer_id != owner_id:
        return None
    return held_until(owner_id, assignment)


def held_words(release: dt.datetime, assignment: Assignment) -> str:
    """What the student reads while their score is held, in the course's zone."""
    when = zones.words(release, assignment.course.timezone)
    return f"Submitted; your score is released on {when}."


def release_moments(assignment: Assignment) -> list[dt.datetime]:
    """Every moment at which some student's held scores on the assignment are released."""
    if not assignment.hold_scores:
        return []
    if assignment.scores_release_at is not None:
        return [assignment.scores_release_at]
    moments = {d for d in [assignment.due_at, *(s.due_at for s in assignment.slots)] if d}
    moments |= set(
        db.session.scalars(
            sa.select(Extension.due_at).where(
                Extension.assignment_id == assignment.id, Extension.due_at.is_not(None)
            )
        )
    )
    return sorted(m for m in moments if m is not None)
