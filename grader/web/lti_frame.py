"""The pages an LTI launch leads to, inside the LMS's frame (services/lti/frames.py).

- Framed where the LMS frames, nowhere else: the endpoints of `FRAMED`, reached with a launch
  token, say `frame-ancestors 'self'` and the launching platform's origins (from its
  registration); every other response keeps `frame-ancestors 'none'` and `X-Frame-Options:
  DENY` (web/site.py).
- Signed in without third-party cookies: a request carrying a launch token (`?lti_frame=` in
  its URL, or the `X-LTI-Frame` header) opens a session from it instead of the cookie: the
  account the launch signed in, and a CSRF secret derived from the token, so the pages' forms
  and the API's writes keep their CSRF tokens. Such a session sets no cookie; the URLs the
  framed pages make (links, forms, redirects, the API's URLs) carry the token.
- Clickjacking: only the platform that launched may frame these pages (the browser enforces
  `frame-ancestors`), and a page of `FRAMED` reached without a launch token refuses every frame.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from flask import Flask, Request, g, make_response, render_template, request, url_for
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from flask_login import current_user
from pylti1p3.contrib.flask import FlaskOIDCLogin, FlaskRequest
from pylti1p3.contrib.flask.redirect import FlaskRedirect

from grader.services import lti
from grader.services.lti import frames
from grader.web.site import CSP

PARAM = "lti_frame"
HEADER = "X-LTI-Frame"

#: The pages a launch leads to: deep linking and its reply, a link's setup, the launched
#: assignment and exercise pages, an engine slot's page, its upload and results.
FRAMED = frozenset(
    {
        "lti.deep_link",
        "lti.deep_link_new",
        "lti.link_course",
        "lti.setup",
        "lti.course",
        "pages.dashboard",
        "pages.assignment",
        "pages.slot",
        "pages.exercise",
        "pages.another",
        "engines.slot_page",
        "engines.upload",
        "engines.submission_page",
        "engines.submission_timing",
        "engines.handout",
        "engines.handout_download",
    }
)


# The login initiation's parameters a new window's login starts again with.
_LOGIN_PARAMS = (
    "iss",
    "login_hint",
    "target_link_uri",
    "lti_message_hint",
    "client_id",
    "lti_deployment_id",
)


class FrameSession(SecureCookieSession):
    """A session opened from a launch token: never saved as a cookie."""


class FrameSessionInterface(SecureCookieSessionInterface):
    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        token = request.args.get(PARAM) or request.headers.get(HEADER)
        launch = frames.read_token(token) if token else None
        if token is None or launch is None:
            return super().open_session(app, request)
        g.lti_frame = token
        g.lti_frame_registration = launch.registration_id
        return FrameSession(
            {
                "_user_id": launch.session_id,
                "_fresh": False,
                "csrf_token": frames.csrf_secret(token),
            }
        )

    def save_session(self, app: Flask, session: Any, response: Any) -> None:
        if isinstance(session, FrameSession):
            return  # the token carries it; a cookie would not come back from the frame
        super().save_session(app, session, response)


def adopt(token: str, registration_id: int) -> None:
    """The rest of this request (its redirect) continues in the frame under `token`."""
    g.lti_frame = token
    g.lti_frame_registration = registration_id


def frame_policy(origins: list[str]) -> str:
    return CSP.replace("frame-ancestors 'none'", " ".join(["frame-ancestors 'self'", *origins]))


def _carry_token(endpoint: str, values: dict[str, Any]) -> None:
    token = g.get("lti_frame")
    if token and (endpoint in FRAMED or endpoint.startswith("api.")):
        values.setdefault(PARAM, token)


def _ended() -> Any:
    """A framed page whose launch token no longer signs anyone in (older than two hours, or the
    account signed out everywhere): it says to open it again from the LMS, inside the LMS's
    frame where the token was this service's, never with a sign-in form."""
    token = request.args.get(PARAM) or request.headers.get(HEADER)
    if not token or request.endpoint not in FRAMED or current_user.is_authenticated:
        return None
    registration_id = g.get("lti_frame_registration") or frames.stale_token_platform(token)
    origins = frames.platform_origins(registration_id) if registration_id is not None else []
    page = render_template(
        "error.html",
        status=401,
        title="Open this again from your LMS",
        message="This page came from your LMS, and its sign-in has ended (after two hours, or "
        "after signing out everywhere). Open the activity again from your LMS.",
    )
    return page, 401, {"Content-Security-Policy": frame_policy(origins) if origins else CSP}


def _framing_headers(response: Any) -> Any:
    registration_id = g.get("lti_frame_registration")
    if registration_id is not None and request.endpoint in FRAMED:
        origins = frames.platform_origins(registration_id)
        response.headers.setdefault("Content-Security-Policy", frame_policy(origins))
    return response


def init_app(app: Flask) -> None:
    app.session_interface = FrameSessionInterface()
    app.url_defaults(_carry_token)
    app.before_request(_ended)
    # Registered after web/site.py's: runs before its setdefault of the closed policy.
    app.after_request(_framing_headers)


def page_policy() -> str:
    """This response's policy: the launching platform's frame for a framed page, else none."""
    registration_id = g.get("lti_frame_registration")
    if registration_id is not None and request.endpoint in FRAMED:
        return frame_policy(frames.platform_origins(registration_id))
    return CSP


# -- the login inside a frame ------------------------------------------------------------


def in_a_frame() -> bool:
    """Whether the browser loads this navigation into a frame (Fetch Metadata)."""
    return request.headers.get("Sec-Fetch-Dest", "document") in ("iframe", "frame")


class FramePage(FlaskRedirect):
    """pylti1p3's redirect to the platform's auth endpoint as a page that first keeps the state
    in the platform's storage (`mode` put) or checks that this frame keeps cookies (`cookie`);
    pylti1p3's state cookie is set on it as on its 302."""

    def __init__(self, location: str, cookie_service: Any, mode: str, target: str) -> None:
        super().__init__(location, cookie_service)
        self.mode, self.target = mode, target

    def do_redirect(self) -> Any:
        location = self.get_redirect_url()
        state = parse_qs(urlsplit(location).query).get("state", [""])[0]
        params: dict[str, Any] = {
            k: request.values[k] for k in _LOGIN_PARAMS if request.values.get(k)
        }
        again = url_for("lti.login", new_window="1", **params)
        if self.mode == "put":
            frames.remember_storage(state, self.target, again)
        origin = frames.origin_of(location) or ""
        reg_id = frames.registration_id(
            request.values.get("iss", ""), request.values.get("client_id")
        )
        page = render_template(
            "lti/frame.html",
            mode=self.mode,
            next=location,
            target=self.target,
            origin=origin,
            key=state,
            again=again,
            fallback_now=False,
        )
        response = make_response(page)
        origins = frames.platform_origins(reg_id) if reg_id is not None else []
        response.headers["Content-Security-Policy"] = frame_policy(origins)
        return self._process_response(response)


class FrameLogin(FlaskOIDCLogin):
    def __init__(self, mode: str, target: str) -> None:
        super().__init__(FlaskRequest(), lti.ToolConf(), launch_data_storage=lti.LaunchStorage())
        self.mode, self.target = mode, target

    def get_redirect(self, url: str) -> Any:
        return FramePage(url, self._cookie_service, self.mode, self.target)
