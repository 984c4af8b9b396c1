"""LTI 1.3 Advantage: the course's LMS launches this service and receives its grades.

pylti1p3 does the protocol (OIDC login, the id_token's signature against the platform's JWKS,
deployment and message checks, deep-linking replies, OAuth2 service tokens, AGS and NRPS); this
module gives it what it reads from us (the registrations in the database, the tool's key pair,
a launch data storage shared by every process) and turns a validated launch into accounts,
course memberships and resource links. A launch proves who the user is and what role the
platform gives them in its course, so the roles it provisions are legitimate.

Grades go back after commit through the queue (`lti_passback` in grader/jobs.py): a graded
attempt, an engine result or a regrade marks (student, slot) pairs on the session, and only a
committed transaction sends them; the job reads the credited score (late penalty applied) then.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests
import sqlalchemy as sa
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.deployment import Deployment
from pylti1p3.exception import LtiException
from pylti1p3.grade import Grade
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.lineitem import LineItem
from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.registration import Registration
from pylti1p3.service_connector import ServiceConnector
from pylti1p3.tool_config.abstract import ToolConfAbstract
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import (
    INSTRUCTOR,
    STUDENT,
    TA,
    Assignment,
    Course,
    LtiContext,
    LtiDeployment,
    LtiKey,
    LtiLaunchData,
    LtiNonce,
    LtiPassback,
    LtiRegistration,
    LtiResourceLink,
    LtiUser,
    Membership,
    Slot,
    User,
    utcnow,
)
from grader.services import Conflict, Forbidden, Invalid, NotFound
from grader.services.transactions import writing

log = logging.getLogger(__name__)

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
# OIDC state and nonces, and validated launches (deep linking reads its launch back): a login
# must finish, and an instructor place a link, within this; rows past it are deleted.
LAUNCH_DATA_SECONDS = 7_200
HTTP_TIMEOUT = (5, 20)  # seconds to connect, to read: every call to a platform
NONCE_SECONDS = 86_400  # a nonce is kept at least as long as any id_token may live
MAX_MEMBERS = 10_000  # NRPS: a platform's roster is read in pages up to this many members
MAX_PAGES = 100
_PENDING = "lti_passback"  # Session.info key: (user id, slot id) pairs to send after commit
RESEND_SECONDS = 120  # the sweep queues a score again when it is still waiting after this
MAX_FAILURES = 30  # refusals after which the sweep stops (about an hour); "resend" starts over
_URL_MAX = 500


# -- roles -------------------------------------------------------------------------------------

def course_role(roles: list[Any]) -> str:
    """The membership role an LTI role list maps to: TeachingAssistant (LIS's sub-role of
    Instructor, so checked first) -> TA; Instructor or Administrator -> instructor; else student."""
    names = {str(r).rsplit("/", 1)[-1] for r in roles if isinstance(r, str)}
    if any(n.endswith("#TeachingAssistant") or n == "TeachingAssistant" for n in names):
        return TA
    if names & {"membership#Instructor", "Instructor", "membership#Administrator",
                "membership#ContentDeveloper"}:
        return INSTRUCTOR
    return STUDENT


# -- the tool's key pair -----------------------------------------------------------------------

def tool_key() -> LtiKey:
    """The tool's key pair, generated on first use and kept in the database (every process
    and worker signs with it); two processes racing to make it keep the first one stored."""
    key = db.session.scalar(sa.select(LtiKey).order_by(LtiKey.id).limit(1))
    if key is not None:
        return key
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()).decode()
    public_pem = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    kid = Registration.get_jwk(public_pem)["kid"]
    try:
        with writing() as session:
            session.add(LtiKey(id=1, kid=kid, private_pem=private_pem, public_pem=public_pem))
    except sa.exc.IntegrityError:
        pass  # another process stored its key first: use that one
    return db.session.scalar(sa.select(LtiKey).order_by(LtiKey.id).limit(1))


def jwks() -> dict[str, Any]:
    """The tool's public keys, as platforms fetch them to check what the tool signs."""
    return {"keys": [Registration.get_jwk(tool_key().public_pem)]}


class _Http(requests.Session):
    """requests, with a timeout on every call (pylti1p3 passes none: a platform that never
    answers would hold a web worker or a queue worker for ever)."""

    def request(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        kwargs.setdefault("timeout", HTTP_TIMEOUT)
        return super().request(*args, **kwargs)


def http() -> requests.Session:
    session = _Http()
    session.headers["User-Agent"] = "alpha-beta-grader (LTI 1.3 tool)"
    return session


# -- pylti1p3's view of our registrations ------------------------------------------------------

def _registration(reg: LtiRegistration) -> Registration:
    key = tool_key()
    out = (Registration().set_issuer(reg.issuer).set_client_id(reg.client_id)
           .set_auth_login_url(reg.auth_login_url).set_auth_token_url(reg.auth_token_url)
           .set_key_set_url(reg.key_set_url).set_tool_private_key(key.private_pem)
           .set_tool_public_key(key.public_pem))
    if reg.auth_audience:
        out.set_auth_audience(reg.auth_audience)
    return out


def _find_registration(iss: str, client_id: str | None) -> LtiRegistration | None:
    query = sa.select(LtiRegistration).where(LtiRegistration.issuer == iss)
    if client_id:
        return db.session.scalar(query.where(LtiRegistration.client_id == client_id))
    found = list(db.session.scalars(query.limit(2)))
    return found[0] if len(found) == 1 else None  # no client id: only an unambiguous issuer


class ToolConf(ToolConfAbstract):
    """Registrations and deployments from the database; an issuer may have many client ids."""

    def check_iss_has_one_client(self, iss: str) -> bool:
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        return True

    def find_registration_by_issuer(self, iss: str, *args: Any, **kwargs: Any) -> Any:
        reg = _find_registration(iss, None)
        return _registration(reg) if reg else None

    def find_registration_by_params(self, iss: str, client_id: str | None, *args: Any,
                                    **kwargs: Any) -> Any:
        reg = _find_registration(iss, client_id)
        return _registration(reg) if reg else None

    def find_deployment(self, iss: str, deployment_id: str) -> Any:
        return self.find_deployment_by_params(iss, deployment_id, None)

    def find_deployment_by_params(self, iss: str, deployment_id: str, client_id: str | None,
                                  *args: Any, **kwargs: Any) -> Any:
        reg = _find_registration(iss, client_id)
        if reg is None or not any(d.deployment_id == deployment_id for d in reg.deployments):
            return None
        return Deployment().set_deployment_id(deployment_id)


class LaunchStorage(LaunchDataStorage):
    """pylti1p3's launch data storage in the database: the OIDC nonce and state, and validated
    launches, reach every web process (the browser session would not survive the LMS's
    cross-site POST). Over HTTPS pylti1p3 also keys them by its own `lti1p3-session-id` cookie
    (SameSite=None; Secure), as it recommends for launches inside an LMS."""

    def get_session_cookie_name(self) -> str | None:
        if self._request is None or not self._request.is_secure():
            return None  # a plain-HTTP cookie with SameSite=None would be refused anyway
        return super().get_session_cookie_name()

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_value(self, key: str) -> Any:
        return db.session.scalar(sa.select(LtiLaunchData.value).where(
            LtiLaunchData.key == self._prepare_key(key)[:255],
            LtiLaunchData.expires_at > utcnow()))

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        key = self._prepare_key(key)[:255]
        now = utcnow()
        with writing() as session:
            session.execute(sa.delete(LtiLaunchData).where(
                sa.or_(LtiLaunchData.key == key, LtiLaunchData.expires_at <= now)))
            seconds = min(exp or LAUNCH_DATA_SECONDS, LAUNCH_DATA_SECONDS)
            session.add(LtiLaunchData(key=key, value=value,
                                      expires_at=now + dt.timedelta(seconds=seconds)))

    def check_value(self, key: str) -> bool:
        return self.get_value(key) is not None


# -- registering a platform --------------------------------------------------------------------

def _url(value: str, what: str) -> str:
    value = (value or "").strip()
    parts = urlsplit(value)
    if parts.scheme not in ("https", "http") or not parts.netloc or len(value) > _URL_MAX:
        raise Invalid(f"{what} must be an http(s) URL of at most {_URL_MAX} characters")
    return value


def _text(value: str, what: str, limit: int = 255) -> str:
    value = (value or "").strip()
    if not value or len(value) > limit or any(ord(c) < 32 for c in value):
        raise Invalid(f"{what} must be 1 to {limit} printable characters")
    return value


def register(actor: User | None, *, issuer: str, client_id: str, auth_login_url: str,
             auth_token_url: str, key_set_url: str, deployment_ids: list[str],
             auth_audience: str | None = None, trust_emails: bool = False) -> LtiRegistration:
    """A new platform registration with its deployments (an instructor, or the CLI: None);
    only the CLI (an administrator) may trust the platform's e-mail addresses."""
    if actor is not None and not actor.is_instructor:
        raise Forbidden("only instructors may register an LMS")
    if actor is not None and trust_emails:
        raise Forbidden("only an administrator (grader lti register) may trust its e-mails")
    reg = LtiRegistration(
        issuer=_text(issuer, "the issuer"), client_id=_text(client_id, "the client id"),
        auth_login_url=_url(auth_login_url, "the authentication request URL"),
        auth_token_url=_url(auth_token_url, "the access token URL"),
        key_set_url=_url(key_set_url, "the platform's JWKS URL"),
        auth_audience=_url(auth_audience, "the token audience") if auth_audience else None,
        trust_emails=trust_emails, created_by_id=actor.id if actor else None)
    ids = sorted({_text(d, "a deployment id") for d in deployment_ids if d.strip()})
    if not ids:
        raise Invalid("give at least one deployment id")
    if len(ids) > 100:
        raise Invalid("at most 100 deployment ids")
    reg.deployments = [LtiDeployment(deployment_id=d) for d in ids]
    try:
        with writing() as session:
            session.add(reg)
    except sa.exc.IntegrityError:
        raise Conflict(f"{reg.issuer} with client id {reg.client_id} is already registered") \
            from None
    return reg


def add_deployment(actor: User | None, registration_id: int, deployment_id: str) -> None:
    reg = _owned_registration(actor, registration_id)
    deployment_id = _text(deployment_id, "the deployment id")
    try:
        with writing() as session:
            session.add(LtiDeployment(registration_id=reg.id, deployment_id=deployment_id))
    except sa.exc.IntegrityError:
        raise Conflict("this deployment is already registered") from None


def _owned_registration(actor: User | None, registration_id: int) -> LtiRegistration:
    reg = db.session.get(LtiRegistration, registration_id)
    if reg is None or (actor is not None and reg.created_by_id != actor.id):
        raise NotFound("no such registration")
    return reg


def registrations(actor: User | None) -> list[LtiRegistration]:
    """The registrations `actor` made (all of them for the CLI)."""
    if actor is not None and not actor.is_instructor:
        raise Forbidden("only instructors may register an LMS")
    query = sa.select(LtiRegistration).order_by(LtiRegistration.id)
    if actor is not None:
        query = query.where(LtiRegistration.created_by_id == actor.id)
    return list(db.session.scalars(query))


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
    account that has it here (any instructor may register a platform), so LTI identities get
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
    link = session.scalar(sa.select(LtiUser).where(LtiUser.registration_id == reg.id,
                                                   LtiUser.sub == sub))
    if link is not None:
        user = session.get(User, link.user_id)
    else:
        user = User(email=_email_for(session, reg, sub, email), role=STUDENT)
        session.add(user)
        session.flush()
        session.add(LtiUser(registration_id=reg.id, sub=sub, user_id=user.id))
    if _str(name, 200):
        user.name = _str(name, 200)
    return user


def _member(session: Session, user: User, course_id: int, role: str) -> None:
    membership = session.scalar(sa.select(Membership).where(
        Membership.user_id == user.id, Membership.course_id == course_id))
    if membership is None:
        session.add(Membership(user_id=user.id, course_id=course_id, role=role))
    else:
        membership.role = role  # the LMS's roster is the authority for its course


def _context(session: Session, reg: LtiRegistration, deployment_id: str,
             claim: dict[str, Any]) -> LtiContext:
    from grader.services.courses import _join_code

    context_id = _str(claim.get("id"))
    if context_id is None:
        raise Invalid("LTI launch refused: it names no course (context claim)")
    context = session.scalar(sa.select(LtiContext).where(
        LtiContext.registration_id == reg.id, LtiContext.context_id == context_id))
    title = _str(claim.get("title")) or _str(claim.get("label")) or f"LMS course {context_id}"
    if context is None:
        course = Course(name=title[:200], join_code=_join_code())
        session.add(course)
        session.flush()
        context = LtiContext(registration_id=reg.id, context_id=context_id,
                             course_id=course.id, deployment_id=deployment_id, title=title)
        session.add(context)
    context.title = title
    return context


def _service_url(value: Any) -> str | None:
    """A service endpoint from a claim: an http(s) URL that fits, else nothing."""
    if not isinstance(value, str):
        return None
    parts = urlsplit(value)
    ok = parts.scheme in ("https", "http") and parts.netloc and len(value) <= _URL_MAX
    return value if ok else None


def _service_urls(context: LtiContext, claims: dict[str, Any]) -> str | None:
    """Keeps the context's AGS and NRPS endpoints; the launch's own line item URL."""
    ags = claims.get(AGS_CLAIM)
    lineitem = None
    if isinstance(ags, dict):
        context.lineitems_url = _service_url(ags.get("lineitems")) or context.lineitems_url
        if isinstance(ags.get("scope"), list):
            context.ags_scopes = [s for s in ags["scope"] if isinstance(s, str)
                                  and len(s) <= 200][:10]
        lineitem = _service_url(ags.get("lineitem"))
    nrps = claims.get(NRPS_CLAIM)
    if isinstance(nrps, dict):
        context.memberships_url = (_service_url(nrps.get("context_memberships_url"))
                                   or context.memberships_url)
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
        reg = session.scalar(sa.select(LtiRegistration).where(
            LtiRegistration.issuer == claims.get("iss"), LtiRegistration.client_id == client_id))
        if reg is None:
            raise Invalid("LTI launch refused: unknown platform")
        now = utcnow()
        session.execute(sa.delete(LtiNonce).where(LtiNonce.expires_at <= now))
        session.add(LtiNonce(registration_id=reg.id, nonce=nonce,
                             expires_at=now + dt.timedelta(seconds=NONCE_SECONDS)))
        try:
            session.flush()
        except sa.exc.IntegrityError:
            raise Invalid("LTI launch refused: this launch was already used (nonce)") from None
        known = session.scalar(sa.select(LtiUser.id).where(
            LtiUser.registration_id == reg.id, LtiUser.sub == sub)) is not None
        user = _user(session, reg, sub, claims.get("email"), claims.get("name"))
        role = course_role(_claim(claims, "roles") or [])
        context_claim = _claim(claims, "context")
        context = _context(session, reg, deployment_id,
                           context_claim if isinstance(context_claim, dict) else {})
        context.deployment_id = deployment_id
        _member(session, user, context.course_id, role)
        lineitem = _service_urls(context, claims)
        assignment_id = slot_index = None
        deep_linking = _claim(claims, "message_type") == "LtiDeepLinkingRequest"
        resource = _claim(claims, "resource_link")
        link_id = _str(resource.get("id")) if isinstance(resource, dict) else None
        if link_id and not deep_linking:
            link = session.scalar(sa.select(LtiResourceLink).where(
                LtiResourceLink.context_id == context.id,
                LtiResourceLink.resource_link_id == link_id))
            if link is None:
                placed = _placed(session, context, _claim(claims, "custom"))
                if placed is not None:
                    link = LtiResourceLink(context_id=context.id, resource_link_id=link_id,
                                           assignment_id=placed[0], slot_id=placed[1])
                    session.add(link)
            if link is not None:
                if lineitem:
                    link.lineitem_url = lineitem
                session.flush()
                assignment_id = link.assignment_id
                slot_index = link.slot.index if link.slot is not None else None
        result = Launched(user.id, context.course_id, role, assignment_id, slot_index,
                          deep_linking, launch_id, new_account=not known)
    return result


# -- linking an LMS identity to an account made here before ---------------------------------

_RANK = {STUDENT: 0, TA: 1, INSTRUCTOR: 2}


def is_lti_account(user: User) -> bool:
    """An account a launch made (no password of its own)."""
    return user.password_hash is None and db.session.scalar(
        sa.select(LtiUser.id).where(LtiUser.user_id == user.id).limit(1)) is not None


def link_account(current: User, email: str, password: str) -> User:
    """Moves the LMS identities of `current`, an account a launch made, to the account these
    credentials open (proof of ownership): its course memberships come along (the higher role
    where both have one) and the launch-made account goes. Only while it has no work of its
    own (exercises, attempts, engine uploads), which cannot be merged."""
    from grader.models import Attempt, Exercise, Submission
    from grader.services.accounts import authenticate

    if not is_lti_account(current):
        raise Conflict("only an account made by an LMS launch can be linked")
    target = authenticate(email, password)
    if target is None or target.id == current.id:
        raise Invalid("wrong e-mail or password")
    if any(db.session.scalar(sa.select(column).where(owner == current.id).limit(1))
           for column, owner in ((Exercise.id, Exercise.owner_id),
                                 (Attempt.id, Attempt.user_id),
                                 (Submission.id, Submission.owner_id))):
        raise Conflict("this LMS account already has work here, so it cannot be merged")
    with writing() as session:
        session.execute(sa.update(LtiUser).where(LtiUser.user_id == current.id)
                        .values(user_id=target.id))
        theirs = {m.course_id: m for m in session.scalars(
            sa.select(Membership).where(Membership.user_id == target.id))}
        for membership in session.scalars(
                sa.select(Membership).where(Membership.user_id == current.id)):
            kept = theirs.get(membership.course_id)
            if kept is None:
                session.add(Membership(user_id=target.id, course_id=membership.course_id,
                                       role=membership.role))
            elif _RANK[membership.role] > _RANK.get(kept.role, 0):
                kept.role = membership.role
        target = session.get(User, target.id)
        if not target.name and current.name:
            target.name = current.name
        session.execute(sa.delete(Membership).where(Membership.user_id == current.id))
        session.execute(sa.delete(User).where(User.id == current.id))
    return target


# -- deep linking ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Choice:
    value: str  # "a:ID" (an assignment) or "s:ID:INDEX" (one of its exercises)
    label: str


def choices(user: User, course_id: int) -> list[Choice]:
    """What an instructor may place in the LMS from this course: each assignment, each slot."""
    from grader.services.staff import staff

    staff(user, course_id, change=True)
    out = []
    for assignment in db.session.scalars(sa.select(Assignment).where(
            Assignment.course_id == course_id).order_by(Assignment.id)):
        out.append(Choice(f"a:{assignment.id}", f"{assignment.title} (whole assignment, "
                                                f"{len(assignment.slots)} points)"))
        for slot in assignment.slots:
            kind = "engine" if slot.kind == "engine" else slot.kind
            out.append(Choice(f"s:{assignment.id}:{slot.index}",
                              f"{assignment.title}, exercise {slot.index + 1}: "
                              f"{slot.title or kind}"))
    return out


def _launch_context(message_launch: Any, course_id: int) -> LtiContext:
    """The context of a deep-linking launch, if it opens `course_id`."""
    claims = message_launch.get_launch_data()
    context = _claim(claims, "context") or {}
    found = db.session.scalar(sa.select(LtiContext).join(LtiRegistration).where(
        LtiRegistration.issuer == claims.get("iss"),
        LtiContext.context_id == str(context.get("id", ""))))
    if found is None or found.course_id != course_id or not message_launch.is_deep_link_launch():
        raise Forbidden("this deep-linking request is for another course")
    return found


def other_courses(user: User, course_id: int) -> list[Course]:
    """Courses the instructor teaches here that this LMS course could open instead."""
    from grader.services.staff import staff_courses

    return [c for c, role in staff_courses(user) if role == INSTRUCTOR and c.id != course_id]


def link_course(user: User, message_launch: Any, course_id: int, target_id: int) -> int:
    """Makes the LMS course open an existing course here (one the instructor built before)
    instead of the one its first launch made: members come along, and the made course goes
    when it has no assignment. Refused once links are placed (they name its assignments)."""
    from grader.services.staff import staff

    staff(user, course_id, change=True)
    staff(user, target_id, change=True)
    context = _launch_context(message_launch, course_id)
    with writing() as session:
        context = session.get(LtiContext, context.id)
        if session.scalar(sa.select(LtiResourceLink.id).where(
                LtiResourceLink.context_id == context.id).limit(1)) is not None:
            raise Conflict("links to this course are already placed in the LMS")
        members = set(session.scalars(sa.select(Membership.user_id).where(
            Membership.course_id == target_id)))
        for membership in session.scalars(sa.select(Membership).where(
                Membership.course_id == course_id)):
            if membership.user_id not in members:
                session.add(Membership(user_id=membership.user_id, course_id=target_id,
                                       role=membership.role))
        context.course_id = target_id
        session.flush()
        used = session.scalar(sa.select(Assignment.id).where(
            Assignment.course_id == course_id).limit(1)) or session.scalar(
            sa.select(LtiContext.id).where(LtiContext.course_id == course_id).limit(1))
        if used is None:
            session.execute(sa.delete(Membership).where(Membership.course_id == course_id))
            session.execute(sa.delete(Course).where(Course.id == course_id))
    return target_id


class _Resource(DeepLinkResource):
    def to_dict(self) -> dict[str, object]:
        item = super().to_dict()
        item["window"] = {"targetName": "_blank"}  # the pages refuse frames (clickjacking)
        return item


def deep_link_reply(user: User, message_launch: Any, course_id: int, choice: str,
                    launch_url: str) -> tuple[str, str]:
    """The platform's return URL and the signed LtiDeepLinkingResponse placing `choice`."""
    from grader.services.staff import staff

    staff(user, course_id, change=True)
    claims = message_launch.get_launch_data()
    _launch_context(message_launch, course_id)
    match = re.fullmatch(r"a:(\d+)|s:(\d+):(\d+)", choice or "")
    if not match:
        raise Invalid("choose an assignment or an exercise")
    assignment = db.session.get(Assignment, int(match.group(1) or match.group(2)))
    if assignment is None or assignment.course_id != course_id:
        raise NotFound("no such assignment in this course")
    custom = {"assignment_id": str(assignment.id), "slot": ""}
    title, points, resource_id = assignment.title, float(max(len(assignment.slots), 1)), \
        f"assignment-{assignment.id}"
    if match.group(3) is not None:
        slot = next((s for s in assignment.slots if s.index == int(match.group(3))), None)
        if slot is None:
            raise NotFound("no such exercise in this assignment")
        custom["slot"] = str(slot.index)
        title = f"{assignment.title}: {slot.title or f'exercise {slot.index + 1}'}"
        points, resource_id = 1.0, f"slot-{slot.id}"
    lineitem = (LineItem().set_label(title[:200]).set_score_maximum(points)
                .set_resource_id(resource_id).set_tag("alpha-beta-grader"))
    resource = (_Resource().set_url(launch_url).set_title(title[:200])
                .set_custom_params(custom).set_lineitem(lineitem))
    return_url = _return_url((claims.get(DL_SETTINGS) or {}).get("deep_link_return_url"))
    return return_url, message_launch.get_deep_link().get_response_jwt([resource])


_HOST = re.compile(r"[A-Za-z0-9.-]+(:[0-9]{1,5})?")


def _return_url(value: Any) -> str:
    """The platform's deep-linking return URL, if it is a plain http(s) URL: it becomes a form's
    action and, by its origin, the page's CSP `form-action`, which odd characters would widen."""
    url = _service_url(value)
    odd = url is None or re.search(r"[\s'\"<>;]", url)
    if odd or not _HOST.fullmatch(urlsplit(url).netloc):
        raise Invalid("the LMS sent no usable deep-linking return URL")
    return url


# -- grade passback (AGS) ----------------------------------------------------------------------

def passback_after_commit(session: Session, pairs: list[tuple[int, int | None]]) -> None:
    """Marks these (student, slot) scores for the LMS in the caller's transaction, and queues
    them once it commits; only slots placed in an LMS (nothing at all for other courses)."""
    slot_ids = {slot for _, slot in pairs if slot is not None}
    if not slot_ids:
        return
    placed = set(session.scalars(sa.select(Slot.id).where(
        Slot.id.in_(slot_ids), sa.or_(
            sa.exists().where(LtiResourceLink.slot_id == Slot.id),
            sa.exists().where(LtiResourceLink.assignment_id == Slot.assignment_id,
                              LtiResourceLink.slot_id.is_(None))))))
    wanted = sorted({(user, slot) for user, slot in pairs if slot in placed})
    if not wanted:
        return
    _mark(session, wanted, utcnow())
    session.info.setdefault(_PENDING, set()).update(wanted)


def _mark(session: Session, pairs: list[tuple[int, int]], now: dt.datetime) -> None:
    """One row per (student, slot), inserted or brought up to date in one statement (two
    concurrent transactions marking the same pair must not fail the student's request)."""
    rows = [{"user_id": u, "slot_id": s, "marked_at": now, "enqueued_at": now, "failures": 0}
            for u, s in pairs]
    dialect = session.get_bind().dialect.name
    if dialect in ("sqlite", "postgresql"):
        insert = sqlite.insert if dialect == "sqlite" else postgresql.insert
        for start in range(0, len(rows), 500):  # within SQLite's limit of bound parameters
            statement = insert(LtiPassback).values(rows[start:start + 500])
            session.execute(statement.on_conflict_do_update(
                index_elements=["user_id", "slot_id"],
                set_={"marked_at": statement.excluded.marked_at,
                      "enqueued_at": statement.excluded.enqueued_at, "failures": 0,
                      "error": None}))
        return
    for row in rows:  # other databases: read, then write, under the transaction's locks
        found = session.scalar(sa.select(LtiPassback).where(
            LtiPassback.user_id == row["user_id"], LtiPassback.slot_id == row["slot_id"]))
        if found is None:
            session.add(LtiPassback(**row))
        else:
            found.marked_at, found.enqueued_at, found.failures, found.error = now, now, 0, None


@sa.event.listens_for(Session, "after_commit")
def _send_pending(session: Session) -> None:
    pending = session.info.pop(_PENDING, None)
    if not pending:
        return
    from grader import jobs

    for user_id, slot_id in sorted(pending):
        try:
            jobs.enqueue_passback(user_id, slot_id)
        except Exception:  # the mark stays: the worker's sweep queues it again
            log.exception("could not enqueue the LTI score of user %s, slot %s", user_id, slot_id)


@sa.event.listens_for(Session, "after_rollback")
def _drop_pending(session: Session) -> None:
    session.info.pop(_PENDING, None)


def due_passbacks(now: dt.datetime | None = None) -> list[tuple[int, int]]:
    """Scores still waiting RESEND_SECONDS after their last wake-up (a lost message, a crash
    after the commit, a platform that refused): for the worker's sweep to queue again."""
    now = now or utcnow()
    due = sa.and_(LtiPassback.enqueued_at < now - dt.timedelta(seconds=RESEND_SECONDS),
                  LtiPassback.failures < MAX_FAILURES)
    with writing() as session:
        pairs = [tuple(row) for row in session.execute(
            sa.select(LtiPassback.user_id, LtiPassback.slot_id).where(due).limit(1000))]
        if pairs:
            session.execute(sa.update(LtiPassback).where(
                due, sa.tuple_(LtiPassback.user_id, LtiPassback.slot_id).in_(pairs))
                .values(enqueued_at=now))
    return pairs


def _slot_scores(course_id: int, assignment_id: int, user_id: int) -> dict[int, float | None]:
    """The student's credited score (late penalty applied) per slot of the assignment, as the
    gradebook counts it (its score policy, engines included)."""
    from grader.services.gradebook import engine_attempts, graded_attempts, policy_score

    assignment = db.session.get(Assignment, assignment_id)
    mine = [a for a in graded_attempts(course_id, assignment_id) + engine_attempts(course_id)
            if a.user_id == user_id and a.assignment_id == assignment_id]
    return {slot.id: policy_score([a for a in mine if a.slot_id == slot.id],
                                  assignment.score_policy) for slot in assignment.slots}


def _connector(reg: LtiRegistration) -> ServiceConnector:
    return ServiceConnector(_registration(reg), requests_session=http())


def send_scores(user_id: int, slot_id: int) -> int:
    """Posts the student's current score to every LMS line item showing this slot (its own
    link, or its assignment's); the number sent. Raises when a platform refuses (the job
    retries); each score is the whole current value, so a retry or a late duplicate is harmless."""
    mark = db.session.scalar(sa.select(LtiPassback.marked_at).where(
        LtiPassback.user_id == user_id, LtiPassback.slot_id == slot_id))
    slot = db.session.get(Slot, slot_id)
    if mark is None or slot is None:
        return 0  # already sent (a duplicate message), or the slot is gone
    links = list(db.session.execute(
        sa.select(LtiResourceLink, LtiContext, LtiUser.sub)
        .join(LtiContext, LtiResourceLink.context_id == LtiContext.id)
        .join(LtiUser, sa.and_(LtiUser.registration_id == LtiContext.registration_id,
                               LtiUser.user_id == user_id))
        .where(sa.or_(LtiResourceLink.slot_id == slot.id,
                      sa.and_(LtiResourceLink.assignment_id == slot.assignment_id,
                              LtiResourceLink.slot_id.is_(None))))
        .order_by(LtiResourceLink.id)))
    if not links:
        _sent(user_id, slot_id, mark)
        return 0
    scores = _slot_scores(slot.assignment.course_id, slot.assignment_id, user_id)
    sent = 0
    failures = []
    for link, context, sub in links:
        if link.slot_id is not None:
            given, maximum = scores.get(link.slot_id), 1.0
        else:
            values = [v for v in scores.values() if v is not None]
            given = sum(values) if values else None
            maximum = float(max(len(scores), 1))
        if given is None:
            continue
        try:
            _post_score(link, context, sub, given, maximum)
            sent += 1
        except Exception as error:  # one platform down does not stop the others
            failures.append(f"link {link.id}: {error}")
    if failures:
        message = "LTI score passback failed: " + "; ".join(failures)
        with writing() as session:
            session.execute(sa.update(LtiPassback).where(
                LtiPassback.user_id == user_id, LtiPassback.slot_id == slot_id)
                .values(failures=LtiPassback.failures + 1, error=message[:2000]))
        raise RuntimeError(message)
    _sent(user_id, slot_id, mark)
    return sent


def _sent(user_id: int, slot_id: int, mark: dt.datetime) -> None:
    """Done with this mark; a newer one (a change while this was sending) stays for its job."""
    with writing() as session:
        session.execute(sa.delete(LtiPassback).where(
            LtiPassback.user_id == user_id, LtiPassback.slot_id == slot_id,
            LtiPassback.marked_at <= mark))


def _post_score(link: LtiResourceLink, context: LtiContext, sub: str, given: float,
                maximum: float) -> None:
    scopes = context.ags_scopes or []
    if SCORE_SCOPE not in scopes:
        raise LtiException("the platform did not grant the AGS score scope")
    ags = AssignmentsGradesService(_connector(context.registration), {
        "scope": scopes, "lineitems": context.lineitems_url or "",
        "lineitem": link.lineitem_url or ""})
    lineitem = None
    if not link.lineitem_url:  # placed without a line item: find or make the column once
        title = link.slot.title if link.slot is not None else link.assignment.title
        lineitem = ags.find_or_create_lineitem(
            LineItem().set_label((title or link.assignment.title)[:200])
            .set_score_maximum(maximum).set_resource_link_id(link.resource_link_id)
            .set_resource_id(f"slot-{link.slot_id}" if link.slot_id
                             else f"assignment-{link.assignment_id}"))
        with writing():
            db.session.get(LtiResourceLink, link.id).lineitem_url = lineitem.get_id()
    stamp = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    grade = (Grade().set_score_given(round(given, 6)).set_score_maximum(maximum)
             .set_timestamp(stamp).set_activity_progress("Completed")
             .set_grading_progress("FullyGraded").set_user_id(sub))
    ags.put_grade(grade, lineitem)


def resend(actor: User | None, course_id: int) -> int:
    """Queues every student's score of the course's placed slots again (after an outage)."""
    from grader.services.staff import staff

    if actor is not None:
        staff(actor, course_id, change=True)
    rows = db.session.execute(
        sa.select(Membership.user_id, Slot.id).join(Assignment, Slot.assignment_id ==
                                                     Assignment.id)
        .join(Membership, Membership.course_id == Assignment.course_id)
        .where(Assignment.course_id == course_id, Membership.role == STUDENT)).all()
    with writing() as session:
        passback_after_commit(session, [(u, s) for u, s in rows])
        count = len(session.info.get(_PENDING, ()))
    return count


# -- roster sync (NRPS) ------------------------------------------------------------------------

@dataclass(frozen=True)
class Synced:
    added: int
    updated: int
    members: int


def sync_roster(actor: User | None, course_id: int) -> Synced:
    """Reads the LMS course's members (NRPS) and provisions their accounts and memberships."""
    from grader.services.staff import staff

    if actor is not None:
        staff(actor, course_id, change=True)
    contexts = list(db.session.scalars(sa.select(LtiContext).where(
        LtiContext.course_id == course_id, LtiContext.memberships_url.is_not(None))))
    if not contexts:
        raise Conflict("no LMS roster service is known for this course yet: launch it from "
                       "the LMS first")
    fetched: list[tuple[int, list[dict[str, Any]]]] = []
    for context in contexts:  # the platform is read before the write transaction starts
        try:
            fetched.append((context.id, _members(context)))
        except (LtiException, requests.RequestException, ValueError) as error:
            raise Conflict(f"the LMS refused the roster request: {error}"[:500]) from error
    added = updated = total = 0
    with writing() as session:
        for context_id, members in fetched:
            context = session.get(LtiContext, context_id)
            reg = context.registration
            for member in members:
                sub = _str(member.get("user_id"))
                if sub is None or member.get("status", "Active") != "Active":
                    continue
                total += 1
                user = _user(session, reg, sub, member.get("email"), member.get("name"))
                existed = session.scalar(sa.select(Membership.id).where(
                    Membership.user_id == user.id, Membership.course_id == context.course_id))
                _member(session, user, context.course_id, course_role(member.get("roles")
                                                                      or []))
                added, updated = (added, updated + 1) if existed else (added + 1, updated)
            context.synced_at = utcnow()
    return Synced(added, updated, total)


@dataclass(frozen=True)
class Undelivered:
    count: int
    error: str | None  # the latest refusal


def undelivered(course_id: int) -> Undelivered:
    """Scores of the course the LMS refused so far (the course's LMS page shows them)."""
    query = (sa.select(LtiPassback).join(Slot, LtiPassback.slot_id == Slot.id)
             .join(Assignment, Slot.assignment_id == Assignment.id)
             .where(Assignment.course_id == course_id, LtiPassback.failures > 0))
    count = db.session.scalar(sa.select(sa.func.count()).select_from(query.subquery()))
    latest = db.session.scalar(query.order_by(LtiPassback.marked_at.desc()).limit(1))
    return Undelivered(count or 0, latest.error if latest else None)


def _members(context: LtiContext) -> list[dict[str, Any]]:
    """The LMS course's members from NRPS, following its pages, within bounds."""
    nrps = NamesRolesProvisioningService(_connector(context.registration), {
        "context_memberships_url": context.memberships_url, "service_versions": ["2.0"]})
    members: list[dict[str, Any]] = []
    url: str | None = context.memberships_url
    for _ in range(MAX_PAGES):
        page, url = nrps.get_members_page(url)
        members.extend(m for m in page if isinstance(m, dict))
        if not url or len(members) >= MAX_MEMBERS:
            break
    return members[:MAX_MEMBERS]


def course_contexts(actor: User, course_id: int) -> list[LtiContext]:
    from grader.services.staff import staff

    staff(actor, course_id)
    return list(db.session.scalars(sa.select(LtiContext).where(
        LtiContext.course_id == course_id).order_by(LtiContext.id)))


__all__ = [
    "LaunchStorage",
    "ToolConf",
    "course_role",
    "deep_link_reply",
    "jwks",
    "passback_after_commit",
    "provision",
    "register",
    "send_scores",
    "sync_roster",
    "tool_key",
    "validate",
]
