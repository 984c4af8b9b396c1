"""LTI Dynamic Registration (1EdTech, 1.0): the LMS registers the tool itself.

An administrator makes a one-time registration URL; the LMS's administrator pastes it into the
LMS, which opens it with ``openid_configuration`` (the platform's OpenID configuration URL) and
``registration_token``. The tool then:

1. fetches the platform's OpenID configuration (through the checked outbound session, `http()`);
2. checks its ``issuer``: the configuration URL is the issuer's own (same origin, under its path);
3. posts its client registration (``https://purl.imsglobal.org/spec/lti-tool-configuration``)
   to the platform's ``registration_endpoint`` with the registration token;
4. stores the registration from the two answers: issuer, client id, deployment, key set and
   endpoints, none of them typed by anyone.

The page the LMS framed then asks it to close (``org.imsglobal.lti.close``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests
import sqlalchemy as sa

from grader.extensions import db
from grader.models import LtiDeployment, LtiRegistration, LtiRegistrationUrl, User, utcnow
from grader.services import Conflict, Invalid, NotFound
from grader.services.lti.claims import LINEITEM_SCOPE, NRPS_SCOPE, SCORE_SCOPE
from grader.services.lti.outbound import http
from grader.services.lti.registrations import _admin, _text, _url
from grader.services.transactions import rows_changed, writing

TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"
PLATFORM_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-platform-configuration"
RESULT_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
URL_DAYS = 7  # a registration URL serves once, within this many days
ANSWER_BYTES = 65_536  # the most read of a platform's configuration or registration answer
TOOL_NAME = "Alpha-Beta Grader"


@dataclass(frozen=True)
class ToolUrls:
    """The tool's own endpoints, as the request that registers it sees the service's address."""

    login: str
    launch: str
    jwks: str


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def make_url(actor: User | None) -> str:
    """A new one-time registration URL's secret (the page shows the whole URL once)."""
    _admin(actor)
    token = secrets.token_urlsafe(32)
    with writing() as session:
        session.add(
            LtiRegistrationUrl(
                token_hash=_digest(token),
                created_by_id=actor.id if actor else None,
                expires_at=utcnow() + dt.timedelta(days=URL_DAYS),
            )
        )
    return token


def pending_urls(actor: User | None) -> list[LtiRegistrationUrl]:
    """The registration URLs not used yet and not expired, newest first."""
    _admin(actor)
    return list(
        db.session.scalars(
            sa.select(LtiRegistrationUrl)
            .where(LtiRegistrationUrl.used_at.is_(None), LtiRegistrationUrl.expires_at > utcnow())
            .order_by(LtiRegistrationUrl.id.desc())
        )
    )


def withdraw_url(actor: User | None, url_id: int) -> None:
    """An unused registration URL made unusable."""
    _admin(actor)
    with writing() as session:
        if not rows_changed(
            session,
            sa.delete(LtiRegistrationUrl).where(
                LtiRegistrationUrl.id == url_id, LtiRegistrationUrl.used_at.is_(None)
            ),
        ):
            raise NotFound("no such unused registration URL")


def url_is_open(token: str) -> bool:
    """Whether `token` is a registration URL that may still be used (nothing claimed)."""
    return (
        db.session.scalar(
            sa.select(LtiRegistrationUrl.id).where(
                LtiRegistrationUrl.token_hash == _digest(token),
                LtiRegistrationUrl.used_at.is_(None),
                LtiRegistrationUrl.expires_at > utcnow(),
            )
        )
        is not None
    )


def _claim(token: str) -> LtiRegistrationUrl:
    """The URL, marked used in its own transaction (two LMS pages opening it at once: one
    wins); `_release` gives it back when the registration fails."""
    now = utcnow()
    with writing() as session:
        claimed = rows_changed(
            session,
            sa.update(LtiRegistrationUrl)
            .where(
                LtiRegistrationUrl.token_hash == _digest(token),
                LtiRegistrationUrl.used_at.is_(None),
                LtiRegistrationUrl.expires_at > now,
            )
            .values(used_at=now),
        )
    if not claimed:
        raise Invalid(
            "this registration URL was used already, has expired or was withdrawn: an "
            "administrator makes a new one on the service's LMS page"
        )
    return db.session.execute(
        sa.select(LtiRegistrationUrl).where(LtiRegistrationUrl.token_hash == _digest(token))
    ).scalar_one()


def _release(url_id: int) -> None:
    with writing() as session:
        session.execute(
            sa.update(LtiRegistrationUrl)
            .where(LtiRegistrationUrl.id == url_id, LtiRegistrationUrl.registration_id.is_(None))
            .values(used_at=None)
        )


def _json(response: requests.Response, what: str) -> dict[str, Any]:
    """The platform's JSON answer, read to at most ANSWER_BYTES (the response closed)."""
    body = b""
    with response:
        for chunk in response.iter_content(8192):
            body += chunk
            if len(body) > ANSWER_BYTES:
                raise Invalid(f"the platform's {what} is longer than {ANSWER_BYTES} bytes")
    if response.status_code >= 400:
        raise Invalid(f"the platform answered {response.status_code} to the {what} request")
    try:
        value = json.loads(body)
    except ValueError:
        raise Invalid(f"the platform's {what} is not JSON") from None
    if not isinstance(value, dict):
        raise Invalid(f"the platform's {what} is not a JSON object")
    return value


def _string(config: dict[str, Any], key: str, what: str) -> str:
    value = config.get(key)
    if not isinstance(value, str):
        raise Invalid(f"the platform's OpenID configuration has no {key} ({what})")
    return value


def check_issuer(issuer: str, configuration_url: str) -> None:
    """The configuration is the issuer's own: the same scheme, host and port, and its URL
    under the issuer's path (LTI Dynamic Registration, 3.5.1)."""
    mine, theirs = urlsplit(issuer), urlsplit(configuration_url)
    path = mine.path.rstrip("/")
    if (
        (mine.scheme, mine.netloc.lower()) != (theirs.scheme, theirs.netloc.lower())
        or mine.query
        or mine.fragment
        or not (theirs.path == path or theirs.path.startswith(path + "/"))
    ):
        raise Invalid(
            f"the platform's issuer {issuer!r} does not match the address of its OpenID "
            f"configuration ({configuration_url}): nothing was registered"
        )


def tool_configuration(urls: ToolUrls) -> dict[str, Any]:
    """The client registration the tool posts (OpenID Connect Dynamic Client Registration with
    LTI's tool configuration)."""
    return {
        "application_type": "web",
        "response_types": ["id_token"],
        "grant_types": ["implicit", "client_credentials"],
        "initiate_login_uri": urls.login,
        "redirect_uris": [urls.launch],
        "client_name": TOOL_NAME,
        "jwks_uri": urls.jwks,
        "token_endpoint_auth_method": "private_key_jwt",
        "scope": " ".join([LINEITEM_SCOPE, RESULT_SCOPE, SCORE_SCOPE, NRPS_SCOPE]),
        TOOL_CONFIGURATION: {
            "domain": urlsplit(urls.launch).netloc,
            "target_link_uri": urls.launch,
            "description": "Game-tree exercises and checkers engines, graded at once.",
            "claims": ["iss", "sub", "name", "given_name", "family_name", "email"],
            "messages": [
                {
                    "type": "LtiDeepLinkingRequest",
                    "target_link_uri": urls.launch,
                    "label": TOOL_NAME,
                },
                {"type": "LtiResourceLinkRequest", "target_link_uri": urls.launch},
            ],
        },
    }


def register(
    token: str, openid_configuration: str, registration_token: str | None, urls: ToolUrls
) -> LtiRegistration:
    """The tool registered with the platform that opened the one-time URL ``token``."""
    config_url = _url(openid_configuration, "openid_configuration")
    if registration_token is not None and len(registration_token) > 4096:
        raise Invalid("the registration token is longer than 4096 characters")
    claimed = _claim(token)
    try:
        creator = claimed.created_by_id and db.session.get(User, claimed.created_by_id)
        if not creator or not creator.is_admin:
            raise Invalid("the administrator who made this registration URL no longer is one")
        with http() as session:
            return _exchange(session, claimed.id, creator, config_url, registration_token, urls)
    except BaseException:
        _release(claimed.id)
        raise


def _exchange(
    session: requests.Session,
    url_id: int,
    creator: User,
    config_url: str,
    registration_token: str | None,
    urls: ToolUrls,
) -> LtiRegistration:
    try:
        config = _json(session.get(config_url, stream=True), "OpenID configuration")
    except requests.RequestException as error:
        raise Invalid(
            f"the platform's OpenID configuration could not be fetched: {error}"
        ) from None
    issuer = _text(_string(config, "issuer", "its issuer"), "the issuer")
    check_issuer(issuer, config_url)
    endpoint = _url(
        _string(config, "registration_endpoint", "where the tool registers"),
        "the registration endpoint",
    )
    auth_login_url = _url(
        _string(config, "authorization_endpoint", "the OIDC authentication URL"),
        "the authentication request URL",
    )
    auth_token_url = _url(
        _string(config, "token_endpoint", "the access token URL"), "the access token URL"
    )
    key_set_url = _url(_string(config, "jwks_uri", "the platform's key set"), "the JWKS URL")
    audience = config.get("authorization_server")
    headers = {"Accept": "application/json"}
    if registration_token:
        headers["Authorization"] = f"Bearer {registration_token}"
    try:
        answer = _json(
            session.post(endpoint, json=tool_configuration(urls), headers=headers, stream=True),
            "client registration",
        )
    except requests.RequestException as error:
        raise Invalid(f"the platform's registration endpoint failed: {error}") from None
    client_id = _text(str(answer.get("client_id") or ""), "the client id the platform gave")
    tool_config = answer.get(TOOL_CONFIGURATION)
    deployment = tool_config.get("deployment_id") if isinstance(tool_config, dict) else None
    reg = LtiRegistration(
        issuer=issuer,
        client_id=client_id,
        auth_login_url=auth_login_url,
        auth_token_url=auth_token_url,
        key_set_url=key_set_url,
        auth_audience=_url(audience, "the token audience") if isinstance(audience, str) else None,
        created_by_id=creator.id,
    )
    if deployment:
        reg.deployments = [LtiDeployment(deployment_id=_text(str(deployment), "the deployment id"))]
    try:
        with writing() as db_session:
            db_session.add(reg)
            db_session.flush()
            db_session.execute(
                sa.update(LtiRegistrationUrl)
                .where(LtiRegistrationUrl.id == url_id)
                .values(registration_id=reg.id)
            )
    except sa.exc.IntegrityError:
        raise Conflict(
            f"{issuer} with client id {client_id} is already registered: an administrator "
            "edits or deletes that registration on the service's LMS page"
        ) from None
    return reg
