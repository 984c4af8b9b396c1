"""What the page header says about the course a page belongs to: the caller's role in it, and
whether the caller has staff pages to reach at all (any course's TA or instructor, or an
instructor account), whatever their account-wide role."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from grader.extensions import db
from grader.models import STAFF_ROLES, Assignment, Course, Membership, User


@dataclass(frozen=True)
class Header:
    has_staff_pages: bool
    course: Course | None  # the page's course, where the caller is a member
    role: str | None  # the caller's role in it


ROLE_WORDS = {"student": "student", "ta": "TA", "instructor": "instructor"}


def header(user: User, course_id: int | None, assignment_id: int | None) -> Header:
    """The header of a page of course ``course_id`` (or of assignment ``assignment_id``'s)."""
    if course_id is None and assignment_id is not None:
        course_id = db.session.scalar(
            sa.select(Assignment.course_id).where(Assignment.id == assignment_id)
        )
    roles = {
        course: role
        for course, role in db.session.execute(
            sa.select(Membership.course_id, Membership.role).where(Membership.user_id == user.id)
        )
    }
    has_staff = user.is_instructor or any(r in STAFF_ROLES for r in roles.values())
    if course_id is None or course_id not in roles:
        return Header(has_staff, None, None)
    return Header(has_staff, db.session.get(Course, course_id), roles[course_id])
