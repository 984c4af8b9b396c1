"""Accounts: creating users, passwords, personal API tokens, joining courses."""

from __future__ import annotations

import hashlib
import re
import secrets

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from flask import current_app

from grader.extensions import db
from grader.models import INSTRUCTOR, ROLES, STUDENT, Course, Membership, User, utcnow
from grader.services import Conflict, Invalid, NotFound
from grader.services.transactions import writing

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
TOKEN_PREFIX = "abg_"
MIN_PASSWORD = 8


def _hasher() -> PasswordHasher:
    return PasswordHasher(**current_app.config["GRADER_ARGON2"])


def normalize_email(email: str) -> str:
    email = (email or "").strip().lower()
    if not _EMAIL.match(email) or len(email) > 254:
        raise Invalid(f"not an e-mail address: {email!r}")
    return email


def _check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise Invalid(f"a password needs at least {MIN_PASSWORD} characters")


def _token_hash(token: str) -> str:
    # Tokens are 256 random bits, so a plain digest is as good as a slow hash and allows a lookup.
    return hashlib.sha256(token.encode()).hexdigest()


def user_by_email(email: str) -> User | None:
    try:
        email = normalize_email(email)
    except Invalid:
        return None
    return db.session.scalar(sa.select(User).where(User.email == email))


def _new_user(session, email: str, password: str | None, role: str) -> User:
    email = normalize_email(email)
    if role not in ROLES:
        raise Invalid(f"role must be one of {', '.join(ROLES)}")
    if password is not None:
        _check_password(password)
    if session.scalar(sa.select(User.id).where(User.email == email)) is not None:
        raise Conflict(f"{email} already has an account")
    user = User(email=email, role=role,
                password_hash=_hasher().hash(password) if password is not None else None)
    session.add(user)
    return user


def create_user(email: str, password: str | None, role: str = STUDENT) -> User:
    """A new account; without a password it can use only an API token until one is set."""
    with writing() as session:
        return _new_user(session, email, password, role)


def set_password(user_id: int, password: str) -> None:
    _check_password(password)
    with writing() as session:
        user = session.get(User, user_id)
        if user is None:
            raise NotFound("no such user")
        user.password_hash = _hasher().hash(password)


def authenticate(email: str, password: str) -> User | None:
    """The user these credentials belong to, or None (same answer for unknown and wrong)."""
    user = user_by_email(email)
    if user is None or user.password_hash is None:
        _hasher().hash(password)  # spend the same time as a real check
        return None
    try:
        _hasher().verify(user.password_hash, password)
    except (VerificationError, InvalidHashError):
        return None
    return user


def issue_token(user_id: int) -> str:
    """A new personal API token, replacing the previous one; shown once, stored hashed."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with writing() as session:
        user = session.get(User, user_id)
        if user is None:
            raise NotFound("no such user")
        user.api_token_hash = _token_hash(token)
    return token


def user_for_token(token: str) -> User | None:
    if not token.startswith(TOKEN_PREFIX):
        return None
    return db.session.scalar(sa.select(User).where(User.api_token_hash == _token_hash(token)))


def course_by_join_code(join_code: str) -> Course:
    course = db.session.scalar(
        sa.select(Course).where(Course.join_code == (join_code or "").strip().upper()))
    if course is None:
        raise NotFound("no course has this join code")
    if course.join_code_expires_at is not None and utcnow() >= course.join_code_expires_at:
        raise Conflict("this join code has expired; ask your instructor for the new one")
    return course


def signup(email: str, password: str, join_code: str) -> User:
    """A student account, member of the course the join code names."""
    course = course_by_join_code(join_code)
    with writing() as session:
        # An account a roster import made (no password yet) is claimed by signing up.
        user = session.scalar(sa.select(User).where(
            User.email == normalize_email(email), User.password_hash.is_(None)))
        if user is None:
            user = _new_user(session, email, password, STUDENT)
        else:
            _check_password(password)
            user.password_hash = _hasher().hash(password)
        if session.scalar(sa.select(Membership.id).where(
                Membership.user_id == user.id, Membership.course_id == course.id)) is None:
            session.add(Membership(user=user, course_id=course.id, role=STUDENT))
    return user


def join_course(user_id: int, join_code: str) -> Course:
    course = course_by_join_code(join_code)
    with writing() as session:
        if session.scalar(sa.select(Membership.id).where(
                Membership.user_id == user_id, Membership.course_id == course.id)) is not None:
            raise Conflict(f"already a member of {course.name}")
        session.add(Membership(user_id=user_id, course_id=course.id, role=STUDENT))
    return course


def add_member(course_id: int, email: str, role: str | None = None) -> Membership:
    """Adds an existing user to a course; the role defaults to the user's own."""
    with writing() as session:
        user = session.scalar(sa.select(User).where(User.email == normalize_email(email)))
        if user is None:
            raise NotFound(f"no user {email}")
        if session.get(Course, course_id) is None:
            raise NotFound(f"no course {course_id}")
        role = role or (INSTRUCTOR if user.is_instructor else STUDENT)
        membership = session.scalar(sa.select(Membership).where(
            Membership.user_id == user.id, Membership.course_id == course_id))
        if membership is None:
            membership = Membership(user_id=user.id, course_id=course_id, role=role)
            session.add(membership)
        else:
            membership.role = role
    return membership
