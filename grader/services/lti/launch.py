"""A validated launch: the account (or its link to an account made here before), the course
membership with the LMS's role, the context and the resource link, with its nonce, at once."""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa
from pylti1p3.exception import LtiException
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import (
    INSTRUCTOR,
    STUDENT,
    TA,
    Assignment,
    Course,
    LtiContext,
    LtiNonce,
    LtiRegistration,
    LtiResourceLink,
    LtiUser,
    Membership,
    User,
    utcnow,
)
from grader.services import Conflict, Invalid
from grader.services.courses import zones
from grader.services.lti.claims import AGS_CLAIM, CLAIM, NRPS_CLAIM, course_role
from grader.services.lti.registrations import URL_MAX
from grader.services.transactions import writing

NONCE_SECONDS = 86_400  # a nonce is kept at least as long as any id_token may live


# -- a launch ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Launched:
    user_id: int
    course_id: int
    role: str
    assignment_id: int | None  # the placed assignment, if any
    slot_index: int | None  # the placed slot, if any
    deep_linking: bool
    launch_id: str
    new_account: bool = False  # this launch made the account
    unplaced_link: bool = False  # through an LMS link that opens nothing here yet


def validate(message_launch: Any) -> dict[str, Any]:
    """The launch's claims once pylti1p3 validated it (state, signature via the platform's
    JWKS, expiry, registration, deployment, message) and our own checks passed: the audience
    (pylti1p3 reads only its first entry) and the nonce, which pylti1p3 would accept again."""
    try:
        claims = dict(message_launch.get_launch_data())
    except LtiException as error:
        raise Invalid(f"LTI launch refused: {error}") from error
    client_id = message_launch.get_client_id()
    aud = claims.get("aud")
    auds = aud if isinstance(aud, list) else [aud]
    if client_id not in auds or (len(auds) > 1 and claims.get("azp") != client_id):
        raise Invalid("LTI launch refused: the token is not for this tool")
    return claims


def _claim(claims: dict[str, Any], name: str) -> Any:
    return claims.get(CLAIM + name)


def _str(value: Any, limit: int = 255) -> str | None:
    return value[:limit] if isinstance(value, str) and value else None


def _email_for(session: Session, reg: LtiRegistration, sub: str, email: Any) -> str:
    """The platform's e-mail if an administrator trusts the platform's addresses and no
    account here has it, else an address that cannot receive mail.

    Never an existing account's: a platform asserting an address does not prove it owns the
    account that has it here (a platform is only as honest as its admins), so LTI identities get
    their own accounts; a person links one to their account by logging in (`link_account`).
    """
    from grader.services.accounts import normalize_email

    if reg.trust_emails and isinstance(email, str):
        try:
            wanted = normalize_email(email)
        except Invalid:
            wanted = None
        if wanted and session.scalar(sa.select(User.id).where(User.email == wanted)) is None:
            return wanted
    digest = hashlib.sha256(f"{reg.id}:{sub}".encode()).hexdigest()[:20]
    return f"lti-{reg.id}-{digest}@lti.invalid"


def _user(session: Session, reg: LtiRegistration, sub: str, email: Any, name: Any) -> User:
    link = session.scalar(
        sa.select(LtiUser).where(LtiUser.registration_id == reg.id, LtiUser.sub == sub)
    )
    if link is not None:
        user = session.get_one(User, link.user_id)
    else:
        user = User(email=_email_for(session, reg, sub, email), role=STUDENT)
        session.add(user)
        session.flush()
        session.add(LtiUser(registration_id=reg.id, sub=sub, user_id=user.id))
    if _str(name, 200):
        user.name = _str(name, 200)
    return user


def _member(session: Session, user: User, course_id: int, role: str) -> None:
    membership = session.scalar(
        sa.select(Membership).where(
            Membership.user_id == user.id, Membership.course_id == course_id
        )
    )
    if membership is None:
        session.add(Membership(user_id=user.id, course_id=course_id, role=role))
    else:
        membership.role = role  # the LMS's roster is the authority for its course


def _context(
    session: Session, reg: LtiRegistration, deployment_id: str, claim: dict[str, Any]
) -> LtiContext:
    from grader.services.courses.courses import _join_code

    context_id = _str(claim.get("id"))
    if context_id is None:
        raise Invalid("LTI launch refused: it names no course (context claim)")
    context = session.scalar(
        sa.select(LtiContext).where(
            LtiContext.registration_id == reg.id, LtiContext.context_id == context_id
        )
    )
    title = _str(claim.get("title")) or _str(claim.get("label")) or f"LMS course {context_id}"
    if context is None:
        # A course the LMS makes is in the server's zone, as one made without a zone here.
        course = Course(name=title[:200], join_code=_join_code(), timezone=zones.server_zone())
        session.add(course)
        session.flush()
        context = LtiContext(
            registration_id=reg.id,
            context_id=context_id,
            course_id=course.id,
            deployment_id=deployment_id,
            title=title,
        )
        session.add(context)
    context.title = title
    return context


def _service_url(value: Any) -> str | None:
    """A service endpoint from a claim: an http(s) URL that fits, else nothing."""
    if not isinstance(value, str):
        return None
    parts = urlsplit(value)
    ok = parts.scheme in ("https", "http") and parts.netloc and len(value) <= URL_MAX
    return value if ok else None


def _service_urls(context: LtiContext, claims: dict[str, Any]) -> str | None:
    """Keeps the context's AGS and NRPS endpoints; the launch's own line item URL."""
    ags = claims.get(AGS_CLAIM)
    lineitem = None
    if isinstance(ags, dict):
        context.lineitems_url = _service_url(ags.get("lineitems")) or context.lineitems_url
        if isinstance(ags.get("scope"), list):
            context.ags_scopes = [s for s in ags["scope"] if isinstance(s, str) and len(s) <= 200][
                :10
            ]
        lineitem = _service_url(ags.get("lineitem"))
    nrps = claims.get(NRPS_CLAIM)
    if isinstance(nrps, dict):
        context.memberships_url = (
            _service_url(nrps.get("context_memberships_url")) or context.memberships_url
        )
    return lineitem


def _placed(session: Session, context: LtiContext, custom: Any) -> tuple[int, int | None] | None:
    """(assignment id, slot id) a deep-linked resource names, if it is of the context's course."""
    if not isinstance(custom, dict):
        return None
    assignment_id, slot = str(custom.get("assignment_id", "")), str(custom.get("slot", ""))
    if not assignment_id.isdigit():
        return None
    assignment = session.get(Assignment, int(assignment_id))
    if assignment is None or assignment.course_id != context.course_id:
        return None
    if not slot:
        return assignment.id, None
    found = next((s for s in assignment.slots if slot.isdigit() and s.index == int(slot)), None)
    return (assignment.id, found.id) if found else None


def provision(claims: dict[str, Any], launch_id: str) -> Launched:
    """The account, membership, context and resource link a validated launch describes, in one
    transaction with its nonce: a replayed id_token finds its nonce taken and changes nothing."""
    aud = claims.get("aud")
    client_id = aud[0] if isinstance(aud, list) else aud
    sub = _str(claims.get("sub"))
    nonce = _str(claims.get("nonce"))
    deployment_id = _str(_claim(claims, "deployment_id"))
    if sub is None or nonce is None or deployment_id is None:
        raise Invalid("LTI launch refused: no user (sub), nonce or deployment")
    with writing() as session:
        reg = session.scalar(
            sa.select(LtiRegistration).where(
                LtiRegistration.issuer == claims.get("iss"), LtiRegistration.client_id == client_id
            )
        )
        if reg is None:
            raise Invalid("LTI launch refused: unknown platform")
        now = utcnow()
        session.execute(sa.delete(LtiNonce).where(LtiNonce.expires_at <= now))
        session.add(
            LtiNonce(
                registration_id=reg.id,
                nonce=nonce,
                expires_at=now + dt.timedelta(seconds=NONCE_SECONDS),
            )
        )
        try:
            session.flush()
        except sa.exc.IntegrityError:
            raise Invalid("LTI launch refused: this launch was already used (nonce)") from None
        known = (
            session.scalar(
                sa.select(LtiUser.id).where(LtiUser.registration_id == reg.id, LtiUser.sub == sub)
            )
            is not None
        )
        user = _user(session, reg, sub, claims.get("email"), claims.get("name"))
        role = course_role(_claim(claims, "roles") or [])
        context_claim = _claim(claims, "context")
        context = _context(
            session, reg, deployment_id, context_claim if isinstance(context_claim, dict) else {}
        )
        context.deployment_id = deployment_id
        _member(session, user, context.course_id, role)
        lineitem = _service_urls(context, claims)
        assignment_id = slot_index = link = None
        deep_linking = _claim(claims, "message_type") == "LtiDeepLinkingRequest"
        resource = _claim(claims, "resource_link")
        link_id = _str(resource.get("id")) if isinstance(resource, dict) else None
        if link_id and not deep_linking:
            link = session.scalar(
                sa.select(LtiResourceLink).where(
                    LtiResourceLink.context_id == context.id,
                    LtiResourceLink.resource_link_id == link_id,
                )
            )
            if link is None:
                placed = _placed(session, context, _claim(claims, "custom"))
                if placed is not None:
                    link = LtiResourceLink(
                        context_id=context.id,
                        resource_link_id=link_id,
                        assignment_id=placed[0],
                        slot_id=placed[1],
                    )
                    session.add(link)
            if link is not None:
                if lineitem:
                    link.lineitem_url = lineitem
                session.flush()
                assignment_id = link.assignment_id
                slot_index = link.slot.index if link.slot is not None else None
        result = Launched(
            user.id,
            context.course_id,
            role,
            assignment_id,
            slot_index,
            deep_linking,
            launch_id,
            new_account=not known,
            unplaced_link=bool(link_id) and not deep_linking and link is None,
        )
    return result


# -- linking an LMS identity to an account made here before ---------------------------------

_RANK = {STUDENT: 0, TA: 1, INSTRUCTOR: 2}


def is_lti_account(user: User) -> bool:
    """An account a launch made (no password of its own)."""
    return (
        user.password_hash is None
        and db.session.scalar(sa.select(LtiUser.id).where(LtiUser.user_id == user.id).limit(1))
        is not None
    )


def link_account(current: User, email: str, password: str, code: str = "") -> User:
    """Moves the LMS identities of `current`, an account a launch made, to the account these
    credentials open (proof of ownership: its password, and a code where it has a second
    factor, since the LMS opens it without either from then on): its course memberships come
    along (the higher role where both have one) and the launch-made account goes. Only while
    it has no work of its own (exercises, attempts, engine uploads), which cannot be merged."""
    from grader.models import Attempt, Exercise, Submission
    from grader.services import totp
    from grader.services.accounts import authenticate

    if not is_lti_account(current):
        raise Conflict("only an account made by an LMS launch can be linked")
    target = authenticate(email, password)
    if target is None or target.id == current.id:
        raise Invalid("wrong e-mail or password")
    if target.totp_secret is not None:
        try:
            totp.check_code(target.id, code)
        except Invalid:
            raise Invalid(
                "that account has a second factor: type the code its app shows "
                "(or one of its recovery codes)"
            ) from None
    if any(
        db.session.scalar(sa.select(column).where(owner == current.id).limit(1))
        for column, owner in (
            (Exercise.id, Exercise.owner_id),
            (Attempt.id, Attempt.user_id),
            (Submission.id, Submission.owner_id),
        )
    ):
        raise Conflict("this LMS account already has work here, so it cannot be merged")
    with writing() as session:
        session.execute(
            sa.update(LtiUser).where(LtiUser.user_id == current.id).values(user_id=target.id)
        )
        theirs = {
            m.course_id: m
            for m in session.scalars(sa.select(Membership).where(Membership.user_id == target.id))
        }
        for membership in session.scalars(
            sa.select(Membership).where(Membership.user_id == current.id)
        ):
            kept = theirs.get(membership.course_id)
            if kept is None:
                session.add(
                    Membership(
                        user_id=target.id, course_id=membership.course_id, role=membership.role
                    )
                )
            elif _RANK[membership.role] > _RANK.get(kept.role, 0):
                kept.role = membership.role
        target = session.get_one(User, target.id)
        if not target.name and current.name:
            target.name = current.name
        session.execute(sa.delete(Membership).where(Membership.user_id == current.id))
        session.execute(sa.delete(User).where(User.id == current.id))
    return target
