"""What every response and the site itself carry, outside any page: the security headers, the
favicon's path browsers ask for, and /healthz."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from flask import Blueprint, Response, current_app, jsonify, redirect, request, url_for

from grader.extensions import db
from grader.ratelimits import THROTTLED, found, limiter, not_found, setting
from grader.services.courses import calendar

bp = Blueprint("site", __name__)

# No inline script, no third party: the pages are self-contained.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)


@bp.get("/favicon.ico")
def favicon() -> Any:
    # Browsers ask for this path by themselves; the pages link the SVG.
    return redirect(url_for("static", filename="favicon.svg"), 301)


def _feed_key() -> str:
    return f"calendar:{(request.view_args or {}).get('user_id')}"


@bp.get("/calendar/<int:user_id>/<token>.ics")
# Wrong secrets count against the address, as failed sign-ins do; and one account's feed is
# read at most GRADER_CALENDAR_LIMIT times with its right secret (calendar programs ask every
# few minutes to hours): wrong secrets never count against the account, or anyone could lock a
# student's feed by guessing at it.
@limiter.limit(
    setting("GRADER_LOGIN_LIMIT_ADDRESS"),
    deduct_when=not_found,
    scope="calendar-guess",
    error_message=THROTTLED,
)
@limiter.limit(
    setting("GRADER_CALENDAR_LIMIT"),
    key_func=_feed_key,
    deduct_when=found,
    scope="calendar",
    error_message="This calendar was read too often: wait a while (see Retry-After).",
)
def calendar_feed(user_id: int, token: str) -> Any:
    """A student's deadlines (iCalendar), for their calendar program: no sign-in, the URL's
    secret is the key (services/courses/calendar.py)."""
    text = calendar.feed(user_id, token[:128])
    return Response(
        text,
        mimetype="text/calendar",
        headers={"Cache-Control": "private, max-age=300", "Referrer-Policy": "no-referrer"},
    )


@bp.get("/healthz")
def healthz() -> Any:
    from grader.services import liveness

    db.session.execute(sa.text("SELECT 1"))
    # The web answers without workers (uploads wait in the queue); the count says so.
    return jsonify(status="ok", workers=len(liveness.live()))


@bp.after_app_request
def security_headers(response: Any) -> Any:
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CSP)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    if "frame-ancestors 'none'" in headers["Content-Security-Policy"]:
        headers.setdefault("X-Frame-Options", "DENY")  # else the page names who may frame it
    headers.setdefault("Referrer-Policy", "same-origin")
    headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
    headers.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
    if current_app.config["SESSION_COOKIE_SECURE"] or request.is_secure:
        headers.setdefault("Strict-Transport-Security", "max-age=31536000")
    if not request.path.startswith("/static/"):
        headers.setdefault("Cache-Control", "no-store")  # personal pages, earned solutions
    return response
