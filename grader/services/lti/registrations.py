"""The platforms registered with this tool and their deployments, stored by an administrator,
and the tool's own key pair, which it signs with and platforms fetch."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pylti1p3.registration import Registration

from grader.extensions import db
from grader.models import LtiDeployment, LtiKey, LtiRegistration, User
from grader.services import Conflict, Forbidden, Invalid, NotFound
from grader.services.transactions import writing

URL_MAX = 500
#: At most this many origins an administrator adds to the ones a registration frames from.
FRAME_ORIGINS_MAX = 20
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
# https://host[:port], host a DNS name; a wildcard only as CSP allows one, the whole first label
# of a name with two labels or more after it (https://*.instructure.com, never https://*.com).
_FRAME_ORIGIN = re.compile(
    rf"https://(?:\*\.{_LABEL}(?:\.{_LABEL})+|{_LABEL}(?:\.{_LABEL})*)(?::[0-9]{{1,5}})?"
)


def tool_key() -> LtiKey:
    """The tool's key pair, generated on first use and kept in the database (every process
    and worker signs with it); two processes racing to make it keep the first one stored."""
    key = db.session.scalar(sa.select(LtiKey).order_by(LtiKey.id).limit(1))
    if key is not None:
        return key
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public_pem = (
        private.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    kid = Registration.get_jwk(public_pem)["kid"]
    try:
        with writing() as session:
            session.add(LtiKey(id=1, kid=kid, private_pem=private_pem, public_pem=public_pem))
    except sa.exc.IntegrityError:
        pass  # another process stored its key first: use that one
    return db.session.execute(sa.select(LtiKey).order_by(LtiKey.id).limit(1)).scalar_one()


def jwks() -> dict[str, Any]:
    """The tool's public keys, as platforms fetch them to check what the tool signs."""
    return {"keys": [Registration.get_jwk(tool_key().public_pem)]}


def _url(value: str, what: str) -> str:
    value = (value or "").strip()
    parts = urlsplit(value)
    if parts.scheme not in ("https", "http") or not parts.netloc or len(value) > URL_MAX:
        raise Invalid(f"{what} must be an http(s) URL of at most {URL_MAX} characters")
    return value


def frame_origins_from(values: list[str]) -> list[str]:
    """The origins, besides the issuer's and the authorization URL's, whose pages may frame the
    launched pages (cloud Canvas frames them from the school's host, https://school.instructure.com):
    each https://host[:port], with no path; a wildcard only as the whole first label. What a
    browser would take as more (a path, http, a bare `*`) is refused with words."""
    found: list[str] = []
    for raw in values:
        value = (raw or "").strip()
        if not value:
            continue
        origin = value.lower().removesuffix("/")
        if len(origin) > 255 or not _FRAME_ORIGIN.fullmatch(origin):
            raise Invalid(
                f"{value[:100]!r} is not an origin that may frame the tool: give "
                "https://host or https://host:port, with no path (a wildcard only as the whole "
                "first label, as in https://*.instructure.com)"
            )
        found.append(origin)
    found = list(dict.fromkeys(found))
    if len(found) > FRAME_ORIGINS_MAX:
        raise Invalid(f"at most {FRAME_ORIGINS_MAX} origins may frame the tool")
    return found


def _text(value: str, what: str, limit: int = 255) -> str:
    value = (value or "").strip()
    if not value or len(value) > limit or any(ord(c) < 32 for c in value):
        raise Invalid(f"{what} must be 1 to {limit} printable characters")
    return value


def register(
    actor: User | None,
    *,
    issuer: str,
    client_id: str,
    auth_login_url: str,
    auth_token_url: str,
    key_set_url: str,
    deployment_ids: list[str],
    auth_audience: str | None = None,
    trust_emails: bool = False,
    frame_origins: list[str] | None = None,
) -> LtiRegistration:
    """A new platform registration with its deployments, by an administrator: an account with
    `is_admin` (its page) or the server's operator (the CLI: None). Never an instructor's: the
    service's workers call the URLs a registration names."""
    _admin(actor)
    reg = LtiRegistration(
        issuer=_text(issuer, "the issuer"),
        client_id=_text(client_id, "the client id"),
        auth_login_url=_url(auth_login_url, "the authentication request URL"),
        auth_token_url=_url(auth_token_url, "the access token URL"),
        key_set_url=_url(key_set_url, "the platform's JWKS URL"),
        auth_audience=_url(auth_audience, "the token audience") if auth_audience else None,
        trust_emails=trust_emails,
        frame_origins=frame_origins_from(frame_origins or []),
        created_by_id=actor.id if actor else None,
    )
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
        raise Conflict(
            f"{reg.issuer} with client id {reg.client_id} is already registered"
        ) from None
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


def _admin(actor: User | None) -> None:
    if actor is not None and not actor.is_admin:
        raise Forbidden("only an administrator of this service registers an LMS")


def platforms(actor: User | None) -> list[LtiRegistration]:
    """Every registration, for an administrator (the page only they see, or the CLI)."""
    _admin(actor)
    return registrations(actor)


def registrations(actor: User | None) -> list[LtiRegistration]:
    """The registrations `actor` made (all of them for an administrator and the CLI)."""
    if actor is not None and not (actor.is_instructor or actor.is_admin):
        raise Forbidden("only instructors may connect an LMS")
    query = sa.select(LtiRegistration).order_by(LtiRegistration.id)
    if actor is not None and not actor.is_admin:
        query = query.where(LtiRegistration.created_by_id == actor.id)
    return list(db.session.scalars(query))
