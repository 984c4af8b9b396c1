"""Errors, one rule: a request to /api gets the API's JSON error, any other an error page; the
status says what went wrong (a refused use case, a bad request body, a failed CSRF check, a
busy database, any HTTP error), with Retry-After where trying again helps."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa
from flask import Blueprint, Response, current_app, render_template, request, url_for
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from grader.extensions import db
from grader.services import (
    Busy,
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    RateLimited,
    ServiceError,
    Unprocessable,
)
from grader.web.api import RequestError, error_response

bp = Blueprint("errors", __name__)

STATUS = {
    Unprocessable: 422,  # before Invalid, its base
    Invalid: 400,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    RateLimited: 429,
    Busy: 503,
}


def status_of(error: ServiceError) -> int:
    """The status a refused use case answers with (a page that says it in place uses it too)."""
    return next((code for cls, code in STATUS.items() if isinstance(error, cls)), 400)


# What each refusal is, in words: the error page's heading (its status number stays beside it).
TITLES = {
    400: "The request was refused",
    401: "Sign in first",
    403: "Not allowed",
    404: "Not found",
    405: "Not done that way",
    409: "Changed meanwhile",
    413: "Too large",
    414: "Address too long",
    422: "Not of the right shape",
    429: "Too many requests",
    500: "Something went wrong on our side",
    503: "Busy",
}


def _size(limit: int) -> str:
    return f"{limit / 1_000_000:.1f} MB" if limit >= 1_000_000 else f"{limit // 1000} kB"


def _back() -> str:
    """Where the error page leads back to: the page of this site the person came from (a form's
    page, which may post to its own address), or the dashboard (an outside page, none, or the
    very address a GET was refused at)."""
    came_from = request.referrer or ""
    if came_from and (came_from != request.url or request.method != "GET"):
        where, here = urlsplit(came_from), urlsplit(request.host_url)
        if (where.scheme, where.netloc) == (here.scheme, here.netloc):
            return came_from
    return url_for("pages.dashboard")


def api_request() -> bool:
    """Whether this request is the API's (its path under /api): answered in JSON, and signed in
    by its token where it sends one (`lti_frame.FrameSessionInterface`)."""
    return request.path.startswith("/api/") or request.path == "/api"


def error(status: int, message: str, details: Any = None, kind: str | None = None) -> Response:
    """The one error response: the API's JSON under /api (with the exercise's ``kind`` where an
    answer was not of its shape), the error page elsewhere."""
    if api_request():
        return error_response(status, message, details, kind=kind)
    page = render_template(
        "error.html",
        status=status,
        title=TITLES.get(status, "Refused"),
        message=message,
        back=_back(),
    )
    return current_app.make_response((page, status))


@bp.app_errorhandler(ServiceError)
def service_error(refused: ServiceError) -> Response:
    kind = refused.kind if isinstance(refused, Unprocessable) else None
    response = error(status_of(refused), str(refused), kind=kind)
    if isinstance(refused, Busy):
        response.headers["Retry-After"] = "1"
    elif isinstance(refused, RateLimited):
        response.headers["Retry-After"] = str(refused.retry_after)
    return response


@bp.app_errorhandler(RequestError)
def request_error(refused: RequestError) -> Response:
    return error_response(400, str(refused), refused.details)


@bp.app_errorhandler(CSRFError)
def csrf_error(refused: CSRFError) -> Response:
    return error(400, f"CSRF check failed: {refused.description}")


@bp.app_errorhandler(sa.exc.OperationalError)
def database_busy(failed: sa.exc.OperationalError) -> Response:
    """The write lock was not free within the busy timeout: ask the client to retry."""
    if "locked" not in str(failed.orig):
        raise failed
    db.session.rollback()
    current_app.logger.warning("database busy: %s", failed.orig)
    response = error(503, "the database is busy; nothing was stored, try again")
    response.headers["Retry-After"] = "1"
    return response


@bp.app_errorhandler(RequestEntityTooLarge)
def too_large(failed: RequestEntityTooLarge) -> Response:
    """A body past the limit (the app's, or an upload's): read no further, said with the limit."""
    limit = request.max_content_length or current_app.config["MAX_CONTENT_LENGTH"]
    return error(
        413,
        f"What was sent is too large: this page takes at most {_size(limit)}. Nothing was "
        "stored; go back and send a smaller file or a shorter text.",
    )


@bp.app_errorhandler(HTTPException)
def http_error(failed: HTTPException) -> Response:
    response = error(failed.code or 500, failed.description or failed.name)
    for name, value in failed.get_headers():  # Allow on a 405, as RFC 9110 requires
        if name.lower() != "content-type":
            response.headers[name] = value
    return response
