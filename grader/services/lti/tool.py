"""The tool's side of LTI 1.3 that pylti1p3 reads: the registered platforms and their
deployments, the tool's key pair, the launch data storage, HTTP with timeouts; the roles."""

from __future__ import annotations

import datetime as dt
import hashlib
import ipaddress
import os
import socket
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import requests
import sqlalchemy as sa
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pylti1p3.contrib.flask import FlaskMessageLaunch
from pylti1p3.deployment import Deployment
from pylti1p3.exception import LtiException
from pylti1p3.launch_data_storage.base import DisableSessionId, LaunchDataStorage
from pylti1p3.registration import Registration
from pylti1p3.tool_config.abstract import ToolConfAbstract
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from grader.extensions import db
from grader.models import (
    INSTRUCTOR,
    STUDENT,
    TA,
    LtiDeployment,
    LtiKey,
    LtiLaunchData,
    LtiRegistration,
    User,
    utcnow,
)
from grader.services import Conflict, Forbidden, Invalid, NotFound
from grader.services.transactions import writing

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
_URL_MAX = 500
# A platform's key set is fetched again on an id_token whose kid it lacks (the platform
# rotated its key), at most once in this many seconds per key set URL: forged kids cannot
# make the service hammer the LMS.
JWKS_REFETCH_SECONDS = 5
_NO_KEY = "Unable to find public key"


# -- roles -------------------------------------------------------------------------------------


def course_role(roles: list[Any]) -> str:
    """The membership role an LTI role list maps to: TeachingAssistant (LIS's sub-role of
    Instructor, so checked first) -> TA; Instructor or Administrator -> instructor; else student."""
    names = {str(r).rsplit("/", 1)[-1] for r in roles if isinstance(r, str)}
    if any(n.endswith("#TeachingAssistant") or n == "TeachingAssistant" for n in names):
        return TA
    if names & {
        "membership#Instructor",
        "Instructor",
        "membership#Administrator",
        "membership#ContentDeveloper",
    }:
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


class _Http(requests.Session):
    """requests, with a timeout on every call (pylti1p3 passes none: a platform that never
    answers would hold a web worker or a queue worker for ever)."""

    def request(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("timeout", HTTP_TIMEOUT)
        return super().request(*args, **kwargs)


class OutboundRefused(requests.exceptions.ConnectionError):
    """An outbound call to an address the service never calls (GRADER_LTI_ALLOW_PRIVATE=1
    lifts it for development and tests)."""


_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


def _judged(
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The address a packet to ``ip`` really reaches, as far as the address says: the IPv4
    address an IPv6 one wraps (IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96, NAT64
    64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32's client), else itself."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return ip
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if any(ip in network for network in _NAT64) or ip in _IPV4_COMPATIBLE:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def check_address(address: str, host: str, how: str = "resolves to") -> None:
    """OutboundRefused when ``address`` (an IP address ``host`` stands for), or the IPv4
    address it wraps, is loopback, private, link-local, reserved, multicast or otherwise not
    global."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    judged = _judged(ip)
    if any(not a.is_global or a.is_multicast for a in (ip, judged)):
        wraps = f" (which wraps {judged})" if judged != ip else ""
        raise OutboundRefused(f"{host} {how} {ip}{wraps}, an address the service never calls")


def public_address(host: str, port: int) -> str:
    """The address to connect to for `host`: refused if any address it resolves to is
    loopback, private, link-local, reserved or otherwise not global (`check_address`)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        raise OutboundRefused(f"{host} does not resolve: {error}") from error
    addresses = [str(info[4][0]) for info in infos]
    for address in addresses:
        check_address(address, host)
    if not addresses:
        raise OutboundRefused(f"{host} does not resolve")
    return addresses[0]


def _allow_private() -> bool:
    return os.environ.get("GRADER_LTI_ALLOW_PRIVATE") == "1"


def _checked_conn(
    connection: HTTPConnection, connect: Callable[[], socket.socket]
) -> socket.socket:
    """Resolves the host once, checks the address, connects to that very address (a second
    resolution could answer otherwise: DNS rebinding), then checks the address the socket is
    connected to before a byte is sent: what the service really reached, whatever routed it."""
    if _allow_private():
        return connect()
    host = connection._dns_host
    connection._dns_host = public_address(host, connection.port)
    sock = connect()
    try:
        check_address(str(sock.getpeername()[0]), host, "was reached at")
    except BaseException:
        sock.close()
        raise
    return sock


class _CheckedHTTPConnection(HTTPConnection):
    def _new_conn(self) -> socket.socket:
        return _checked_conn(self, super()._new_conn)


class _CheckedHTTPSConnection(HTTPSConnection):  # TLS still checks the name
    def _new_conn(self) -> socket.socket:
        return _checked_conn(self, super()._new_conn)


class _CheckedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _CheckedHTTPConnection


class _CheckedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _CheckedHTTPSConnection


class _CheckedAdapter(HTTPAdapter):
    """Every connection, redirects' included, goes through the checked connections, straight
    to the platform: never through a proxy, whose connections nothing here would check."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _CheckedHTTPPool,
            "https": _CheckedHTTPSPool,
        }

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        raise OutboundRefused("calls to a platform go straight to it, never through a proxy")


def http() -> requests.Session:
    """The one HTTP session for every call to a platform (key sets, tokens, scores, rosters).
    It reads nothing from the environment (no HTTP_PROXY, no .netrc): what it connects to is
    the platform's checked address alone."""
    session = _Http()
    session.trust_env = False
    session.mount("http://", _CheckedAdapter())
    session.mount("https://", _CheckedAdapter())
    session.headers["User-Agent"] = "alpha-beta-grader (LTI 1.3 tool)"
    return session


# -- pylti1p3's view of our registrations ------------------------------------------------------


def _registration(reg: LtiRegistration) -> Registration:
    key = tool_key()
    out = (
        Registration()
        .set_issuer(reg.issuer)
        .set_client_id(reg.client_id)
        .set_auth_login_url(reg.auth_login_url)
        .set_auth_token_url(reg.auth_token_url)
        .set_key_set_url(reg.key_set_url)
        .set_tool_private_key(key.private_pem)
        .set_tool_public_key(key.public_pem)
    )
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

    def find_registration_by_params(
        self, iss: str, client_id: str | None, *args: Any, **kwargs: Any
    ) -> Any:
        reg = _find_registration(iss, client_id)
        return _registration(reg) if reg else None

    def find_deployment(self, iss: str, deployment_id: str) -> Any:
        return self.find_deployment_by_params(iss, deployment_id, None)

    def find_deployment_by_params(
        self, iss: str, deployment_id: str, client_id: str | None, *args: Any, **kwargs: Any
    ) -> Any:
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
        return db.session.scalar(
            sa.select(LtiLaunchData.value).where(
                LtiLaunchData.key == self._prepare_key(key)[:255],
                LtiLaunchData.expires_at > utcnow(),
            )
        )

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        key = self._prepare_key(key)[:255]
        now = utcnow()
        with writing() as session:
            session.execute(
                sa.delete(LtiLaunchData).where(
                    sa.or_(LtiLaunchData.key == key, LtiLaunchData.expires_at <= now)
                )
            )
            seconds = min(exp or LAUNCH_DATA_SECONDS, LAUNCH_DATA_SECONDS)
            session.add(
                LtiLaunchData(key=key, value=value, expires_at=now + dt.timedelta(seconds=seconds))
            )

    def check_value(self, key: str) -> bool:
        return self.get_value(key) is not None


class RotationAwareLaunch(FlaskMessageLaunch):
    """pylti1p3's launch, which fetches the platform's key set again (once per launch, and
    at most once per JWKS_REFETCH_SECONDS per platform) when the id_token's kid is not in the
    cached set, where pylti1p3 alone would refuse until the cache expires."""

    _refetched = False

    def get_public_key(self) -> tuple[str, str]:
        try:
            return super().get_public_key()
        except LtiException as error:
            registration, storage = self._registration, self._public_key_cache_data_storage
            if str(error) != _NO_KEY or self._refetched or registration is None or storage is None:
                raise
            url = registration.get_key_set_url()
            if not url:
                raise
            self._refetched = True
            digest = hashlib.md5(url.encode("utf-8")).hexdigest()
            with DisableSessionId(storage):
                gate = "key-set-refetch-" + digest
                if storage.check_value(gate):
                    raise LtiException(
                        f"{_NO_KEY} (the platform's key set was fetched again less than "
                        f"{JWKS_REFETCH_SECONDS} s ago)"
                    ) from error
                storage.set_value(gate, True, JWKS_REFETCH_SECONDS)
                storage.set_value("key-set-url-" + digest, {}, 1)  # pylti1p3's cache key
            registration.set_key_set(None)
            return super().get_public_key()


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
