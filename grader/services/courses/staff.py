"""Who may use the instructor dashboard: a course's instructors (read and change) and TAs (read).

Every dashboard use case starts here, so the rule lives in one place: a course you are not in
does not exist (NotFound, 404); a student of it is refused (Forbidden, 403); a TA is refused
whatever changes grades, the roster, assignments or join codes.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from grader.extensions import db
from grader.models import INSTRUCTOR, STAFF_ROLES, Assignment, Course, Membership, Slot, User
from grader.services import Forbidden, NotFound


@dataclass(frozen=True)
class Staff:
    """A course and the caller's role in it, once the caller may see its dashboard."""

    course: Course
    user: User
    role: str

    @property
    def can_change(self) -> bool:
        return self.role == INSTRUCTOR


def course_role(user: User, course_id: int) -> tuple[Course, str | None]:
    course = db.session.get(Course, course_id)
    role = db.session.scalar(
        sa.select(Membership.role).where(
            Membership.course_id == course_id, Membership.user_id == user.id
        )
    )
    if course is None or role is None:
        raise NotFound("no such course")
    return course, role


def staff(user: User, course_id: int, *, change: bool = False) -> Staff:
    """The course if `user` teaches it; `change=True` also needs the instructor role."""
    course, role = course_role(user, course_id)
    if role not in STAFF_ROLES:
        raise Forbidden("only the course's instructors and TAs may see this")
    if change and role != INSTRUCTOR:
        raise Forbidden("only the course's instructors may change this (TAs only read)")
    return Staff(course, user, role)


def staff_for_assignment(
    user: User, assignment_id: int, *, change: bool = False
) -> tuple[Staff, Assignment]:
    assignment = db.session.get(Assignment, assignment_id)
    if assignment is None:
        raise NotFound("no such assignment")
    return staff(user, assignment.course_id, change=change), assignment


def staff_for_slot(
    user: User, assignment_id: int, index: int, *, change: bool = False
) -> tuple[Staff, Slot]:
    as_staff, assignment = staff_for_assignment(user, assignment_id, change=change)
    slot = next((s for s in assignment.slots if s.index == index), None)
    if slot is None:
        raise NotFound("no such exercise in this assignment")
    return as_staff, slot


def staff_courses(user: User) -> list[tuple[Course, str]]:
    """The courses `user` teaches or assists, with the role."""
    rows = db.session.execute(
        sa.select(Course, Membership.role)
        .join(Membership)
        .where(Membership.user_id == user.id, Membership.role.in_(STAFF_ROLES))
        .order_by(Course.id)
    )
    return [(course, role) for course, role in rows]


def may_open_dashboard(user: User) -> bool:
    """Instructor accounts (who may create courses) and anyone on a course's staff."""
    return user.is_instructor or bool(staff_courses(user))
