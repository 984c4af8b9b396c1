"""Accounts: a person's account, its API tokens, and the ways back in (a forgotten password, a
lost second factor)."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from flask_login import UserMixin
from sqlalchemy.orm import Mapped, mapped_column, relationship

from grader.models.base import Base, utcnow

STUDENT = "student"
INSTRUCTOR = "instructor"
TA = "ta"
ROLES = (STUDENT, INSTRUCTOR)


class User(UserMixin, Base):
    __tablename__ = "user"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(sa.String(254), unique=True)
    name: Mapped[str | None] = mapped_column(sa.String(200))  # from a roster import
    password_hash: Mapped[str | None] = mapped_column(sa.String(255))
    role: Mapped[str] = mapped_column(sa.String(16), default=STUDENT)
    # Part of every session and remember cookie (Flask-Login's alternative id): raising it
    # (sign out, sign out everywhere, a new password) makes every earlier cookie worthless.
    session_version: Mapped[int] = mapped_column(default=0, server_default="0")
    # An administrator of the service (given only on the server: `grader user admin`): registers
    # the LMSs, whose URLs the service's workers call. Not a course role.
    is_admin: Mapped[bool] = mapped_column(default=False, server_default="0")
    # True only for an account a roster action made, while nobody has had a way into it (no
    # sign-in, password, API token or LMS identity); the first of those turns it off for good.
    # Only such an account is claimed by an invite link, and only by the one its maker holds.
    claimable: Mapped[bool] = mapped_column(default=False, server_default="0")
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    # The second factor (RFC 6238 TOTP, base32), once its owner confirmed a code; None: none.
    totp_secret: Mapped[str | None] = mapped_column(sa.String(64))
    # The last time step whose code signed in: a code is good once, never again in its window.
    totp_last_step: Mapped[int | None] = mapped_column(sa.BigInteger)
    # Set when the account was erased (services/data/erasure.py): its personal data is gone, the
    # row stays only as the owner of anonymous attempts. None: a live account.
    erased_at: Mapped[dt.datetime | None]
    # The secret of the account's calendar feed URL (an HMAC of it under the secret key): a new
    # one (a reset) makes the old URL worthless. None: no feed made yet.
    calendar_nonce: Mapped[str | None] = mapped_column(sa.String(32))

    @property
    def is_instructor(self) -> bool:
        return self.role == INSTRUCTOR

    def get_id(self) -> str:
        return f"{self.id}:{self.session_version}"

    def __repr__(self) -> str:
        return f"<User {self.email} {self.role}>"


class ApiToken(Base):
    """A personal API token: stored as its sha256 (the token is shown once), with an expiry and
    the scopes it carries (`accounts.SCOPES`, space-separated)."""

    __tablename__ = "api_token"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(sa.String(100))
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[dt.datetime]
    # Written at most once a minute per token (`accounts.user_for_token`), not at every request.
    last_used_at: Mapped[dt.datetime | None]
    # A row made without scopes holds all three: what every token could do before tokens had
    # scopes (the service always names them for a new one).
    scopes: Mapped[str] = mapped_column(sa.String(64), server_default="read submit staff")

    user: Mapped[User] = relationship()


class PasswordReset(Base):
    """A forgot-password link: single use, expiring, stored as its sha256 (the link is only in
    the e-mail sent to the account's address)."""

    __tablename__ = "password_reset"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[dt.datetime]
    used_at: Mapped[dt.datetime | None]


class RecoveryCode(Base):
    """One of an account's single-use codes that stand for a TOTP code (a lost phone), stored
    as its sha256 (80 random bits each, so a plain digest is enough)."""

    __tablename__ = "recovery_code"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)
    code_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    used_at: Mapped[dt.datetime | None]
