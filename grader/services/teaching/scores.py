"""The scores a course counts: every attempt on a graded variant and every graded engine
submission as a `GradedAttempt` (`counted_attempts`), and a slot's state under its assignment's
policy (best or last, after the late penalty: `slot_state`). Every page and report that shows a
slot's score reads it here: the student's dashboard and assignment page, the gradebook and its
CSV, the drill-down, the statistics and the LMS grade passback."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import sqlalchemy as sa

from grader.extensions import db
from grader.models import (
    STAFF_ROLES,
    Assignment,
    Attempt,
    Exercise,
    Invite,
    Membership,
    Slot,
    User,
)
from grader.services.courses import invites, release
from grader.services.courses.courses import assignments_for, memberships
from grader.services.engines.results import engine_scores


@dataclass(frozen=True)
class GradedAttempt:
    """An attempt on a graded variant, as the gradebook and the statistics read it."""

    id: int
    user_id: int
    slot_id: int
    assignment_id: int
    score: float
    penalty: float
    days_late: int
    created_at: dt.datetime
    diagnosis: str | None

    @property
    def credited(self) -> float:
        return self.score * (1.0 - self.penalty)


def policy_score(
    attempts: list[GradedAttempt], policy: str, *, credited: bool = True
) -> float | None:
    """The slot's score under `policy` from its attempts in the order made (None: no attempt)."""
    if not attempts:
        return None
    values = [a.credited if credited else a.score for a in attempts]
    return values[-1] if policy == "last" else max(values)


def graded_attempts(
    course_id: int, assignment_id: int | None = None, user_id: int | None = None
) -> list[GradedAttempt]:
    """Every attempt of the course's graded variants, by their owners, oldest first."""
    query = (
        sa.select(
            Attempt.id,
            Attempt.user_id,
            Slot.id,
            Slot.assignment_id,
            Attempt.score,
            Attempt.penalty,
            Attempt.days_late,
            Attempt.created_at,
            Attempt.diagnosis,
        )
        .join(Exercise, Attempt.exercise_id == Exercise.id)
        .join(Slot, Exercise.slot_id == Slot.id)
        .join(Assignment, Slot.assignment_id == Assignment.id)
        .where(
            Assignment.course_id == course_id,
            Exercise.variant == 0,
            Attempt.user_id == Exercise.owner_id,
        )
        .order_by(Attempt.id)
    )
    if assignment_id is not None:
        query = query.where(Slot.assignment_id == assignment_id)
    if user_id is not None:
        query = query.where(Attempt.user_id == user_id)
    return [GradedAttempt(*row) for row in db.session.execute(query)]


def engine_attempts(
    course_id: int, assignment_id: int | None = None, user_id: int | None = None
) -> list[GradedAttempt]:
    """Engine slots: each graded submission as an attempt scoring its fraction of the suite."""
    return [GradedAttempt(*row, None) for row in engine_scores(course_id, assignment_id, user_id)]


def counted_attempts(
    course_id: int, assignment_id: int | None = None, user_id: int | None = None
) -> list[GradedAttempt]:
    """Everything a course counts, each slot's in the order made: the graded variants' attempts
    and the graded engine submissions (a slot holds one kind or the other)."""
    return graded_attempts(course_id, assignment_id, user_id) + engine_attempts(
        course_id, assignment_id, user_id
    )


@dataclass(frozen=True)
class SlotState:
    """A student's slot as every page shows it: how many attempts (graded uploads for an engine
    slot) and the score that counts (None: not started)."""

    attempts: int
    score: float | None
    held_until: dt.datetime | None = None  # the score is held from the student until then


def slot_state(attempts: list[GradedAttempt], policy: str) -> SlotState:
    """One student's slot from their attempts on it, in the order made."""
    return SlotState(len(attempts), policy_score(attempts, policy))


def student_slot_states(user_id: int, assignments: list[Assignment]) -> dict[int, SlotState]:
    """Per slot of `assignments`, the student's state as they see it (slots they have not started
    are left out; a score the assignment holds from them is None, with its release)."""
    by_slot: dict[int, list[GradedAttempt]] = {}
    for course_id in sorted({a.course_id for a in assignments}):
        for attempt in counted_attempts(course_id, user_id=user_id):
            by_slot.setdefault(attempt.slot_id, []).append(attempt)
    states = {}
    for assignment in assignments:
        held = release.held_work(user_id, release.Standing(user_id, assignment))
        for slot in assignment.slots:
            if slot.id in by_slot:
                state = slot_state(by_slot[slot.id], assignment.score_policy)
                states[slot.id] = state if held is None else SlotState(state.attempts, None, held)
    return states


@dataclass(frozen=True)
class Dashboard:
    """A person's dashboard: the courses they teach (a TA's or an instructor's, first), those
    they take, the courses inviting them, the assignments open to them in the courses they take
    (never those they teach), and the state of each slot (the gradebook's number)."""

    teaching: list[Membership]
    memberships: list[Membership]  # the courses they take
    invitations: list[Invite]
    assignments: list[Assignment]
    progress: dict[int, SlotState]


def dashboard(user: User) -> Dashboard:
    mine = memberships(user)
    taking = [m for m in mine if m.role not in STAFF_ROLES]
    taken = {m.course_id for m in taking}
    assignments = [a for a in assignments_for(user) if a.course_id in taken]
    return Dashboard(
        [m for m in mine if m.role in STAFF_ROLES],
        taking,
        invites.pending_for(user),
        assignments,
        student_slot_states(user.id, assignments),
    )
