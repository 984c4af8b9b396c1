"""Accounts: creating users, passwords, sessions that can be revoked, personal API tokens with
scopes, joining courses. Every recovery step (a new password, signing out everywhere, a
forgot-password link) ends the account's sessions and API tokens through `_revoke_access`."""

# Whole: every way into an account ends in the one revocation, `_revoke_access`.

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import re
import secrets
from dataclasses import dataclass

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from flask import current_app
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import (
    ROLES,
    STUDENT,
    ApiToken,
    Course,
    Membership,
    PasswordReset,
    User,
    utcnow,
)
from grader.services import Conflict, Invalid, NotFound
from grader.services.transactions import writing

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
TOKEN_PREFIX = "abg_"
MIN_PASSWORD = 10
MAX_PASSWORD = 256  # argon2 hashes anything, but a login should not hash megabytes
TOKEN_DAYS = 90  # an API token's default lifetime
MAX_TOKEN_DAYS = 366
MAX_TOKENS = 20  # live tokens per account
#: What a token may do: `read` every GET of the API that is not staff's, `submit` answers,
#: practice exercises and engine uploads, `staff` the instructors' and TAs' routes (which the
#: account's course roles still decide). The API's routes each name the scope they need.
SCOPES = ("read", "submit", "staff")
DEFAULT_SCOPES = ("read",)  # least privilege: a token does only what its maker ticked
LAST_USE_EVERY = dt.timedelta(minutes=1)  # a token's last use is written at most this often


def _hasher() -> PasswordHasher:
    return PasswordHasher(**current_app.config["GRADER_ARGON2"])


def password_hash(password: str) -> str:
    return _hasher().hash(password)


def normalize_email(email: str) -> str:
    email = (email or "").strip().lower()
    if not _EMAIL.match(email) or len(email) > 254:
        raise Invalid(f"not an e-mail address: {email!r}", field="email")
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


def _revoke_access(session: Session, user_id: int) -> int:
    """Every way into the account made so far stops working: its sessions and remember cookies
    (the version they carry is raised), its API tokens and its unused forgot-password links
    (deleted). Says how many live tokens went. Every recovery step calls this, in its own
    transaction: a new password (account page, CLI, forgot-password link) and signing out
    everywhere (account page, CLI)."""
    now = utcnow()
    session.execute(
        sa.update(User).where(User.id == user_id).values(session_version=User.session_version + 1)
    )
    live = session.execute(
        sa.select(sa.func.count(ApiToken.id)).where(
            ApiToken.user_id == user_id, ApiToken.expires_at > now
        )
    ).scalar_one()
    session.execute(sa.delete(ApiToken).where(ApiToken.user_id == user_id))
    session.execute(
        sa.delete(PasswordReset).where(
            PasswordReset.user_id == user_id, PasswordReset.used_at.is_(None)
        )
    )
    return int(live)


def revoked_words(tokens: int) -> str:
    """What a recovery step did, in the words the page and the CLI both print."""
    if tokens == 0:
        return "every session was signed out (the account had no API token)"
    return (
        f"every session was signed out and {tokens} API token{'s' if tokens != 1 else ''} "
        f"{'were' if tokens != 1 else 'was'} revoked"
    )


def store_password(session: Session, user: User, password: str) -> int:
    """A new password inside the caller's transaction, revoking every way in made before it;
    returns how many live tokens went."""
    check_password(password, user.email)
    user.password_hash = _hasher().hash(password)
    user.claimable = False  # a way in: no invite claims it from now on
    return _revoke_access(session, user.id)


def set_password(user_id: int, password: str) -> int:
    """A new password; every session, remember cookie and API token of the account stops
    working. Returns how many live tokens were revoked."""
    with writing() as session:
        user = session.get(User, user_id)
        if user is None:
            raise NotFound("no such user")
        return store_password(session, user, password)


def change_password(user_id: int, current: str, new: str) -> tuple[User, int]:
    """The account page's change: the current password first. Revokes every session (the
    page signs its own browser in again) and every API token; returns the account and how
    many tokens went."""
    user = db.session.get(User, user_id)
    if user is None or authenticate(user.email, current) is None:
        raise Invalid("the current password is not right")
    revoked = set_password(user_id, new)
    return db.session.get_one(User, user_id), revoked


def set_admin(user_id: int, admin: bool) -> None:
    """Makes the account an administrator of the service (registers the LMSs), or no longer one.
    Only on the server (`grader user admin`): no page gives it. It holds from the next request
    (each request reads the account again)."""
    with writing() as session:
        user = session.get(User, user_id)
        if user is None:
            raise NotFound("no such user")
        user.is_admin = admin


def end_sessions(user_id: int) -> None:
    """Signing out: every session and remember cookie issued so far stops working (cookies are
    signed, not stored, so one browser's cannot end alone). API tokens stay: signing out of a
    browser is not a recovery step."""
    with writing() as session:
        session.execute(
            sa.update(User)
            .where(User.id == user_id)
            .values(session_version=User.session_version + 1)
        )


def revoke_access(user_id: int) -> int:
    """Sign out everywhere: every session, remember cookie and API token stops working.
    Returns how many live tokens were revoked."""
    with writing() as session:
        if session.get(User, user_id) is None:
            raise NotFound("no such user")
        return _revoke_access(session, user_id)


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


def parse_scopes(scopes: tuple[str, ...] | list[str]) -> str:
    """The stored form of a token's scopes (in `SCOPES` order), or Invalid naming the bad one."""
    chosen = set(scopes)
    unknown = sorted(chosen - set(SCOPES))
    if unknown:
        raise Invalid(f"no such scope: {unknown[0][:40]!r} (scopes: {', '.join(SCOPES)})")
    if not chosen:
        raise Invalid(f"a token needs at least one scope ({', '.join(SCOPES)})")
    return " ".join(scope for scope in SCOPES if scope in chosen)


def issue_token(
    user_id: int,
    name: str = "token",
    days: int = TOKEN_DAYS,
    scopes: tuple[str, ...] | list[str] = DEFAULT_SCOPES,
) -> str:
    """A new personal API token expiring in `days`, allowed only `scopes` (`SCOPES`); shown
    once, stored hashed."""
    name = (name or "").strip() or "token"
    if len(name) > 100:
        raise Invalid("a token's name has at most 100 characters")
    if not 1 <= days <= MAX_TOKEN_DAYS:
        raise Invalid(f"a token lives 1 to {MAX_TOKEN_DAYS} days")
    stored_scopes = parse_scopes(scopes)
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
                scopes=stored_scopes,
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


@dataclass(frozen=True)
class TokenUse:
    """Who a request's token speaks for, and what it may do."""

    user: User
    scopes: frozenset[str]


# Built once (every API request runs it): the unique index on the token's hash finds the row.
_USER_FOR_TOKEN = (
    sa.select(User, ApiToken.id, ApiToken.scopes, ApiToken.last_used_at)
    .join(ApiToken)
    .where(
        ApiToken.token_hash == sa.bindparam("token_hash"), ApiToken.expires_at > sa.bindparam("now")
    )
)


def user_for_token(token: str) -> TokenUse | None:
    """The account and scopes of a live token. Its last use is written when the one stored is
    a minute old or more (`LAST_USE_EVERY`): one write a minute per token in use, whatever its
    request rate, and none at the other requests."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 100:
        return None
    now = utcnow()
    row = db.session.execute(
        _USER_FOR_TOKEN, {"token_hash": _token_hash(token), "now": now}
    ).one_or_none()
    if row is None:
        return None
    user, token_id, scopes, last_used_at = row
    if last_used_at is None or now - last_used_at >= LAST_USE_EVERY:
        with writing() as session:  # two workers at once: the condition lets one write
            session.execute(
                sa.update(ApiToken)
                .where(
                    ApiToken.id == token_id,
                    sa.or_(
                        ApiToken.last_used_at.is_(None),
                        ApiToken.last_used_at <= now - LAST_USE_EVERY,
                    ),
                )
                .values(last_used_at=now),
            )
    return TokenUse(user=user, scopes=frozenset(scopes.split()))


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
