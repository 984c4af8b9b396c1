"""Rosters: a course's join code, members and roles (staff roles through invites), a CSV import
of students, removing a member (attempts stay). `add_member` is the one way a person is added to
a course, from the dashboard and from the operator's command alike (courses are made by
`services.courses.courses.create_course`)."""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Callable
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import (
    COURSE_ROLES,
    INSTRUCTOR,
    STAFF_ROLES,
    STUDENT,
    Course,
    Invite,
    Membership,
    User,
    utcnow,
)
from grader.services import Forbidden, Invalid, NotFound, plural
from grader.services.accounts import normalize_email
from grader.services.courses import invites, zones
from grader.services.courses.courses import _join_code
from grader.services.courses.staff import Staff, staff
from grader.services.exports import csv_cell
from grader.services.transactions import writing

MAX_IMPORT_ROWS = 5000


def regenerate_join_code(user: User, course_id: int) -> str:
    """A new join code; the old one stops working at once. Clears any expiry."""
    staff(user, course_id, change=True)
    with writing() as session:
        course = session.get_one(Course, course_id)
        course.join_code = _join_code()
        course.join_code_expires_at = None
    return course.join_code


def expire_join_code(user: User, course_id: int, at: dt.datetime | None = None) -> Course:
    """The join code stops working at `at` (UTC; None: now)."""
    staff(user, course_id, change=True)
    with writing() as session:
        course = session.get_one(Course, course_id)
        course.join_code_expires_at = at or utcnow()
    return course


@dataclass(frozen=True)
class Member:
    user_id: int
    email: str
    name: str | None
    role: str  # "invited": not a member yet
    joined_at: dt.datetime | None
    invited_as: str | None = None  # a pending invite's role
    invite_expires_at: dt.datetime | None = None


def roster(user: User, course_id: int) -> tuple[Staff, list[Member]]:
    """The members, then the invited people who are not members yet. Nothing in it tells
    whether an invited address had an account, or how its owner signs in."""
    as_staff = staff(user, course_id)
    pending = invites.pending(course_id)
    rows = db.session.execute(
        sa.select(User, Membership)
        .join(Membership)
        .where(Membership.course_id == course_id)
        .order_by(Membership.role.desc(), User.email)
    )
    members = []
    for u, m in rows:
        found = pending.pop(u.id, None)
        members.append(
            Member(
                u.id,
                u.email,
                m.name,
                m.role,
                m.created_at,
                found.role if found else None,
                found.expires_at if found else None,
            )
        )
    members += [
        Member(i.user_id, i.user.email, i.name, "invited", None, i.role, i.expires_at)
        for i in sorted(pending.values(), key=lambda i: i.user.email)
    ]
    return as_staff, members


def _enrol(
    session: Session, course_id: int, email: str, role: str, name: str | None, actor_id: int | None
) -> tuple[str, Invite | None]:
    """Adds or updates one person; returns what happened and the invite to hand out, if any.

    Someone who is not a member is invited, whatever the address, and is a member once they
    accept: an unknown address gets an account without a password that only this invite claims
    (`User.claimable`, `Invite.claims`), a known one an invite its owner accepts signed in as
    themselves. Both answer "invited" with one link each, so the answer never tells whether the
    address had an account, and no link to an account that existed sets its password. A member
    becomes a student at once, and takes a staff role only through an invite they accept. The
    name belongs to this course's membership."""
    if role not in COURSE_ROLES:
        raise Invalid(f"role must be one of {', '.join(COURSE_ROLES)}, not {role!r}", field="role")
    email = normalize_email(email)
    found = session.scalar(sa.select(User).where(User.email == email))
    created = found is None
    user = User(email=email, role=STUDENT, claimable=True) if found is None else found
    if created:
        session.add(user)
        session.flush()
    membership = session.scalar(
        sa.select(Membership).where(
            Membership.user_id == user.id, Membership.course_id == course_id
        )
    )
    if membership is None:
        made = invites.invite(session, course_id, user, role, actor_id, claims=created, name=name)
        return "invited", made
    if name:
        membership.name = name
    if role != STUDENT:
        if membership.role == role:
            return "unchanged", None
        return "invited", invites.invite(session, course_id, user, role, actor_id)
    invites.withdraw(session, course_id, user.id, STAFF_ROLES)
    if membership.role != STUDENT:
        membership.role = STUDENT
        return "updated", None
    return "unchanged", None


def _send(course_id: int, made: list[Invite], url: Callable[[str], str] | None) -> int:
    if url is None:
        return 0
    return invites.send(
        [invites.link_of(i) for i in made], db.session.get_one(Course, course_id), url
    )


def add_member(
    user: User | None,
    course_id: int,
    email: str,
    role: str = STUDENT,
    name: str | None = None,
    url: Callable[[str], str] | None = None,
) -> str:
    """Adds one person under `_enrol`'s rule (someone new to the course is invited, and a
    member once they accept); `url` makes an invite's link (e-mailed when SMTP is configured).
    `user` is the staff member who asks, or None for the operator (`grader course add`, the
    demo), who holds the database already but adds people by the same rule."""
    if user is not None:
        staff(user, course_id, change=True)
    elif db.session.get(Course, course_id) is None:
        raise NotFound(f"no course {course_id}")
    with writing() as session:
        what, made = _enrol(
            session,
            course_id,
            email,
            role,
            (name or "").strip() or None,
            user.id if user is not None else None,
        )
    if made is not None and _send(course_id, [made], url):
        what += ", invite e-mailed"
    elif made is not None:
        what += ", invite link to hand out (roster: download invite links)"
    return what


@dataclass
class ImportResult:
    """What an import did, in the words of `_enrol` (never whether an address had an account)."""

    invited: int = 0
    updated: int = 0
    unchanged: int = 0
    invites: int = 0
    mailed: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def summary(self) -> str:
        text = (
            f"{self.invited} invited, {plural(self.updated, 'role')} changed, "
            f"{self.unchanged} already enrolled; {plural(self.invites, 'invite link')}"
        )
        text += f" ({self.mailed} e-mailed)" if self.mailed else ""
        return text


def import_students(
    user: User, course_id: int, text: str, url: Callable[[str], str] | None = None
) -> ImportResult:
    """Students from CSV: a header with `email` (and optionally `name`, `role`), or rows of
    `email[,name]`. All or nothing, the rule of the accommodations list too: with any bad row,
    nothing is imported (no invite made or sent) and each bad row is reported by its line."""
    staff(user, course_id, change=True)
    rows = list(csv.reader(io.StringIO(text or "")))
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise Invalid("the CSV is empty", field="text")
    if len(rows) > MAX_IMPORT_ROWS:
        raise Invalid(f"at most {MAX_IMPORT_ROWS} rows at a time", field="text")
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
    made: list[Invite] = []
    try:
        _import_rows(rows, first_line, (email_at, name_at, role_at), course_id, user, result, made)
    except _BadRows:
        return ImportResult(errors=result.errors)
    result.invites = len(made)
    result.mailed = _send(course_id, made, url)
    return result


class _BadRows(Exception):
    """An import with bad rows: its transaction rolls back whole."""


def _import_rows(
    rows: list[list[str]],
    first_line: int,
    columns: tuple[int | None, int | None, int | None],
    course_id: int,
    user: User,
    result: ImportResult,
    made: list[Invite],
) -> None:
    email_at, name_at, role_at = columns
    with writing() as session:
        for number, row in enumerate(rows, start=first_line):

            def cell(at: int | None, row: list[str] = row) -> str:
                return row[at].strip()[:200] if at is not None and at < len(row) else ""

            try:
                with session.begin_nested():  # a bad row rolls back alone
                    what, invite = _enrol(
                        session,
                        course_id,
                        cell(email_at),
                        cell(role_at).lower() or STUDENT,
                        cell(name_at) or None,
                        user.id,
                    )
            except (Invalid, sa.exc.IntegrityError) as error:
                result.errors.append(f"line {number}: {error}")
                continue
            setattr(result, what, getattr(result, what) + 1)
            if invite is not None:
                made.append(invite)
        if result.errors:
            raise _BadRows


def invite_links(user: User, course_id: int, url: Callable[[str], str]) -> str:
    """The course's pending invite links as CSV, one a person, to hand out (expired ones are
    renewed); `url` makes a link from its token."""
    zone_name = staff(user, course_id, change=True).course.timezone
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["email", "name", "role", "link", "expires_at"])
    for link in invites.pending_links(course_id):
        writer.writerow(
            [
                csv_cell(link.email),
                csv_cell(link.name or ""),
                link.role,
                url(link.token),
                # ISO 8601 in the course's zone, with its offset: a person and a program read it
                zones.iso(link.expires_at, zone_name),
            ]
        )
    return out.getvalue()


def set_role(user: User, course_id: int, member_id: int, role: str) -> str:
    staff(user, course_id, change=True)
    if member_id == user.id and role != INSTRUCTOR:
        raise Forbidden(
            "you cannot take away your own instructor role: another instructor of the course can"
        )
    if role not in COURSE_ROLES:
        raise Invalid(f"role must be one of {', '.join(COURSE_ROLES)}")
    with writing() as session:
        if role != STUDENT:  # a staff role only through an invite the account accepts
            target = session.get(User, member_id)
            if target is None or _membership(session, course_id, member_id).role == role:
                return "unchanged"
            invites.invite(session, course_id, target, role, user.id)
            return "invited"
        membership = _membership(session, course_id, member_id)
        invites.withdraw(session, course_id, member_id, STAFF_ROLES)
        membership.role = role
    return "updated"


def remove_member(user: User, course_id: int, member_id: int) -> str:
    """Ends the membership; the person's exercises and attempts are kept (re-adding them brings
    their grades back)."""
    staff(user, course_id, change=True)
    if member_id == user.id:
        raise Forbidden(
            "you cannot remove yourself from the course: another instructor of the course can"
        )
    with writing() as session:
        membership = session.scalar(
            sa.select(Membership).where(
                Membership.course_id == course_id, Membership.user_id == member_id
            )
        )
        invited = session.scalar(
            sa.select(Invite.id).where(
                Invite.course_id == course_id,
                Invite.user_id == member_id,
                Invite.accepted_at.is_(None),
            )
        )
        if membership is None and invited is None:
            raise NotFound("no such member")
        invites.withdraw(session, course_id, member_id)
        email = session.get_one(User, member_id).email
        if membership is not None:
            session.delete(membership)
    return email


def _membership(session: Session, course_id: int, member_id: int) -> Membership:
    membership = session.scalar(
        sa.select(Membership).where(
            Membership.course_id == course_id, Membership.user_id == member_id
        )
    )
    if membership is None:
        raise NotFound("no such member")
    return membership


def join_code_open(course: Course) -> bool:
    return course.join_code_expires_at is None or utcnow() < course.join_code_expires_at
