"""The pages an LTI launch leads to, inside the LMS's frame (services/lti/frames.py).

- Framed where the LMS frames, nowhere else: the endpoints of `FRAMED`, reached with a launch
  token, say `frame-ancestors 'self'` and the launching platform's origins (from its
  registration); every other response keeps `frame-ancestors 'none'` and `X-Frame-Options:
  DENY` (web/site.py).
- Signed in without third-party cookies: a request carrying a launch token (`?lti_frame=` in
  its URL, or the `X-LTI-Frame` header) opens a session from it instead of the cookie: the
  account the launch signed in, and a CSRF secret derived from the token, so the pages' forms
  and the API's writes keep their CSRF tokens. Such a session sets no cookie; every same-origin
  URL its pages make (links, forms, redirects, the API's URLs: each relative URL `url_for`
  builds) carries the token, never a full URL (those go to other people: e-mails, feeds, the
  LMS). The messages a page flashes wait for the next page under the launch's server-side data.
- A page that is never framed, asked for inside the frame under a token (a framed page's link to
  the account page, the staff pages, ...), answers one button, "Open in a new window", which
  opens it there, signed in by the same token.
- Clickjacking: only the platform that launched may frame these pages (the browser enforces
  `frame-ancestors`), and a page of `FRAMED` reached without a launch token refuses every frame.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from flask import (
    Flask,
    Request,
    g,
    has_request_context,
    make_response,
    render_template,
    request,
    url_for,
)
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from flask_login import current_user
from pylti1p3.contrib.flask import FlaskOIDCLogin, FlaskRequest
from pylti1p3.contrib.flask.redirect import FlaskRedirect

from grader.services import lti
from grader.services.lti import frames
from grader.web import errors
from grader.web.site import CSP

PARAM = "lti_frame"
HEADER = "X-LTI-Frame"

#: The pages a launch leads to: deep linking and its reply, a link's setup, the launched
#: assignment and exercise pages, an engine slot's page, its upload and results; and the forms
#: of those pages, which answer with a redirect to one of them.
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
        "lti.sync",
        "lti.resend",
        "pages.join_course",
        "pages.accept_invitation",
        "pages.decline_invitation",
        "pages.reset_calendar",
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
    """A session opened from a launch token, or an API token's empty one: never saved as a
    cookie."""


class FrameSessionInterface(SecureCookieSessionInterface):
    """Sessions from a launch token, else the cookie; an empty one for an API request with an
    `Authorization` header, which `api.authenticate` signs in from its token alone (or refuses):
    its cookie, if it sent one, is neither read nor written. The messages flashed under a launch
    token go to the next page under it through the launch's server-side data
    (frames.keep_flashes), as a cookie session's go through its cookie."""

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        if errors.api_request() and "Authorization" in request.headers:
            return FrameSession()
        token = request.args.get(PARAM) or request.headers.get(HEADER)
        launch = frames.read_token(token) if token else None
        if token is None or launch is None:
            return super().open_session(app, request)
        adopt(token, launch.registration_id, launch.launch_id)
        values: dict[str, Any] = {
            "_user_id": launch.session_id,
            "_fresh": False,
            "csrf_token": frames.csrf_secret(token),
        }
        kept = frames.kept_flashes(launch.launch_id)
        g.lti_frame_flashes = kept
        if kept:
            values["_flashes"] = list(kept)
        return FrameSession(values)

    def save_session(self, app: Flask, session: Any, response: Any) -> None:
        launch_id = g.get("lti_frame_launch")
        if launch_id is not None:
            # What this request flashed and no page showed waits for the next page in the
            # frame (a cookie would not come back from it).
            left = list(session.pop("_flashes", []))
            if left != g.get("lti_frame_flashes", []):
                frames.keep_flashes(launch_id, left)
        if isinstance(session, FrameSession):
            return  # the token carries it; a cookie would not come back from the frame
        super().save_session(app, session, response)


def adopt(token: str, registration_id: int, launch_id: str) -> None:
    """The rest of this request (its redirect) continues in the frame under `token`."""
    g.lti_frame = token
    g.lti_frame_registration = registration_id
    g.lti_frame_launch = launch_id


def frame_policy(origins: list[str]) -> str:
    return CSP.replace("frame-ancestors 'none'", " ".join(["frame-ancestors 'self'", *origins]))


def _carrying_the_token(app: Flask) -> None:
    """`url_for` on a page under a launch token: a same-origin URL (relative, as `url_for` builds
    them in a request unless told `_external`) carries the token; a full URL never does, since
    it goes elsewhere (a mail's link, a calendar feed, the LMS), where the token would sign its
    reader in."""
    build = app.url_for

    def url_for(
        endpoint: str, *, _scheme: str | None = None, _external: bool | None = None, **values: Any
    ) -> str:
        token = g.get("lti_frame") if has_request_context() else None
        relative = not (_external or _scheme)
        if token and relative and endpoint not in _TOKENLESS:
            values.setdefault(PARAM, token)
        return build(endpoint, _scheme=_scheme, _external=_external, **values)

    # Flask's own hook for what `url_for` builds: `flask.url_for` calls `app.url_for`, and the
    # templates' `url_for` is the one the app's Jinja environment took when it was made.
    app.url_for = url_for  # type: ignore[method-assign]
    app.jinja_env.globals["url_for"] = url_for


#: What a framed page links to that needs no session: static files (cached, shared).
_TOKENLESS = frozenset({"static"})


def _elsewhere() -> Any:
    """A page that is never framed, opened inside the LMS's frame under a launch token (a
    framed page's link to it): one button that opens it in a new window, where the same token
    signs it in (at the top level its own headers refuse every frame again)."""
    if not (
        request.method == "GET"
        and g.get("lti_frame")
        and request.endpoint is not None
        and request.endpoint not in FRAMED
        and request.endpoint not in _TOKENLESS
        and not str(request.endpoint).startswith("api.")
        and in_a_frame()
        and current_user.is_authenticated
    ):
        return None
    registration_id = g.get("lti_frame_registration")
    origins = frames.platform_origins(registration_id) if registration_id is not None else []
    # This very page, built again from its route (never the raw path: a browser reads
    # "//host/..." or "/\\host/..." as another site's), its query and token kept.
    values = {**request.args.to_dict(flat=False), **(request.view_args or {})}
    page = render_template("lti/new_window.html", url=url_for(request.endpoint, **values))
    return page, 200, {"Content-Security-Policy": frame_policy(origins)}


def _ended() -> Any:
    """A framed page whose launch token no longer signs anyone in (older than two hours, or the
    account signed out everywhere): it says to open it again from the LMS, inside the LMS's
    frame where the token was this service's, never with a sign-in form."""
    if request.endpoint not in FRAMED:  # first: the query string is parsed only for these
        return None
    token = request.args.get(PARAM) or request.headers.get(HEADER)
    if not token or current_user.is_authenticated:
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
    _carrying_the_token(app)
    app.before_request(_ended)
    app.before_request(_elsewhere)
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
