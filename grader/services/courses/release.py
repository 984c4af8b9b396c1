"""Held scores' release: an assignment's scores and keys held from its students until a date, or
each student's own due date (`deadlines`), and what a student reads meanwhile.

`held_work` is the one gate: every reader of a student's work (a score, its parts, the diagnosis,
the key and solution, right or wrong, streaks and misconception standings, an engine's results,
games and timing, paper history) asks it what the viewer may see, where the data is read; so does
every reader of a student's standing on an assignment (`Standing`: the dashboard's slots, the
engine slot's page, the key's replay, the gradebook's marks, the LMS). The rule under it
(`_held_until`) and the assignment's hold settings are read nowhere else
(`tests/test_architecture.py`)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.models import Assignment, Attempt, Extension, Submission, utcnow
from grader.services.courses import zones
from grader.services.courses.deadlines import deadline_from, extensions_in


@dataclass(frozen=True)
class Standing:
    """A student's standing on an assignment as a whole (their slots' scores, its sum, its key):
    work for the gate when no one attempt or upload is read."""

    owner_id: int
    assignment: Assignment


def _release_for(user_id: int | None, assignment: Assignment) -> dt.datetime | None:
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


def _held_until(
    user_id: int | None, assignment: Assignment, now: dt.datetime | None = None
) -> dt.datetime | None:
    """The release moment while the student's scores are still held; None once shown."""
    release = _release_for(user_id, assignment)
    if release is None or (now or utcnow()) >= release:
        return None
    return release


def work_assignment(work: Attempt | Submission | Standing) -> Assignment | None:
    """The assignment whose release governs a piece of work: a graded attempt's or an upload's,
    a standing's own; None for practice (never graded, never held)."""
    if isinstance(work, Standing):
        return work.assignment
    if isinstance(work, Submission):
        return work.slot.assignment if work.slot is not None else None
    exercise = work.exercise
    if exercise is None or exercise.is_practice or exercise.slot is None:
        return None
    return exercise.slot.assignment


def held_work(
    viewer_id: int | None,
    work: Attempt | Submission | Standing,
    *,
    cache: dict[Any, Any] | None = None,
) -> dt.datetime | None:
    """The gate: while the work's grade is held from the viewer, its release moment, and then
    the viewer sees that it was submitted and graded, and nothing of the grade; None for the full
    view (staff, anyone once released, practice). `cache` (by owner and assignment) spares a
    reader of many rows the same question."""
    assignment = work_assignment(work)
    owner_id = work.user_id if isinstance(work, Attempt) else work.owner_id
    if assignment is None or owner_id is None or viewer_id != owner_id:
        return None
    if cache is None:
        return _held_until(owner_id, assignment)
    key = (owner_id, assignment.id)
    if key not in cache:
        cache[key] = _held_until(owner_id, assignment)
    return cache[key]


def held_words(release: dt.datetime, assignment: Assignment) -> str:
    """What the student reads while their score is held, in the course's zone."""
    when = zones.words(release, assignment.course.timezone)
    return f"Submitted; your score is released on {when}."


def passed_releases(now: dt.datetime) -> list[tuple[Assignment, list[dt.datetime]]]:
    """Each assignment holding scores with the release moments that came since its scores were
    last sent to the LMS (`Assignment.scores_sent_at`), up to `now`; those with none left out."""
    found = []
    for assignment in db.session.scalars(
        sa.select(Assignment).where(Assignment.hold_scores.is_(True))
    ):
        since = assignment.scores_sent_at
        passed = [
            m for m in release_moments(assignment) if m <= now and (since is None or m > since)
        ]
        if passed:
            found.append((assignment, passed))
    return found


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
