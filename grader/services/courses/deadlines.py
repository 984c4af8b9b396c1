"""A student's own deadlines: the one place a due date, an attempt limit or lateness is read.

Every reader (the student's pages, the API, the refusal of a late attempt or upload, its stored
lateness and so the gradebook, its CSV, the LMS passback and the data export) asks here with the
student, so an extension counts everywhere or nowhere:

    due_for(user_id, slot)        the class's due date, or the latest of the student's extensions
    attempts_for(user_id, slot)   the slot's limit plus the most extra attempts granted
    closes_for(user_id, slot)     when their work stops being taken; closed(..., now) whether
                                  it has (reading the slip days only where they could matter)
    lateness_for(user_id, slot, t) (days late, penalty), no penalty where one is waived
    cost_now(user_id, slot, now)  the same before work is sent, in words ("each started day
                                  counts"); spent_words says it of stored work

An extension names one student or a named group (`GroupMember`), and an assignment (every slot)
or one slot; `extensions` grants and removes them, `groups` names the groups, `accommodations`
reads a list of them, `recompute` makes stored work late again when terms change, `release`
says when held scores are shown, `slip_days` sets the course's budget of late days (spent here,
by `lateness_for`), and `lateness` is the late policy's arithmetic.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.models import Assignment, Attempt, Exercise, Extension, GroupMember, Slot, Submission
from grader.services import plural
from grader.services.courses import lateness

MAX_DAYS = 366  # the most days an extension adds, and the largest slip days budget


@dataclass(frozen=True)
class Deadline:
    """A student's terms for one slot."""

    class_due_at: dt.datetime | None  # the slot's (or its assignment's) due date, UTC
    due_at: dt.datetime | None  # the student's own
    attempts_allowed: int | None  # None: unlimited
    waive_penalty: bool
    extended: bool  # an extension applies

    @property
    def moved(self) -> bool:
        return self.due_at != self.class_due_at


def _groups(user_id: int, course_id: int) -> sa.Select[Any]:
    return sa.select(GroupMember.name).where(
        GroupMember.user_id == user_id, GroupMember.course_id == course_id
    )


def extensions_for(
    user_id: int, assignment: Assignment, slot: Slot | None = None
) -> list[Extension]:
    """The extensions that apply to the student on the assignment's slot (`slot`), or on the
    assignment as a whole (`slot` None: only those naming no slot)."""
    where = [
        Extension.assignment_id == assignment.id,
        sa.or_(
            Extension.user_id == user_id,
            Extension.group_name.in_(_groups(user_id, assignment.course_id)),
        ),
    ]
    if slot is None:
        where.append(Extension.slot_id.is_(None))
    else:
        where.append(sa.or_(Extension.slot_id.is_(None), Extension.slot_id == slot.id))
    return list(db.session.scalars(sa.select(Extension).where(*where).order_by(Extension.id)))


def deadline_from(
    class_due: dt.datetime | None, allowed: int | None, found: Iterable[Any]
) -> Deadline:
    found = list(found)
    dues = [e.due_at for e in found if e.due_at is not None]
    due = max([*dues, *([class_due] if class_due else [])]) if dues else class_due
    extra = max((e.extra_attempts for e in found), default=0)
    return Deadline(
        class_due_at=class_due,
        due_at=due,
        attempts_allowed=None if allowed is None else allowed + extra,
        waive_penalty=any(e.waive_penalty for e in found),
        extended=bool(found),
    )


def _applying(
    user_id: Any, slot_id: Any, assignment_id: Any, course_id: Any
) -> tuple[sa.ColumnElement[bool], ...]:
    """The extensions that apply to a student on a slot: theirs or their groups', naming the
    slot or its whole assignment (each argument a value's bound parameter or a column)."""
    return (
        Extension.assignment_id == assignment_id,
        sa.or_(Extension.slot_id.is_(None), Extension.slot_id == slot_id),
        sa.or_(
            Extension.user_id == user_id,
            Extension.group_name.in_(
                sa.select(GroupMember.name).where(
                    GroupMember.user_id == user_id, GroupMember.course_id == course_id
                )
            ),
        ),
    )


# Built once, asked by every graded attempt and upload: the terms of the student's extensions on
# one slot (theirs, or their groups'), as plain rows on the session's connection.
_SLOT_TERMS = sa.select(Extension.due_at, Extension.extra_attempts, Extension.waive_penalty).where(
    *_applying(
        sa.bindparam("user_id"),
        sa.bindparam("slot_id"),
        sa.bindparam("assignment_id"),
        sa.bindparam("course_id"),
    )
)


def any_extension(user_id: Any, slot_id: Any) -> sa.Exists:
    """Whether an extension applies to the student on the slot, as a column of the caller's own
    query (`user_id`, `slot_id`: its columns), so that `deadline_for(..., extended=False)`
    reads none where none applies."""
    return sa.exists().where(
        Slot.id == slot_id,
        Assignment.id == Slot.assignment_id,
        *_applying(user_id, Slot.id, Assignment.id, Assignment.course_id),
    )


def deadline_for(user_id: int | None, slot: Slot, *, extended: bool = True) -> Deadline:
    """The student's due date, attempt limit and penalty waiver on a slot (`user_id` None: the
    class's). `extended` False: the caller's query found that no extension applies
    (`any_extension`), so none is read."""
    found: list[Any] = []
    if user_id is not None and extended:
        assignment = slot.assignment
        found = list(
            db.session.connection().execute(
                _SLOT_TERMS,
                {
                    "assignment_id": assignment.id,
                    "slot_id": slot.id,
                    "user_id": user_id,
                    "course_id": assignment.course_id,
                },
            )
        )
    return deadline_from(slot.effective_due_at, slot.attempts_allowed, found)


def assignment_deadline(user_id: int | None, assignment: Assignment) -> Deadline:
    """The student's due date for the assignment as a whole (its extensions naming no slot)."""
    found = extensions_for(user_id, assignment) if user_id is not None else []
    return deadline_from(assignment.due_at, None, found)


def due_for(user_id: int | None, slot: Slot) -> dt.datetime | None:
    return deadline_for(user_id, slot).due_at


def attempts_for(user_id: int | None, slot: Slot) -> int | None:
    return deadline_for(user_id, slot).attempts_allowed


def closes_for(
    user_id: int | None, slot: Slot, terms: Deadline | None = None
) -> dt.datetime | None:
    """When the student's attempts and uploads stop being taken: lateness.closes_at of their
    own due date (`terms`, when the caller has read them), moved later by the slip days they
    may still spend on this assignment."""
    due = (terms or deadline_for(user_id, slot)).due_at
    if due is not None and user_id is not None:
        due += lateness.DAY * slip_days_available(user_id, slot.assignment)
    return lateness.closes_at(due, slot.assignment.late_percent_per_day)


def closed(
    user_id: int | None, slot: Slot, now: dt.datetime, terms: Deadline | None = None
) -> dt.datetime | None:
    """`closes_for` when `now` is past it, else None (the student's work is still taken). The
    slip days are read only once the student's own due date and late window have passed: they
    can only move the close later, so before then the answer is known without them."""
    terms = terms or deadline_for(user_id, slot)
    unspent = lateness.closes_at(terms.due_at, slot.assignment.late_percent_per_day)
    if unspent is None or now <= unspent:
        return None
    closes = closes_for(user_id, slot, terms)
    return closes if closes is not None and now > closes else None


@dataclass(frozen=True)
class Lateness:
    days: int  # days late, from the student's own due date
    penalty: float  # the fraction taken off
    slip_days: int  # of the days late, those the student's slip days covered


def lateness_for(
    user_id: int, slot: Slot, submitted_at: dt.datetime, terms: Deadline | None = None
) -> Lateness:
    """The lateness of the student's work on the slot at `submitted_at`: slip days are spent
    first (as far as the course's budget, less what their other assignments used, allows), the
    penalty counts the days left over; an extension's days are not late at all. `terms`: the
    student's, when the caller has read them."""
    terms = terms or deadline_for(user_id, slot)
    days = lateness.days_late(submitted_at, terms.due_at)
    if terms.waive_penalty or not days:
        return Lateness(days, 0.0, 0)
    slip = min(days, slip_days_available(user_id, slot.assignment))
    return Lateness(days, lateness.penalty(days - slip, slot.assignment.late_percent_per_day), slip)


@dataclass(frozen=True)
class LateCost:
    """What work sent at a moment costs, as `lateness_for` stores it, and the page's words."""

    days: int
    slip_days: int
    penalty: float
    words: str

    def to_api(self) -> dict[str, Any]:
        return {
            "days_late": self.days,
            "slip_days": self.slip_days,
            "penalty": self.penalty,
            "words": self.words,
        }


def cost_now(
    user_id: int, slot: Slot, now: dt.datetime, terms: Deadline | None = None
) -> LateCost | None:
    """What the student's work on the slot would cost if sent at `now`: how late it is, the
    slip days it spends and the penalty (`lateness_for`, which stores it), in words to read
    before sending. None when it is on time or no longer taken."""
    terms = terms or deadline_for(user_id, slot)
    late = lateness_for(user_id, slot, now, terms)
    closes = closes_for(user_id, slot, terms)
    if not late.days or terms.due_at is None or (closes is not None and now > closes):
        return None
    assignment = slot.assignment
    words = (
        f"Sent now, this work is {lateness.late_by(now - terms.due_at)} past your due time, so it is "
        + lateness.cost_words(
            late.days, late.slip_days, late.penalty, assignment.late_percent_per_day, to_come=True
        )
    )
    if assignment.course.slip_days:
        left = slip_days_available(user_id, assignment)
        words += f" You have {plural(left, 'slip day')} left for it."
    return LateCost(late.days, late.slip_days, late.penalty, words)


def spent_words(days: int, slip_days: int, penalty: float, assignment: Assignment) -> str:
    """What stored work's lateness cost, in words ("" when on time): the result's sentence."""
    if not days:
        return ""
    return "This work was " + lateness.cost_words(
        days, slip_days, penalty, assignment.late_percent_per_day, to_come=False
    )


# -- slip days: a course's budget of late days per student, spent in order of submission --------


def _slip_query(course_id: int, user_id: int | None) -> list[tuple[int, int, int]]:
    """(user, assignment, slip days used: the most of any of its attempts or uploads)."""
    attempts = (
        sa.select(Attempt.user_id, Slot.assignment_id, sa.func.max(Attempt.slip_days))
        .join(Exercise, Attempt.exercise_id == Exercise.id)
        .join(Slot, Exercise.slot_id == Slot.id)
        .join(Assignment, Slot.assignment_id == Assignment.id)
        .where(Assignment.course_id == course_id, Exercise.variant == 0, Attempt.slip_days > 0)
        .group_by(Attempt.user_id, Slot.assignment_id)
    )
    uploads = (
        sa.select(Submission.owner_id, Slot.assignment_id, sa.func.max(Submission.slip_days))
        .join(Slot, Submission.slot_id == Slot.id)
        .join(Assignment, Slot.assignment_id == Assignment.id)
        .where(Assignment.course_id == course_id, Submission.slip_days > 0)
        .group_by(Submission.owner_id, Slot.assignment_id)
    )
    if user_id is not None:
        attempts = attempts.where(Attempt.user_id == user_id)
        uploads = uploads.where(Submission.owner_id == user_id)
    rows = [*db.session.execute(attempts), *db.session.execute(uploads)]
    return [(u, a, d) for u, a, d in rows]


def slip_days_used(course_id: int, user_id: int | None = None) -> dict[tuple[int, int], int]:
    """Per (student, assignment), the slip days the student used on it."""
    used: dict[tuple[int, int], int] = {}
    for user, assignment, days in _slip_query(course_id, user_id):
        used[(user, assignment)] = max(used.get((user, assignment), 0), days)
    return used


def slip_days_available(user_id: int, assignment: Assignment) -> int:
    """The slip days the student may still spend on this assignment: the budget less what
    their other assignments used (this one's own use stays available to its later work)."""
    budget = assignment.course.slip_days
    if not budget:
        return 0
    used = slip_days_used(assignment.course_id, user_id)
    elsewhere = sum(d for (_, a), d in used.items() if a != assignment.id)
    return max(0, budget - elsewhere)


# -- a page's many assignments at once ---------------------------------------------------------


@dataclass(frozen=True)
class Dues:
    """A student's own terms on the assignments a page shows: per assignment, per slot."""

    assignments: dict[int, Deadline]
    slots: dict[int, Deadline]


def dues(user_id: int, assignments: Iterable[Assignment]) -> Dues:
    assignments = list(assignments)
    found: dict[int, list[Extension]] = {}
    if assignments:
        for extension in extensions_in(user_id, assignments):
            found.setdefault(extension.assignment_id, []).append(extension)
    by_assignment: dict[int, Deadline] = {}
    by_slot: dict[int, Deadline] = {}
    for assignment in assignments:
        mine = found.get(assignment.id, [])
        whole = [e for e in mine if e.slot_id is None]
        by_assignment[assignment.id] = deadline_from(assignment.due_at, None, whole)
        for slot in assignment.slots:
            here = [e for e in mine if e.slot_id in (None, slot.id)]
            by_slot[slot.id] = deadline_from(slot.effective_due_at, slot.attempts_allowed, here)
    return Dues(by_assignment, by_slot)


def extensions_in(user_id: int, assignments: list[Assignment]) -> list[Extension]:
    """Every extension of the student's on the assignments, in one query."""
    courses = {a.course_id for a in assignments}
    return list(
        db.session.scalars(
            sa.select(Extension)
            .where(
                Extension.assignment_id.in_([a.id for a in assignments]),
                sa.or_(
                    Extension.user_id == user_id,
                    sa.tuple_(Extension.course_id, Extension.group_name).in_(
                        sa.select(GroupMember.course_id, GroupMember.name).where(
                            GroupMember.user_id == user_id, GroupMember.course_id.in_(courses)
                        )
                    ),
                ),
            )
            .order_by(Extension.id)
        )
    )
