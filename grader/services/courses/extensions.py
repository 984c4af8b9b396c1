"""Extensions: a later due date, extra attempts or a waived late penalty for one student or one
named group, on an assignment or one of its slots, granted, listed and removed by the course's
instructors (read by `deadlines`). Granting or removing one recomputes the lateness of the
students' stored work in its slots (`recompute`) and writes an entry in the course's audit log."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import (
    STUDENT,
    Assignment,
    Course,
    Extension,
    GroupMember,
    Membership,
    Slot,
    User,
    utcnow,
)
from grader.services import Invalid, NotFound
from grader.services.accounts import normalize_email
from grader.services.courses import audit_log, zones
from grader.services.courses.courses import course_in
from grader.services.courses.deadlines import MAX_DAYS
from grader.services.courses.recompute import relate
from grader.services.courses.staff import staff
from grader.services.transactions import writing

MAX_EXTRA_ATTEMPTS = 1000


@dataclass(frozen=True)
class ExtensionInput:
    """One extension as staff ask for it: whom (an e-mail or a group), where, and what."""

    assignment_id: int
    email: str | None = None
    group: str | None = None
    slot_index: int | None = None  # None: every slot of the assignment
    due_at: dt.datetime | None = None  # the new due date, UTC
    days: int | None = None  # or this many days after the class's due date
    extra_attempts: int = 0
    waive_penalty: bool = False


def student_in(session: Session | Any, course_id: int, email: str) -> User:
    user = session.scalar(
        sa.select(User)
        .join(Membership, Membership.user_id == User.id)
        .where(
            User.email == normalize_email(email),
            Membership.course_id == course_id,
            Membership.role == STUDENT,
        )
    )
    if user is None:
        raise Invalid(f"{email.strip()[:200]} is not a student of this course", field="email")
    return user


def check_input(
    data: ExtensionInput, assignment: Assignment
) -> tuple[Slot | None, dt.datetime | None]:
    """The slot named and the student's due date (UTC); N days are calendar days in the
    course's zone, so 23:59 stays 23:59 across a change of the clocks."""
    if (data.email is None) == (data.group is None):
        raise Invalid("name one student (an e-mail) or one group")
    if data.due_at is not None and data.days is not None:
        raise Invalid("give a due date or a number of days, not both", field="days")
    if data.days is not None and not 1 <= data.days <= MAX_DAYS:
        raise Invalid(f"days must be between 1 and {MAX_DAYS}", field="days")
    if not 0 <= data.extra_attempts <= MAX_EXTRA_ATTEMPTS:
        raise Invalid(
            f"extra attempts must be between 0 and {MAX_EXTRA_ATTEMPTS}", field="extra_attempts"
        )
    nothing = data.due_at is None and data.days is None
    if nothing and not data.extra_attempts and not data.waive_penalty:
        raise Invalid("an extension needs a due date, days, extra attempts or a waiver")
    slot = None
    if data.slot_index is not None:
        slot = next((s for s in assignment.slots if s.index == data.slot_index), None)
        if slot is None:
            raise Invalid(
                f"the assignment has no exercise {data.slot_index + 1}", field="slot_index"
            )
    class_due = slot.effective_due_at if slot is not None else assignment.due_at
    due = data.due_at
    if data.days is not None:
        if class_due is None:
            raise Invalid("this has no due date to add days to: give a date", field="days")
        # by the calendar, as a copy moves dates: 23:59 stays 23:59 across a clock change
        due = zones.moved(class_due, assignment.course.timezone, dt.timedelta(days=data.days))
    if due is not None and class_due is not None and due <= class_due:
        raise Invalid("an extension's due date must be later than the class's", field="due_at")
    return slot, due


def _describe(extension: Extension, email: str | None, zone_name: str) -> dict[str, Any]:
    return {
        "who": email or f"group {extension.group_name}",
        "where": extension.assignment.title
        + (f", exercise {extension.slot.index + 1}" if extension.slot is not None else ""),
        "due_at": zones.words(extension.due_at, zone_name) or None,
        "extra_attempts": extension.extra_attempts,
        "waive_penalty": extension.waive_penalty,
    }


def affected(session: Session, extension: Extension) -> tuple[list[int], list[Slot]]:
    """The students and slots whose lateness an extension decides."""
    if extension.user_id is not None:
        users = [extension.user_id]
    else:
        users = list(
            session.scalars(
                sa.select(GroupMember.user_id).where(
                    GroupMember.course_id == extension.course_id,
                    GroupMember.name == extension.group_name,
                )
            )
        )
    slots = [extension.slot] if extension.slot is not None else list(extension.assignment.slots)
    return users, slots


def grant_in(
    session: Session, actor_id: int | None, course: Course, data: ExtensionInput
) -> Extension:
    """Stores an extension inside the caller's transaction (checked; Invalid says why not)."""
    assignment = session.get(Assignment, data.assignment_id)
    if assignment is None or assignment.course_id != course.id:
        raise NotFound("no such assignment in this course")
    slot, due = check_input(data, assignment)
    user = student_in(session, course.id, data.email) if data.email is not None else None
    group = None
    if data.group is not None:
        group = data.group.strip()[:100]
        if not session.scalar(
            sa.select(sa.func.count(GroupMember.id)).where(
                GroupMember.course_id == course.id, GroupMember.name == group
            )
        ):
            raise Invalid(f"the course has no group called {group!r}", field="group")
    extension = Extension(
        course_id=course.id,
        assignment=assignment,
        slot=slot,
        user_id=user.id if user else None,
        group_name=group,
        due_at=due,
        extra_attempts=data.extra_attempts,
        waive_penalty=data.waive_penalty,
        created_by_id=actor_id,
        created_at=utcnow(),
    )
    session.add(extension)
    session.flush()
    details = relate(session, *affected(session, extension))
    described = _describe(extension, user.email if user else None, course.timezone)
    audit_log.record(
        session,
        course.id,
        actor_id,
        f"Extension for {described['who']}: {described['where']}",
        {"extension": [None, described]},
        details,
        slot.id if slot is not None else None,
    )
    return extension


def grant(actor: User | None, course_id: int, data: ExtensionInput) -> Extension:
    """An extension granted by one of the course's instructors, or by the server's operator
    (`actor` None: `grader course extend`)."""
    if actor is not None:
        staff(actor, course_id, change=True)
    with writing() as session:
        course = course_in(session, course_id)
        return grant_in(session, actor.id if actor else None, course, data)


def remove(actor: User, course_id: int, extension_id: int) -> tuple[str, int]:
    """Removes an extension (instructors only); the students' lateness is recomputed. Its
    description, for the page's message, and its assignment's id."""
    staff(actor, course_id, change=True)
    with writing() as session:
        extension = session.get(Extension, extension_id)
        if extension is None or extension.course_id != course_id:
            raise NotFound("no such extension")
        course = session.get_one(Course, course_id)
        described = _describe(
            extension, extension.user.email if extension.user else None, course.timezone
        )
        users, slots = affected(session, extension)
        assignment_id = extension.assignment_id
        session.delete(extension)
        details = relate(session, users, slots)
        audit_log.record(
            session,
            course.id,
            actor.id,
            f"Extension removed for {described['who']}: {described['where']}",
            {"extension": [described, None]},
            details,
            extension.slot_id,
        )
    text = f"Removed the extension for {described['who']} on {described['where']}."
    return text, assignment_id


@dataclass(frozen=True)
class ExtensionRow:
    """An extension as staff pages list it."""

    id: int
    who: str
    assignment_id: int
    assignment: str
    slot: str | None
    due_at: dt.datetime | None
    extra_attempts: int
    waive_penalty: bool


def listing(actor: User, course_id: int, assignment_id: int | None = None) -> list[ExtensionRow]:
    """The course's extensions (or one assignment's), for its staff."""
    staff(actor, course_id)
    query = (
        sa.select(Extension, User.email)
        .outerjoin(User, Extension.user_id == User.id)
        .where(Extension.course_id == course_id)
        .order_by(Extension.assignment_id, Extension.id)
    )
    if assignment_id is not None:
        query = query.where(Extension.assignment_id == assignment_id)
    return [
        ExtensionRow(
            id=e.id,
            who=email or f"group {e.group_name}",
            assignment_id=e.assignment_id,
            assignment=e.assignment.title,
            slot=f"exercise {e.slot.index + 1} ({e.slot.name})" if e.slot is not None else None,
            due_at=e.due_at,
            extra_attempts=e.extra_attempts,
            waive_penalty=e.waive_penalty,
        )
        for e, email in db.session.execute(query)
    ]
