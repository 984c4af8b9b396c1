"""A launch inside the LMS's frame: who may frame it, and what signs in the pages after it.

An LMS opens the tool in an iframe on its own site (Moodle's "Select content" modal, Canvas,
Brightspace by default). There the browser neither keeps nor sends the tool's cookies when it
blocks third-party cookies, so:

- the pages a launch leads to may be framed by the launching platform's origins, and only
  theirs, read from its registration (its issuer, its OIDC authorization endpoint and the
  origins an administrator added to it), never from the request (`platform_origins`);
- the OIDC state is kept in the platform's own storage through `postMessage` (1EdTech LTI
  Client-Side postMessages, Platform Storage) where the platform names a storage target: the
  login remembers it here (`remember_storage`), the launch asks the browser to read it back
  and `confirm_storage` checks it once;
- the pages after a launch are signed in by a launch token (`make_token`): signed with the
  service's secret, short-lived, naming the launch, its platform and the account's session
  version (a sign-out everywhere or a new password ends it as it ends a cookie).
"""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa
from flask import current_app
from itsdangerous import BadSignature, URLSafeTimedSerializer
from markupsafe import Markup

from grader.extensions import db
from grader.models import LtiRegistration
from grader.services import Invalid
from grader.services.lti.adapters import LAUNCH_DATA_SECONDS, LaunchStorage

#: A launch token signs the pages after a launch in for this long (an LMS page left open
#: longer is launched again from the LMS).
TOKEN_SECONDS = LAUNCH_DATA_SECONDS
_SALT = "lti-frame"
# A host[:port] that may stand in a CSP source list (no space, semicolon, comma or quote).
_ORIGIN_HOST = re.compile(r"[A-Za-z0-9.-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")
# What a platform may name as its storage frame: "_parent" or a frame's name.
_TARGET = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def origin_of(url: str) -> str | None:
    """scheme://host[:port] of an http(s) URL, if it can stand in a CSP source list."""
    parts = urlsplit(url)
    if parts.scheme in ("http", "https") and _ORIGIN_HOST.fullmatch(parts.netloc or ""):
        return f"{parts.scheme}://{parts.netloc}"
    return None


def registration_origins(reg: LtiRegistration) -> list[str]:
    """The origins a platform's pages are served from, as its registration says: its issuer's,
    its authorization URL's, and those an administrator added (cloud Canvas frames the tool from
    the school's host, which is neither)."""
    found = (origin_of(reg.issuer), origin_of(reg.auth_login_url), *(reg.frame_origins or []))
    return list(dict.fromkeys(o for o in found if o))


def platform_origins(registration_id: int) -> list[str]:
    reg = db.session.get(LtiRegistration, registration_id)
    return registration_origins(reg) if reg is not None else []


def auth_origin(registration_id: int) -> str:
    """The origin of the platform's OIDC authorization endpoint: its storage frame's, where
    the tool's `postMessage`s go (and the only origin whose answers it reads)."""
    reg = db.session.get(LtiRegistration, registration_id)
    return (origin_of(reg.auth_login_url) or "") if reg is not None else ""


def registration_id(issuer: str, client_id: str | None) -> int | None:
    """The registration an issuer (and client id, when given) names, if exactly one."""
    query = sa.select(LtiRegistration.id).where(LtiRegistration.issuer == issuer)
    if client_id:
        query = query.where(LtiRegistration.client_id == client_id)
    found = list(db.session.scalars(query.limit(2)))
    return found[0] if len(found) == 1 else None


# -- the launch token ---------------------------------------------------------------------


@dataclass(frozen=True)
class LaunchToken:
    session_id: str  # the account's `id:session_version`
    launch_id: str
    registration_id: int


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=_SALT)


def make_token(session_id: str, launch_id: str, reg_id: int) -> str:
    return str(_serializer().dumps([session_id, launch_id, reg_id]))


def read_token(token: str) -> LaunchToken | None:
    """The launch a token names, if its signature holds and it is younger than TOKEN_SECONDS."""
    try:
        value: Any = _serializer().loads(token[:1000], max_age=TOKEN_SECONDS)
    except BadSignature:  # also SignatureExpired
        return None
    if not (isinstance(value, list) and len(value) == 3):
        return None
    session_id, launch_id, reg_id = value
    if not (isinstance(session_id, str) and isinstance(launch_id, str) and isinstance(reg_id, int)):
        return None
    return LaunchToken(session_id, launch_id, reg_id)


def stale_token_platform(token: str) -> int | None:
    """The platform of a token this service signed that no longer serves (older than
    TOKEN_SECONDS): its frame may say so. None for a token it never signed."""
    try:
        value: Any = _serializer().loads(token[:1000])  # the signature, whatever its age
    except BadSignature:
        return None
    ok = isinstance(value, list) and len(value) == 3 and isinstance(value[2], int)
    return value[2] if ok else None


def csrf_secret(token: str) -> str:
    """The CSRF secret of the pages a launch token signs in (their forms' tokens are signed
    from it, as a cookie session's are from the one it keeps)."""
    key = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(key, b"lti-frame-csrf:" + token.encode(), "sha256").hexdigest()


# -- the messages a framed page flashes for the next ----------------------------------------

#: A flashed message as a session keeps it: (category, message).
Flash = tuple[str, str]


def kept_flashes(launch_id: str) -> list[Flash]:
    """The messages flashed under a launch's token that no page has shown yet (a framed page's
    session is its token, which no cookie carries to the next request)."""
    value = LaunchStorage().get_value(f"frame-flash-{launch_id}")
    if not isinstance(value, list):
        return []
    found: list[Flash] = []
    for item in value:
        if isinstance(item, list) and len(item) == 3:
            category, message, markup = item
            found.append((str(category), Markup(message) if markup else str(message)))
    return found


def keep_flashes(launch_id: str, flashes: list[Flash]) -> None:
    """The messages for the next page under this launch's token ([]: none left to show); the
    service's own markup stays markup, as in a cookie session."""
    value = [[c, str(m), isinstance(m, Markup)] for c, m in flashes]
    LaunchStorage().set_value(f"frame-flash-{launch_id}", value)


# -- the OIDC state in the platform's storage ------------------------------------------------


def storage_target(value: str | None) -> str | None:
    return value if value and _TARGET.fullmatch(value) else None


def remember_storage(state: str, target: str, again: str) -> None:
    """The login's state was handed to the platform's storage frame `target` (read back by
    `RotationAwareLaunch.validate_state`); `again` starts the same launch in a new window."""
    LaunchStorage().set_value(f"frame-state-{state}", {"target": target, "again": again})


def login_again(state: str) -> str | None:
    """The URL that starts the launch of this state again, in a new window."""
    value = LaunchStorage().get_value(f"frame-state-{state}")
    return value.get("again") if isinstance(value, dict) else None


def await_storage(launch_id: str, state: str) -> None:
    """A launch validated but for the browser's state, which the platform's storage holds."""
    LaunchStorage().set_value(f"frame-check-{launch_id}", state)


def confirm_storage(launch_id: str, state: str) -> None:
    """The state the browser read back from the platform's storage is the launch's: once."""
    storage = LaunchStorage()
    key = f"frame-check-{launch_id}"
    expected = storage.get_value(key)
    if not isinstance(expected, str) or not hmac.compare_digest(expected, state):
        raise Invalid("LTI launch refused: the LMS's storage does not hold this launch's state")
    storage.set_value(key, "", 1)  # used
