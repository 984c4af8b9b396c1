"""Invites: the only proof of ownership a roster entry or a staff role accepts.

A roster add or import invites the person; the membership (and any staff role) is theirs when
they accept, signed in as the invited account. An address with no account gets one without a
password, and the invite made with it is its claim link (single use, expiring): it sets the first
password, and only while nobody has had a way into the account (`is_claim`). No other link ever
sets a password, so adding an account that exists (made by an LMS launch, or by another course's
roster and not yet claimed) hands nobody a way into it. Links go out by e-mail when
`GRADER_SMTP_*` is configured; otherwise the instructor downloads them (CSV) and hands them out.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import STUDENT, Course, Invite, LtiUser, Membership, User, utcnow
from grader.services import Forbidden, NotFound, accounts, mail
from grader.services.courses import zones
from grader.services.transactions import rows_changed, writing

INVITE_DAYS = 14


def _token(nonce: str) -> str:
    key = current_app.config["SECRET_KEY"].encode()
    return hmac.new(key, f"invite:{nonce}".encode(), hashlib.sha256).hexdigest()


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _lifetime() -> dt.timedelta:
    return dt.timedelta(days=current_app.config.get("GRADER_INVITE_DAYS", INVITE_DAYS))


def invite(
    session: Session,
    course_id: int,
    user: User,
    role: str,
    actor_id: int | None,
    *,
    claims: bool = False,
    name: str | None = None,
) -> Invite:
    """The pending invite of `user` to `role` in the course, made (or renewed) in `session`.

    A live one is kept, so the links already handed out keep working; an invite to another
    role in the same course is replaced, and keeps the claim its predecessor carried. `claims`
    only from the action that has just made the account."""
    now = utcnow()
    pending = session.scalars(
        sa.select(Invite).where(
            Invite.course_id == course_id, Invite.user_id == user.id, Invite.accepted_at.is_(None)
        )
    ).all()
    for found in pending:
        if found.role == role and found.expires_at > now:
            found.name = name or found.name
            return found
        claims = claims or found.claims
        name = name or found.name
        session.delete(found)
    nonce = secrets.token_hex(16)
    made = Invite(
        course_id=course_id,
        user=user,
        role=role,
        nonce=nonce,
        token_hash=_digest(_token(nonce)),
        created_by_id=actor_id,
        claims=claims,
        name=name,
        created_at=now,
        expires_at=now + _lifetime(),
    )
    session.add(made)
    return made


def is_claim(found: Invite) -> bool:
    """Whether this link sets the account's first password: it was made with the account, and
    nobody has had a way into the account since (no sign-in, password, API token or LMS
    identity). Any other link is accepted only signed in as the account."""
    owner = found.user
    return (
        found.claims
        and owner.claimable
        and owner.password_hash is None
        and db.session.scalar(sa.select(LtiUser.id).where(LtiUser.user_id == owner.id).limit(1))
        is None
    )


def withdraw(
    session: Session, course_id: int, user_id: int, roles: tuple[str, ...] | None = None
) -> None:
    """Deletes the user's pending invites to the course (of `roles`, or all)."""
    query = sa.delete(Invite).where(
        Invite.course_id == course_id, Invite.user_id == user_id, Invite.accepted_at.is_(None)
    )
    if roles is not None:
        query = query.where(Invite.role.in_(roles))
    session.execute(query)


@dataclass(frozen=True)
class Link:
    email: str
    name: str | None
    role: str
    token: str
    expires_at: dt.datetime


def link_of(found: Invite, name: str | None = None) -> Link:
    return Link(
        found.user.email, name or found.name, found.role, _token(found.nonce), found.expires_at
    )


def pending_links(course_id: int) -> list[Link]:
    """Every pending invite of the course as a link, expired ones renewed (a new link)."""
    now = utcnow()
    with writing() as session:
        found = session.execute(
            sa.select(Invite, Membership.name)
            .join(User, User.id == Invite.user_id)
            .outerjoin(
                Membership,
                sa.and_(
                    Membership.user_id == Invite.user_id, Membership.course_id == Invite.course_id
                ),
            )
            .where(Invite.course_id == course_id, Invite.accepted_at.is_(None))
            .order_by(User.email)
        ).all()
        for row, _name in found:
            if row.expires_at <= now:
                row.nonce = secrets.token_hex(16)
                row.token_hash = _digest(_token(row.nonce))
                row.created_at, row.expires_at = now, now + _lifetime()
    return [link_of(row, name) for row, name in found]


def pending(course_id: int) -> dict[int, Invite]:
    """The course's pending invites by user id (the roster page's status column)."""
    rows = db.session.scalars(
        sa.select(Invite).where(Invite.course_id == course_id, Invite.accepted_at.is_(None))
    )
    return {row.user_id: row for row in rows}


def by_token(token: str) -> Invite:
    """The live invite this link names; NotFound for a used, expired or unknown one."""
    found = db.session.scalar(
        sa.select(Invite)
        .where(
            Invite.token_hash == _digest(token or ""),
            Invite.accepted_at.is_(None),
            Invite.expires_at > utcnow(),
        )
        .options(sa.orm.joinedload(Invite.user), sa.orm.joinedload(Invite.course))
    )
    if found is None:
        raise NotFound(
            "this invite link is not valid: it was used, it expired, or it was "
            "withdrawn. Ask your instructor for a new one."
        )
    return found


def accept(token: str, user: User | None, password: str | None = None) -> User:
    """Accepts an invite: the membership gets the invite's role and the invite is used up.

    A claim link (`is_claim`) claims its account here (`password` sets it). Any other invite is
    accepted only signed in as its account (`user`), so that holding a link alone never takes
    over an account: one someone uses, one an LMS made, one another course's roster made."""
    found = by_token(token)
    owner = found.user
    if is_claim(found):
        if password is None:
            raise Forbidden("choose a password to claim this account")
        accounts.check_password(password, owner.email)
        password_hash = accounts.password_hash(password)
    elif user is None or user.id != owner.id:
        raise Forbidden(f"this invite is for {owner.email}: sign in as that account to accept")
    else:
        password_hash = None
    with writing() as session:
        # Used up under the write lock: a second use of the same link finds nothing.
        claimed = rows_changed(
            session,
            sa.update(Invite)
            .where(Invite.id == found.id, Invite.accepted_at.is_(None))
            .values(accepted_at=utcnow()),
        )
        if claimed != 1:
            raise NotFound("this invite link was just used")
        account = session.get_one(User, owner.id)
        if password_hash is not None:
            session.refresh(account)
            session.refresh(found)
            if not is_claim(found):
                raise NotFound("this account was just claimed")
            account.password_hash = password_hash
            account.claimable = False
            account.session_version += 1
        membership = session.scalar(
            sa.select(Membership).where(
                Membership.user_id == owner.id, Membership.course_id == found.course_id
            )
        )
        if membership is None:
            session.add(
                Membership(
                    user_id=owner.id, course_id=found.course_id, role=found.role, name=found.name
                )
            )
        else:
            membership.role = found.role
            membership.name = found.name or membership.name
    return account


def pending_for(user: User) -> list[Invite]:
    """The account's own live invitations to a student membership, with their courses: what its
    dashboard offers to accept. A staff role is accepted only through its link, which went to
    the address: being signed in to an account proves the account, not the mailbox (sign-up
    checks no address), so a squatter of a future TA's address collects no role."""
    return list(
        db.session.scalars(
            sa.select(Invite)
            .where(
                Invite.user_id == user.id,
                Invite.role == STUDENT,
                Invite.accepted_at.is_(None),
                Invite.expires_at > utcnow(),
            )
            .options(sa.orm.joinedload(Invite.course))
            .order_by(Invite.course_id)
        )
    )


def _offered(user: User, course_id: int) -> Invite:
    found = next((i for i in pending_for(user) if i.course_id == course_id), None)
    if found is None:
        raise NotFound("you have no pending invitation to this course")
    return found


def accept_offered(user: User, course_id: int) -> Course:
    """The signed-in account accepts a student invitation from its dashboard (`pending_for`),
    by the rule of `accept`."""
    found = _offered(user, course_id)
    accept(_token(found.nonce), user)
    return found.course


def decline(user: User, course_id: int) -> Course:
    """The account turns down a student invitation from its dashboard: its link stops working."""
    found = _offered(user, course_id)
    with writing() as session:
        withdraw(session, course_id, user.id, (STUDENT,))
    return found.course


def accept_as(user: User, course_id: int) -> None:
    """Accepts `user`'s pending invite to the course, any role, by the rule of `accept`: for
    callers that act as the account and hold what its link proves (the demo, for the accounts
    it made)."""
    found = pending(course_id).get(user.id)
    if found is None:
        raise NotFound(f"{user.email} has no pending invite to this course")
    accept(_token(found.nonce), user)


def send(links: list[Link], course: Course, url: Callable[[str], str]) -> int:
    """E-mails the links when SMTP is configured, within a time budget; returns how many
    went (the others stay on the roster page's download)."""
    if not links or not mail.configured():
        return 0
    messages = []
    for link in links:
        role = {"ta": "a TA", "instructor": "an instructor"}.get(link.role, "a student")
        body = (
            f"You are invited to {course.name} on Alpha-Beta Grader as {role}.\n\n"
            f"Open this link to accept (it works once, until "
            f"{zones.words(link.expires_at, course.timezone)}):\n\n{url(link.token)}\n\n"
            "If you have an account here already, sign in to it first (through your LMS, "
            "if that is how you sign in): an invitation never changes an account's password.\n"
        )
        messages.append((link.email, f"Invitation: {course.name}", body))
    return mail.send_many(messages)
