"""Accounts: creating users, passwords, sessions that can be revoked, personal API tokens,
joining courses."""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import re
import secrets

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from flask import current_app
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import ROLES, STUDENT, ApiToken, Course, Membership, User, utcnow
from grader.services import Conflict, Invalid, NotFound
from grader.services.transactions import writing

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
TOKEN_PREFIX = "abg_"
MIN_PASSWORD = 10
MAX_PASSWORD = 256  # argon2 hashes anything, but a login should not hash megabytes
TOKEN_DAYS = 90  # an API token's default lifetime
MAX_TOKEN_DAYS = 366
MAX_TOKENS = 20  # live tokens per account


def _hasher() -> PasswordHasher:
    return PasswordHasher(**current_app.config["GRADER_ARGON2"])


def password_hash(password: str) -> str:
    return _hasher().hash(password)


def normalize_email(email: str) -> str:
    email = (email or "").strip().lower()
    if not _EMAIL.match(email) or len(email) > 254:
        raise Invalid(f"not an e-mail address: {email!r}")
    return email


@functools.cache
def _common_passwords() -> frozenset[str]:
    """The 30,000 most common passwords of leaked lists, as zxcvbn ships them."""
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    return frozenset(FREQUENCY_LISTS["passwords"])


def check_password(password: str, email: str | None = None) -> None:
    """Refuses a password that is short, very long, common, or the e-mail address itself."""
    if len(password) < MIN_PASSWORD:
        raise Invalid(f"a password needs at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise Invalid(f"a password has at most {MAX_PASSWORD} characters")
    lowered = password.lower()
    if lowered in _common_passwords() or (
        email and lowered in {email.lower(), email.split("@")[0].lower()}
    ):
        raise Invalid(
            "this password is too common (it is in lists attackers try first); "
            "choose another, e.g. four unrelated words"
        )


def _token_hash(token: str) -> str:
    # Tokens are 256 random bits, so a plain digest is as good as a slow hash and allows a lookup.
    return hashlib.sha256(token.encode()).hexdigest()


def user_by_email(email: str) -> User | None:
    try:
        email = normalize_email(email)
    except Invalid:
        return None
    return db.session.scalar(sa.select(User).where(User.email == email))


def _new_user(session: Session, email: str, password: str | None, role: str) -> User:
    email = normalize_email(email)
    if role not in ROLES:
        raise Invalid(f"role must be one of {', '.join(ROLES)}")
    if password is not None:
        check_password(password, email)
    if session.scalar(sa.select(User.id).where(User.email == email)) is not None:
        raise Conflict(f"{email} already has an account")
    user = User(
        email=email,
        role=role,
        password_hash=_hasher().hash(password) if password is not None else None,
    )
    session.add(user)
    return user


def create_user(email: str, password: str | None, role: str = STUDENT) -> User:
    """A new account; without a password it can use only an API token until one is set."""
    with writing() as session:
        return _new_user(session, email, password, role)


def set_password(user_id: int, password: str) -> None:
    """A new password; every session and remember cookie of the account stops working."""
    with writing() as session:
        user = session.get(User, user_id)
        if user is None:
            raise NotFound("no such user")
        check_password(password, user.email)
        user.password_hash = _hasher().hash(password)
        user.claimable = False  # a way in: no invite claims it from now on
        user.session_version += 1


def change_password(user_id: int, current: str, new: str) -> User:
    """The account page's change: the current password first. Revokes every other session."""
    user = db.session.get(User, user_id)
    if user is None or authenticate(user.email, current) is None:
        raise Invalid("the current password is not right")
    set_password(user_id, new)
    return db.session.get_one(User, user_id)


def set_admin(user_id: int, admin: bool) -> None:
    """Makes the account an administrator of the service (registers the LMSs), or no longer one.
    Only on the server (`grader user admin`): no page gives it. It holds from the next request
    (each request reads the account again)."""
    with writing() as session:
        user = session.get(User, user_id)
        if user is None:
            raise NotFound("no such user")
        user.is_admin = admin


def revoke_sessions(user_id: int) -> None:
    """Sign out everywhere: every session and remember cookie issued so far stops working."""
    with writing() as session:
        session.execute(
            sa.update(User)
            .where(User.id == user_id)
            .values(session_version=User.session_version + 1)
        )


def signed_in(user: User) -> None:
    """Someone signed in to the account (any way: password, invite, LMS launch): no invite
    claims it from now on. Writes only the first time."""
    if user.claimable:
        with writing() as session:
            session.execute(sa.update(User).where(User.id == user.id).values(claimable=False))


def user_for_session(alternative_id: str) -> User | None:
    """The user a session or remember cookie names (`id:version`), if the version still holds."""
    user_id, _, version = alternative_id.partition(":")
    if not (user_id.isdigit() and version.isdigit()):
        return None
    user = db.session.get(User, int(user_id))
    if user is None or user.session_version != int(version):
        return None
    return user


def authenticate(email: str, password: str) -> User | None:
    """The user these credentials belong to, or None (same answer for unknown and wrong)."""
    user = user_by_email(email)
    if user is None or user.password_hash is None or len(password) > MAX_PASSWORD:
        _hasher().hash(password[:MAX_PASSWORD])  # spend the same time as a real check
        return None
    try:
        _hasher().verify(user.password_hash, password)
    except (VerificationError, InvalidHashError):
        return None
    return user


# -- personal API tokens -----------------------------------------------------------------------


def issue_token(user_id: int, name: str = "token", days: int = TOKEN_DAYS) -> str:
    """A new personal API token expiring in `days`; shown once, stored hashed."""
    name = (name or "").strip() or "token"
    if len(name) > 100:
        raise Invalid("a token's name has at most 100 characters")
    if not 1 <= days <= MAX_TOKEN_DAYS:
        raise Invalid(f"a token lives 1 to {MAX_TOKEN_DAYS} days")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    now = utcnow()
    with writing() as session:
        user = session.get(User, user_id)
        if user is None:
            raise NotFound("no such user")
        user.claimable = False  # a way in: no invite claims it from now on
        live = session.execute(
            sa.select(sa.func.count(ApiToken.id)).where(
                ApiToken.user_id == user_id, ApiToken.expires_at > now
            )
        ).scalar_one()
        if live >= MAX_TOKENS:
            raise Conflict(f"at most {MAX_TOKENS} live tokens: revoke one first")
        session.add(
            ApiToken(
                user_id=user_id,
                name=name,
                token_hash=_token_hash(token),
                created_at=now,
                expires_at=now + dt.timedelta(days=days),
            )
        )
    return token


def list_tokens(user_id: int) -> list[ApiToken]:
    """The account's tokens that have not expired, newest first (never the tokens themselves)."""
    return list(
        db.session.scalars(
            sa.select(ApiToken)
            .where(ApiToken.user_id == user_id, ApiToken.expires_at > utcnow())
            .order_by(ApiToken.id.desc())
        )
    )


def revoke_token(user_id: int, token_id: int) -> ApiToken:
    """Deletes one of the account's own tokens; someone else's is not found."""
    with writing() as session:
        found = session.scalar(
            sa.select(ApiToken).where(ApiToken.id == token_id, ApiToken.user_id == user_id)
        )
        if found is None:
            raise NotFound("no such token")
        session.delete(found)
    return found


# Built once (every API request runs it): the unique index on the token's hash finds the row.
_USER_FOR_TOKEN = (
    sa.select(User)
    .join(ApiToken)
    .where(
        ApiToken.token_hash == sa.bindparam("token_hash"), ApiToken.expires_at > sa.bindparam("now")
    )
)


def user_for_token(token: str) -> User | None:
    if not token.startswith(TOKEN_PREFIX) or len(token) > 100:
        return None
    return db.session.scalar(_USER_FOR_TOKEN, {"token_hash": _token_hash(token), "now": utcnow()})


def course_by_join_code(join_code: str) -> Course:
    course = db.session.scalar(
        sa.select(Course).where(Course.join_code == (join_code or "").strip().upper())
    )
    if course is None:
        raise NotFound("no course has this join code")
    if course.join_code_expires_at is not None and utcnow() >= course.join_code_expires_at:
        raise Conflict("this join code has expired; ask your instructor for the new one")
    return course


def signup(email: str, password: str, join_code: str) -> None:
    """A new student account, member of the course the join code names.

    An e-mail that already has an account (claimed or not) changes nothing and answers the
    same, so sign-up never tells whether an address is known: a roster entry is claimed only
    through its invite link, and an existing account joins from its dashboard.
    """
    course = course_by_join_code(join_code)
    email = normalize_email(email)
    check_password(password, email)
    password_hash = _hasher().hash(password)  # hashed either way: the same time for both
    with writing() as session:
        if session.scalar(sa.select(User.id).where(User.email == email)) is not None:
            return
        user = User(email=email, role=STUDENT, password_hash=password_hash)
        session.add(user)
        session.add(Membership(user=user, course_id=course.id, role=STUDENT))


def join_course(user_id: int, join_code: str) -> Course:
    course = course_by_join_code(join_code)
    with writing() as session:
        if (
            session.scalar(
                sa.select(Membership.id).where(
                    Membership.user_id == user_id, Membership.course_id == course.id
                )
            )
            is not None
        ):
            raise Conflict(f"already a member of {course.name}")
        session.add(Membership(user_id=user_id, course_id=course.id, role=STUDENT))
    return course
