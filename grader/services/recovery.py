"""Forgot password: a link by e-mail to the account's own address, single use and expiring.

Asking answers the same whatever the address (the caller shows one sentence for every case):
an unknown address gets no message, an account the LMS made (no password, an LTI identity) gets
one that says to sign in through the LMS, every other account a link. Using the link sets the
new password and revokes every session, API token and other link of the account
(`accounts.store_password`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from collections.abc import Callable

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import LtiUser, PasswordReset, User, utcnow
from grader.services import NotFound, accounts, mail
from grader.services.transactions import writing

Message = tuple[str, str, str]  # to, subject, body (what `mail.send_many` takes)

LINK_GONE = (
    "This password reset link is not valid: it was used already, it has expired, or a newer "
    "one was asked for. Ask for a new one."
)


def _hash(token: str) -> str:
    # 256 random bits: a plain digest is as good as a slow hash, and finds the row.
    return hashlib.sha256(token.encode()).hexdigest()


def lifetime() -> dt.timedelta:
    return dt.timedelta(minutes=current_app.config["GRADER_RESET_MINUTES"])


def request_reset(email: str, url: Callable[[str], str]) -> list[Message]:
    """The message to send for a forgot-password request (none for an unknown address), and
    for an account with a password, a new link (`url(token)`) that replaces any earlier one."""
    user = accounts.user_by_email(email)
    if user is None or not mail.configured():  # no link is made that no message could carry
        return []
    lms = db.session.scalar(sa.select(LtiUser.id).where(LtiUser.user_id == user.id).limit(1))
    if user.password_hash is None and lms is not None:
        return [
            (
                user.email,
                "Signing in to Alpha-Beta Grader",
                "Someone (you, we hope) asked to reset the password of this account on "
                "Alpha-Beta Grader.\n\nThis account has no password: it was made by your "
                "course's learning platform (LMS). Sign in through your LMS, from the course's "
                "link there, as you did before.\n\nIf you did not ask, ignore this message.\n",
            )
        ]
    with writing() as session:
        token, _ = new_link(session, user)
    minutes = int(lifetime().total_seconds() // 60)
    return [
        (
            user.email,
            "Reset your Alpha-Beta Grader password",
            "Someone (you, we hope) asked to reset the password of this account on Alpha-Beta "
            f"Grader.\n\nOpen this link to choose a new one. It works once, for {minutes} "
            f"minutes from when this message was sent:\n\n{url(token)}\n\n"
            "Choosing a new password signs the account out everywhere and revokes its API "
            "tokens.\n\nIf you did not ask, ignore this message: your password stays as it is.\n",
        )
    ]


def new_link(session: Session, user: User) -> tuple[str, dt.datetime]:
    """A new link's secret for the account, inside the caller's transaction, replacing any
    earlier live one (single use, expiring after `lifetime`), and when it expires."""
    token = secrets.token_urlsafe(32)
    now = utcnow()
    expires_at = now + lifetime()
    session.execute(
        sa.delete(PasswordReset).where(
            PasswordReset.user_id == user.id, PasswordReset.used_at.is_(None)
        )
    )
    session.add(
        PasswordReset(
            user_id=user.id, token_hash=_hash(token), created_at=now, expires_at=expires_at
        )
    )
    return token, expires_at


def _live(token: str) -> PasswordReset | None:
    if len(token) > 100:
        return None
    return db.session.scalar(
        sa.select(PasswordReset).where(
            PasswordReset.token_hash == _hash(token),
            PasswordReset.used_at.is_(None),
            PasswordReset.expires_at > utcnow(),
        )
    )


def check_link(token: str) -> User:
    """The account a live link is for; NotFound when used, expired, replaced or forged."""
    found = _live(token)
    if found is None:
        raise NotFound(LINK_GONE)
    return db.session.get_one(User, found.user_id)


def reset_password(token: str, password: str) -> tuple[User, int]:
    """Sets the new password through a live link, once: the link is spent and every session,
    API token and other link of the account is revoked. Returns the account and how many live
    tokens went."""
    accounts.check_password(password)  # before the lock; the e-mail rule is checked inside
    with writing() as session:
        found = session.scalar(
            sa.select(PasswordReset).where(
                PasswordReset.token_hash == _hash(token[:100]),
                PasswordReset.used_at.is_(None),
                PasswordReset.expires_at > utcnow(),
            )
        )
        if found is None:
            raise NotFound(LINK_GONE)
        user = session.get_one(User, found.user_id)
        found.used_at = utcnow()
        revoked = accounts.store_password(session, user, password)
    return db.session.get_one(User, user.id), revoked


def send(messages: list[Message]) -> int:
    """Sends them (`request_reset` makes none where SMTP is not configured)."""
    return mail.send_many(messages) if messages else 0
