"""The next term: a course copied into a new offering, or one assignment into another course the
same instructor teaches.

What is copied is read from the models' columns, not listed by hand: every column of the course,
its assignments and their slots (presets, custom and imported trees, engine slots' settings,
the integrity setting) except those `NOT_COPIED` names, and every date among them is
moved by the calendar in the original course's zone: by a number of days, or by what puts the
first due date on a chosen date, on the wall clock (23:59 stays 23:59 across a clock change;
`zones.moved` says what happens to a time the clocks skip or repeat). So a column added to these tables later is copied too. No students,
attempts, uploads, extensions or LMS links are copied: the new course's LMS links are placed
again by deep linking.
"""

from __future__ import annotations

import copy
import datetime as dt
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.models import INSTRUCTOR, Assignment, Base, Course, Membership, Slot, User
from grader.services import Forbidden, Invalid, NotFound
from grader.services.courses import zones
from grader.services.courses.courses import _join_code
from grader.services.courses.staff import staff
from grader.services.transactions import writing

# The columns a copy does not take from the original: what names the row, ties it to its
# parent, or belongs to the original offering (its join code, its archive and purge, when it
# was made). Everything else is copied; dates shifted.
NOT_COPIED: dict[type[Base], frozenset[str]] = {
    Course: frozenset(
        {
            "id",
            "name",
            "join_code",
            "join_code_expires_at",
            "created_at",
            "archived_at",
            "purged_at",
        }
    ),
    # scores_sent_at: when the held scores reached the LMS, a fact of this term
    Assignment: frozenset({"id", "course_id", "created_at", "scores_sent_at"}),
    Slot: frozenset({"id", "assignment_id"}),
}
MAX_SHIFT_DAYS = 3660


def copied_columns(model: type[Base]) -> list[Any]:
    """The columns of ``model`` a copy takes (all but `NOT_COPIED`'s)."""
    return [c for c in model.__table__.columns if c.name not in NOT_COPIED[model]]


def is_date(column: Any) -> bool:
    return isinstance(column.type, sa.DateTime)


def _copy_row(
    model: type[Base], row: Any, offset: dt.timedelta, zone_name: str, **values: Any
) -> Any:
    for column in copied_columns(model):
        value = getattr(row, column.key)
        if value is not None and is_date(column):
            value = zones.moved(value, zone_name, offset)
        values.setdefault(column.key, copy.deepcopy(value))
    return model(**values)


def first_due(course: Course) -> dt.datetime | None:
    """The earliest due date of the course's assignments and slots."""
    dates = [a.due_at for a in course.assignments if a.due_at is not None] + [
        s.due_at for a in course.assignments for s in a.slots if s.due_at is not None
    ]
    return min(dates) if dates else None


def offset_for(
    course: Course, shift_days: int | None, first_due_at: dt.datetime | None
) -> dt.timedelta:
    """The wall-clock offset every date moves by in the course's zone: N days, or the days
    and clock time that put the first due date on a date."""
    if (shift_days is None) == (first_due_at is None):
        raise Invalid("give either a number of days to shift the dates by, or the first due date")
    if shift_days is not None:
        if abs(shift_days) > MAX_SHIFT_DAYS:
            raise Invalid(f"shift the dates by at most {MAX_SHIFT_DAYS} days")
        return dt.timedelta(days=shift_days)
    assert first_due_at is not None
    earliest = first_due(course)
    if earliest is None:
        raise Invalid("the course has no due date to map: shift its dates by a number of days")
    offset = zones.wall_offset(earliest, first_due_at, course.timezone)
    if abs(offset) > dt.timedelta(days=MAX_SHIFT_DAYS):
        raise Invalid(f"shift the dates by at most {MAX_SHIFT_DAYS} days")
    return offset


@dataclass(frozen=True)
class Copied:
    course: Course
    offset: dt.timedelta
    assignments: int
    slots: int


def _instructor(actor: User | None, course_id: int) -> Course:
    if actor is None:
        course = db.session.get(Course, course_id)
        if course is None:
            raise NotFound("no such course")
        return course
    return staff(actor, course_id, change=True).course


def copy_course(
    actor: User | None,
    course_id: int,
    name: str,
    *,
    shift_days: int | None = None,
    first_due_at: dt.datetime | None = None,
) -> Copied:
    """A new course from ``course_id``: its settings, assignments and slots with every date
    moved by one offset; the original's instructors teach it (`actor` must be one, or None:
    the server's operator)."""
    original = _instructor(actor, course_id)
    name = (name or "").strip()
    if not name or len(name) > 200:
        raise Invalid("the new course needs a name (at most 200 characters)")
    offset = offset_for(original, shift_days, first_due_at)
    instructors = list(
        db.session.scalars(
            sa.select(Membership.user_id).where(
                Membership.course_id == original.id, Membership.role == INSTRUCTOR
            )
        )
    )
    slots = 0
    with writing() as session:
        zone_name = original.timezone
        new = _copy_row(Course, original, offset, zone_name, name=name, join_code=_join_code())
        session.add(new)
        for assignment in original.assignments:
            copied = _copy_row(Assignment, assignment, offset, zone_name, course=new)
            session.add(copied)
            for slot in assignment.slots:
                session.add(_copy_row(Slot, slot, offset, zone_name, assignment=copied))
                slots += 1
        for user_id in instructors:
            session.add(Membership(user_id=user_id, course=new, role=INSTRUCTOR))
    return Copied(new, offset, len(original.assignments), slots)


def copy_assignment(
    actor: User | None, assignment_id: int, target_course_id: int, *, shift_days: int = 0
) -> Assignment:
    """One assignment and its slots copied into another course the actor teaches."""
    assignment = db.session.get(Assignment, assignment_id)
    if assignment is None:
        raise NotFound("no such assignment")
    _instructor(actor, assignment.course_id)
    target = _instructor(actor, target_course_id)
    if target.archived_at is not None:
        raise Forbidden("that course is archived: it takes no new assignment")
    if abs(shift_days) > MAX_SHIFT_DAYS:
        raise Invalid(f"shift the dates by at most {MAX_SHIFT_DAYS} days")
    offset = dt.timedelta(days=shift_days)
    # by the calendar of the course it comes from, where its dates were set
    zone_name = assignment.course.timezone
    with writing() as session:
        copied = _copy_row(Assignment, assignment, offset, zone_name, course_id=target.id)
        session.add(copied)
        for slot in assignment.slots:
            session.add(_copy_row(Slot, slot, offset, zone_name, assignment=copied))
    return copied


@dataclass(frozen=True)
class Moved:
    """One date of the copy, before and after: what the copy form previews."""

    what: str
    before: dt.datetime
    after: dt.datetime


def preview(
    actor: User | None,
    course_id: int,
    *,
    shift_days: int | None = None,
    first_due_at: dt.datetime | None = None,
) -> list[Moved]:
    """Every date a copy of the course would move, before and after, nothing made: the same
    offset and the same move as `copy_course`."""
    original = _instructor(actor, course_id)
    offset = offset_for(original, shift_days, first_due_at)
    zone_name = original.timezone
    rows: list[Moved] = []

    def add(what: str, row: Any, model: type[Base]) -> None:
        for column in copied_columns(model):
            value = getattr(row, column.key)
            if value is not None and is_date(column):
                label = column.key.removesuffix("_at").replace("_", " ")
                rows.append(Moved(f"{what}: {label}", value, zones.moved(value, zone_name, offset)))

    add("The course", original, Course)
    for assignment in original.assignments:
        add(assignment.title, assignment, Assignment)
        for slot in assignment.slots:
            add(f"{assignment.title}, exercise {slot.index + 1}", slot, Slot)
    return rows


def taught_courses(actor: User) -> list[Course]:
    """The courses ``actor`` teaches as an instructor, not archived: where copies may go."""
    return list(
        db.session.scalars(
            sa.select(Course)
            .join(Membership)
            .where(
                Membership.user_id == actor.id,
                Membership.role == INSTRUCTOR,
                Course.archived_at.is_(None),
            )
            .order_by(Course.id)
        )
    )


def offset_words(offset: dt.timedelta) -> str:
    """An offset as people say it: "+112 days", "-3 days 4 hours"."""
    sign = "-" if offset < dt.timedelta(0) else "+"
    rest = abs(offset)
    hours, seconds = divmod(rest.seconds, 3600)
    parts = [f"{rest.days} day{'s' if rest.days != 1 else ''}"]
    if hours:
        parts.append(f"{hours} hour{'s' if hours != 1 else ''}")
    if seconds // 60:
        parts.append(f"{seconds // 60} min")
    return sign + " ".join(parts)
