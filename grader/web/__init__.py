"""The web layer: blueprints, error pages and JSON errors, security headers, the login loader."""

from __future__ import annotations

import math
from typing import Any

import sqlalchemy as sa
from flask import Flask, jsonify, redirect, render_template, request, url_for
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from grader.extensions import db, login_manager
from grader.gametree import Conventions
from grader.models import User
from grader.services import (
    Busy,
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    RateLimited,
    ServiceError,
    Unprocessable,
    accounts,
)
from grader.web.api import RequestError, error_response
from grader.web.inputs import IdConverter, StrictJSONProvider

STATUS = {
    Unprocessable: 422,
    Invalid: 400,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    RateLimited: 429,
    Busy: 503,
}

# No inline script, no third party: the pages are self-contained.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)


def _status(error: ServiceError) -> int:
    return next((code for cls, code in STATUS.items() if isinstance(error, cls)), 400)


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.path == "/api"


def percent(score: float | None) -> str:
    """A score as a whole percent, halves rounded up: the same as the pages' Math.round."""
    return "—" if score is None else f"{math.floor(score * 100 + 0.5)}%"


def misconception_name(code: str) -> str:
    """A misconception's code in plain words: "no-pruning" -> "No pruning"."""
    return code.replace("-", " ").replace("_", " ").capitalize()


def conventions_words(value: object) -> str:
    """Stored conventions (a dict) as the sentence students read; anything else as it is."""
    if isinstance(value, dict):
        try:
            return Conventions.from_dict(value).describe()
        except (TypeError, ValueError):
            pass
    return str(value)


def init_app(app: Flask) -> None:
    from grader.web import api, auth, engines, games, instructor, kit, lti, pages, progress

    # Before any rule is added: ids beyond the database's integers are 404s, and request JSON
    # is strict (no NaN, no 1e400, bounded nesting).
    app.url_map.converters["int"] = IdConverter
    app.json = StrictJSONProvider(app)
    app.register_blueprint(auth.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(instructor.bp)
    app.register_blueprint(engines.bp)  # engine pages (the upload's body limit: engines.py)
    app.register_blueprint(lti.bp)  # LTI 1.3: launches from the LMS, grades back to it
    app.register_blueprint(progress.bp)  # adaptive practice: progress, weak spots, course view
    app.register_blueprint(games.bp)  # practice from a game, boards on the exercise page
    app.register_blueprint(kit.bp)  # the students' grader wheel, by a signed link

    proxies = app.config["GRADER_TRUSTED_PROXIES"]
    if proxies:  # the client's scheme and host as the TLS proxy saw them (LTI URLs, cookies)
        # Werkzeug's documented way to wrap the app; mypy sees wsgi_app as a method.
        wrapped = ProxyFix(
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies, x_port=proxies
        )
        app.wsgi_app = wrapped  # type: ignore[method-assign]

    app.add_template_filter(percent)
    app.add_template_filter(misconception_name)
    app.add_template_filter(conventions_words)

    login_manager.login_view = "auth.login"
    login_manager.login_message_category = "info"

    @login_manager.user_loader
    def load_user(alternative_id: str) -> User | None:
        # `id:session_version`: a cookie from before a sign-out or a new password loads no one.
        return accounts.user_for_session(alternative_id)

    @app.get("/favicon.ico")
    def favicon() -> Any:
        # Browsers ask for this path by themselves; the pages link the SVG.
        return redirect(url_for("static", filename="favicon.svg"), 301)

    @app.get("/healthz")
    def healthz() -> Any:
        from grader.services import workers

        db.session.execute(sa.text("SELECT 1"))
        # The web answers without workers (uploads wait in the queue); the count says so.
        return jsonify(status="ok", workers=len(workers.live()))

    @app.errorhandler(ServiceError)
    def service_error(error: ServiceError) -> Any:
        status = _status(error)
        if _wants_json():
            kind = error.kind if isinstance(error, Unprocessable) else None
            response = error_response(status, str(error), kind=kind)
        else:
            response = app.make_response(
                (render_template("error.html", status=status, message=str(error)), status)
            )
        if isinstance(error, Busy):
            response.headers["Retry-After"] = "1"
        elif isinstance(error, RateLimited):
            response.headers["Retry-After"] = str(error.retry_after)
        return response

    @app.errorhandler(RequestError)
    def request_error(error: RequestError) -> Any:
        return error_response(400, str(error), error.details)

    @app.errorhandler(CSRFError)
    def csrf_error(error: CSRFError) -> Any:
        message = f"CSRF check failed: {error.description}"
        if _wants_json():
            return error_response(400, message)
        return render_template("error.html", status=400, message=message), 400

    @app.errorhandler(sa.exc.OperationalError)
    def database_busy(error: sa.exc.OperationalError) -> Any:
        """The write lock was not free within the busy timeout: ask the client to retry."""
        if "locked" not in str(error.orig):
            raise error
        db.session.rollback()
        app.logger.warning("database busy: %s", error.orig)
        message = "the database is busy; nothing was stored, try again"
        if _wants_json():
            response = error_response(503, message)
        else:
            response = render_template("error.html", status=503, message=message), 503
            response = app.make_response(response)
        response.headers["Retry-After"] = "1"
        return response

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        status = error.code or 500
        if _wants_json():
            response = error_response(status, error.description or error.name)
        else:
            response = app.make_response(
                (render_template("error.html", status=status, message=error.description), status)
            )
        for name, value in error.get_headers():  # Allow on a 405, as RFC 9110 requires
            if name.lower() != "content-type":
                response.headers[name] = value
        return response

    @app.after_request
    def security_headers(response: Any) -> Any:
        headers = response.headers
        headers.setdefault("Content-Security-Policy", CSP)
        headers.setdefault("X-Content-Type-Options", "nosniff")
        headers.setdefault("X-Frame-Options", "DENY")
        headers.setdefault("Referrer-Policy", "same-origin")
        headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        headers.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
        if app.config["SESSION_COOKIE_SECURE"] or request.is_secure:
            headers.setdefault("Strict-Transport-Security", "max-age=31536000")
        if not request.path.startswith("/static/"):
            headers.setdefault("Cache-Control", "no-store")  # personal pages, earned solutions
        return response
