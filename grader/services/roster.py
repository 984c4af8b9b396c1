"""Courses and rosters from the dashboard: creating a course, its join code, members and roles,
a CSV import of students, removing a member (their attempts stay)."""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass, field

import sqlalchemy as sa

from grader.extensions import db
from grader.models import COURSE_ROLES, INSTRUCTOR, STUDENT, Course, Membership, User, utcnow
from grader.services import Conflict, Forbidden, Invalid, NotFound
from grader.services.accounts import normalize_email
from grader.services.courses import _join_code
from grader.services.staff import Staff, staff
from grader.services.transactions import writing

MAX_IMPORT_ROWS = 5000


def create_course(user: User, name: str) -> Course:
    """A course taught by `user`, who needs an instructor account."""
    if not user.is_instructor:
        raise Forbidden("only instructor accounts create courses")
    name = (name or "").strip()
    if not name or len(name) > 200:
        raise Invalid("a course needs a name (at most 200 characters)")
    with writing() as session:
        course = Course(name=name, join_code=_join_code())
        session.add(course)
        session.add(Membership(user_id=user.id, course=course, role=INSTRUCTOR))
    return course


def regenerate_join_code(user: User, course_id: int) -> str:
    """A new join code; the old one stops working at once. Clears any expiry."""
    staff(user, course_id, change=True)
    with writing() as session:
        course = session.get(Course, course_id)
        course.join_code = _join_code()
        course.join_code_expires_at = None
    return course.join_code


def expire_join_code(user: User, course_id: int, at: dt.datetime | None = None) -> Course:
    """The join code stops working at `at` (UTC; None: now)."""
    staff(user, course_id, change=True)
    with writing() as session:
        course = session.get(Course, course_id)
        course.join_code_expires_at = at or utcnow()
    return course


@dataclass(frozen=True)
class Member:
    user_id: int
    email: str
    name: str | None
    role: str
    joined_at: dt.datetime
    has_password: bool


def roster(user: User, course_id: int) -> tuple[Staff, list[Member]]:
    who = staff(user, course_id)
    rows = db.session.execute(
        sa.select(User, Membership).join(Membership)
        .where(Membership.course_id == course_id)
        .order_by(Membership.role.desc(), User.email))
    return who, [Member(u.id, u.email, u.name, m.role, m.created_at, u.password_hash is not None)
                 for u, m in rows]


def _enrol(session, course_id: int, email: str, role: str, name: str | None) -> str:
    """Adds or updates one member; an unknown e-mail gets an account without a password, which
    its owner claims by signing up with the course's join code. Returns what happened."""
    if role not in COURSE_ROLES:
        raise Invalid(f"role must be one of {', '.join(COURSE_ROLES)}, not {role!r}")
    email = normalize_email(email)
    user = session.scalar(sa.select(User).where(User.email == email))
    created = user is None
    if created:
        user = User(email=email, role=STUDENT, name=name or None)
        session.add(user)
        session.flush()
    elif name and not user.name:
        user.name = name
    membership = session.scalar(sa.select(Membership).where(
        Membership.user_id == user.id, Membership.course_id == course_id))
    if membership is None:
        session.add(Membership(user_id=user.id, course_id=course_id, role=role))
        return "created" if created else "added"
    if membership.role != role:
        membership.role = role
        return "updated"
    return "unchanged"


def add_member(user: User, course_id: int, email: str, role: str = STUDENT,
               name: str | None = None) -> str:
    staff(user, course_id, change=True)
    with writing() as session:
        return _enrol(session, course_id, email, role, (name or "").strip() or None)


@dataclass
class ImportResult:
    created: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def summary(self) -> str:
        text = (f"{self.created} new accounts, {self.added} existing accounts added, "
                f"{self.updated} roles changed, {self.unchanged} already enrolled")
        return text + (f"; {len(self.errors)} rows skipped" if self.errors else "")


def import_students(user: User, course_id: int, text: str) -> ImportResult:
    """Students from CSV: a header with `email` (and optionally `name`, `role`), or rows of
    `email[,name]`. Bad rows are reported and skipped; the rest is imported in one transaction."""
    staff(user, course_id, change=True)
    rows = list(csv.reader(io.StringIO(text or "")))
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise Invalid("the CSV is empty")
    if len(rows) > MAX_IMPORT_ROWS:
        raise Invalid(f"at most {MAX_IMPORT_ROWS} rows at a time")
    header = [cell.strip().lower() for cell in rows[0]]
    if "email" in header or "e-mail" in header:
        columns = {name: i for i, name in enumerate(header)}
        email_at = columns.get("email", columns.get("e-mail"))
        name_at, role_at = columns.get("name"), columns.get("role")
        rows = rows[1:]
        first_line = 2
    else:
        email_at, name_at, role_at, first_line = 0, 1, None, 1
    result = ImportResult()
    with writing() as session:
        for number, row in enumerate(rows, start=first_line):
            def cell(at: int | None, row: list[str] = row) -> str:
                return row[at].strip() if at is not None and at < len(row) else ""
            try:
                with session.begin_nested():  # a bad row rolls back alone
                    what = _enrol(session, course_id, cell(email_at),
                                  cell(role_at).lower() or STUDENT, cell(name_at) or None)
            except (Invalid, sa.exc.IntegrityError) as error:
                result.errors.append(f"line {number}: {error}")
                continue
            setattr(result, what, getattr(result, what) + 1)
    return result


def set_role(user: User, course_id: int, member_id: int, role: str) -> None:
    staff(user, course_id, change=True)
    if member_id == user.id and role != INSTRUCTOR:
        raise Conflict("you cannot remove your own instructor role")
    if role not in COURSE_ROLES:
        raise Invalid(f"role must be one of {', '.join(COURSE_ROLES)}")
    with writing() as session:
        membership = _membership(session, course_id, member_id)
        membership.role = role


def remove_member(user: User, course_id: int, member_id: int) -> str:
    """Ends the membership; the person's exercises and attempts are kept (re-adding them brings
    their grades back)."""
    staff(user, course_id, change=True)
    if member_id == user.id:
        raise Conflict("you cannot remove yourself from the course")
    with writing() as session:
        membership = _membership(session, course_id, member_id)
        email = session.get(User, member_id).email
        session.delete(membership)
    return email


def _membership(session, course_id: int, member_id: int) -> Membership:
    membership = session.scalar(sa.select(Membership).where(
        Membership.course_id == course_id, Membership.user_id == member_id))
    if membership is None:
        raise NotFound("no such member")
    return membership


def join_code_open(course: Course) -> bool:
    return course.join_code_expires_at is None or utcnow() < course.join_code_expires_at
