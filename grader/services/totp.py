"""The second factor: RFC 6238 time-based codes (pyotp) and single-use recovery codes.

Any account may enrol (from its account page: a QR code, then a code that confirms it); with
`GRADER_STAFF_TOTP=required` every staff account (an instructor or an administrator of the
service) must, and uses no staff page until it has. Signing in with a password then asks for a
code. A code is good once: the time step it belongs to is stored, and only a later one signs in
again. A recovery code (10 made at enrolment, stored as sha256) stands for one code, once.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import secrets

import pyotp
import sqlalchemy as sa
from flask import current_app
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import INSTRUCTOR, RecoveryCode, User, utcnow
from grader.services import Conflict, Forbidden, Invalid, NotFound
from grader.services.transactions import rows_changed, writing

ISSUER = "Alpha-Beta Grader"
DIGITS = 6
WINDOW = 1  # time steps either side of now: a phone's clock up to 30 s off still signs in
RECOVERY_CODES = 10
SETTINGS = ("optional", "required")  # GRADER_STAFF_TOTP
WRONG = "That code is not right (or was used already): try the next one your app shows."


def new_secret() -> str:
    """160 random bits in base32, as RFC 4226 recommends and authenticator apps read."""
    return pyotp.random_base32(32)


def _totp(secret: str, digits: int = DIGITS) -> pyotp.TOTP:
    return pyotp.TOTP(secret, digits=digits, issuer=ISSUER)


def provisioning_uri(secret: str, email: str) -> str:
    """The `otpauth://` URI an authenticator app reads from the QR code."""
    return _totp(secret).provisioning_uri(name=email, issuer_name=ISSUER)


def qr_svg(uri: str) -> str:
    """The URI as an inline SVG QR code (segno), dark on white whatever the page's colours."""
    import segno

    svg: str = segno.make(uri, error="m").svg_inline(
        scale=4, dark="#000", light="#fff", title="QR code for your authenticator app"
    )
    return svg


def matching_step(
    secret: str, code: str, at: float, after: int | None = None, digits: int = DIGITS
) -> int | None:
    """The time step (RFC 6238's T: seconds since the epoch over 30) within `WINDOW` steps of
    the time `at` whose code is `code`, taking only steps later than `after` (the last one
    used); None when there is none. The codes are pyotp's; the comparison takes constant time."""
    code = "".join(code.split())
    if len(code) != digits or not code.isdigit():
        return None
    totp = _totp(secret, digits)
    now = totp.timecode(dt.datetime.fromtimestamp(at, dt.UTC))
    for step in range(max(0, now - WINDOW), now + WINDOW + 1):
        if after is not None and step <= after:
            continue
        if pyotp.utils.strings_equal(totp.generate_otp(step), code):
            return step
    return None


def _now() -> float:
    return utcnow().replace(tzinfo=dt.UTC).timestamp()


def is_staff(user: User) -> bool:
    """Whose second factor the instance may require: instructors and administrators."""
    return user.role == INSTRUCTOR or user.is_admin


def required(user: User) -> bool:
    return current_app.config["GRADER_STAFF_TOTP"] == "required" and is_staff(user)


def missing(user: User) -> bool:
    """A staff account that must have a second factor and has none yet."""
    return required(user) and user.totp_secret is None


TOKEN_REFUSED = (
    "this service requires a second factor for staff accounts: set it up on the account page "
    "before making or using an API token"
)


def may_hold_tokens(user: User) -> None:
    """Refuses (Forbidden) a staff account that must enrol and has not: it may neither make an
    API token nor use one until it has (a `read` token reads its students' work)."""
    if missing(user):
        raise Forbidden(TOKEN_REFUSED)


def _recovery_hash(code: str) -> str:
    # 80 random bits each: a plain digest is enough, and finds the row.
    return hashlib.sha256("".join(code.lower().replace("-", "").split()).encode()).hexdigest()


def _new_recovery_codes(session: Session, user_id: int) -> list[str]:
    session.execute(sa.delete(RecoveryCode).where(RecoveryCode.user_id == user_id))
    codes = []
    for _ in range(RECOVERY_CODES):
        raw = base64.b32encode(secrets.token_bytes(10)).decode().lower()
        codes.append("-".join(raw[i : i + 4] for i in range(0, 16, 4)))
        session.add(RecoveryCode(user_id=user_id, code_hash=_recovery_hash(codes[-1])))
    return codes


def enrol(user_id: int, secret: str, code: str) -> list[str]:
    """Turns the second factor on with `secret` once `code` shows the app holds it; returns
    the recovery codes (shown once, stored hashed)."""
    step = matching_step(secret, code, _now())
    if step is None:
        raise Invalid(
            "That code does not match: check that the app added this account and that the "
            "phone's clock is right, then type the code it shows now."
        )
    with writing() as session:
        user = session.get(User, user_id)
        if user is None:
            raise NotFound("no such user")
        if user.totp_secret is not None:
            raise Conflict("this account has a second factor already: turn it off first")
        user.totp_secret = secret
        user.totp_last_step = step  # the confirming code cannot sign in too
        return _new_recovery_codes(session, user_id)


def check_code(user_id: int, code: str) -> str:
    """Signs in the second step: a code from the app not used before, or an unused recovery
    code. Says which ("code" or "recovery code"); Invalid (`WRONG`) otherwise."""
    user = db.session.get(User, user_id)
    if user is None or user.totp_secret is None:
        raise Invalid(WRONG)
    step = matching_step(user.totp_secret, code, _now(), after=user.totp_last_step)
    with writing() as session:
        if step is not None:
            # Two requests with one code: the condition lets only the first one through.
            used = rows_changed(
                session,
                sa.update(User)
                .where(
                    User.id == user_id,
                    sa.or_(User.totp_last_step.is_(None), User.totp_last_step < step),
                )
                .values(totp_last_step=step),
            )
            if used == 1:
                return "code"
            raise Invalid(WRONG)
        if len(code) > 64:
            raise Invalid(WRONG)
        spent = rows_changed(
            session,
            sa.update(RecoveryCode)
            .where(
                RecoveryCode.user_id == user_id,
                RecoveryCode.code_hash == _recovery_hash(code),
                RecoveryCode.used_at.is_(None),
            )
            .values(used_at=utcnow()),
        )
        if spent == 1:
            return "recovery code"
    raise Invalid(WRONG)


def recovery_codes_left(user_id: int) -> int:
    return int(
        db.session.execute(
            sa.select(sa.func.count(RecoveryCode.id)).where(
                RecoveryCode.user_id == user_id, RecoveryCode.used_at.is_(None)
            )
        ).scalar_one()
    )


def new_recovery_codes(user_id: int, code: str) -> list[str]:
    """A new set of recovery codes (the old ones stop working), after a current code."""
    check_code(user_id, code)
    with writing() as session:
        return _new_recovery_codes(session, user_id)


def turn_off(user_id: int, code: str) -> None:
    """Turns the second factor off, after a current code (or a recovery code); refused for a
    staff account where the instance requires it."""
    user = db.session.get(User, user_id)
    if user is None:
        raise NotFound("no such user")
    if required(user):
        raise Conflict("this service requires a second factor for staff accounts")
    check_code(user_id, code)
    reset(user_id)


def reset(user_id: int) -> None:
    """The second factor off, its recovery codes gone (the operator's `grader user
    second-factor-off`, for a lost phone; a page asks for a code first, `turn_off`)."""
    with writing() as session:
        if session.get(User, user_id) is None:
            raise NotFound("no such user")
        session.execute(
            sa.update(User).where(User.id == user_id).values(totp_secret=None, totp_last_step=None)
        )
        session.execute(sa.delete(RecoveryCode).where(RecoveryCode.user_id == user_id))
