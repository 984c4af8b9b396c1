"""The web layer: its blueprints (pages, the API, LTI, the errors' one rule, the site's headers
and health check), the template filters, the login loader and what a sign-in records."""

from __future__ import annotations

import datetime as dt
import importlib
import math

from flask import Flask
from flask_login import user_logged_in
from werkzeug.middleware.proxy_fix import ProxyFix

from grader.extensions import login_manager
from grader.models import User, utcnow
from grader.services import accounts, plural
from grader.services.courses import zones
from grader.services.paper.sheets import SHEET_HTML
from grader.web import exam_sheets, lti_frame
from grader.web.inputs import IdConverter, StrictJSONProvider
from grader.web.kind_pages import kind_script, kind_styles
from grader.web.site import CSP
from grader.web.slot_pages import slot_url
from grader.web.words import (
    audit_sentences,
    conventions_brief,
    conventions_words,
    kind_name,
    misconception_name,
)

# The web's blueprints, each a module of grader.web with its `bp`: the site's headers and health
# check, the errors' one rule, the pages, the API, engines (the upload's body limit), LTI
# (launches from the LMS, grades back to it), adaptive practice, practice from a game, the
# students' wheel by a signed link.
BLUEPRINTS = (
    "site",
    "errors",
    "auth",
    "pages",
    "api",
    "instructor",
    "engines",
    "lti",
    "progress",
    "games",
    "kit",  # the students' grader wheel, by a signed link
    "admin",  # administrators only: registering an LMS
    "exams",  # paper exams: printing, entering the written answers
    "integrity",  # the staff's academic-integrity checks
    "reports",  # students' problem reports and the staff's inbox
    "metrics",  # /metrics for the operator's Prometheus or autoscaler
    "kind_pages",  # a plugin kind's page module and styles
)

__all__ = ["CSP", "conventions_words", "init_app", "kind_name", "misconception_name", "percent"]


def percent(score: float | None) -> str:
    """A score as a whole percent, halves rounded up: the same as the pages' Math.round."""
    return "—" if score is None else f"{math.floor(score * 100 + 0.5)}%"


def zone_or_server(zone: str | None) -> str:
    """A course's zone, or for a time outside any course (practice, an account's), the
    server's (GRADER_TIMEZONE)."""
    return zone or zones.server_zone()


def in_zone(moment: dt.datetime | None, zone: str | None = None) -> str:
    """A stored date in words, in a course's zone: "Fri 4 Dec 2026, 23:59 EST (America/New_York)".
    The one way a page prints a time a person reads (the `when` macro of _dates.html)."""
    return zones.words(moment, zone_or_server(zone))


def iso_in(moment: dt.datetime | None, zone: str | None = None) -> str:
    return zones.iso(moment, zone_or_server(zone)) or ""


def from_now(moment: dt.datetime | None) -> str:
    return zones.relative(moment, utcnow())


def init_app(app: Flask) -> None:
    # Before any rule is added: ids beyond the database's integers are 404s, and request JSON
    # is strict (no NaN, no 1e400, bounded nesting).
    app.url_map.converters["int"] = IdConverter
    app.json = StrictJSONProvider(app)
    for name in BLUEPRINTS:  # imported here: their views import this module's helpers
        app.register_blueprint(importlib.import_module(f"grader.web.{name}").bp)
    lti_frame.init_app(app)  # after site.py's headers: the framed pages' policy comes first

    proxies = app.config["GRADER_TRUSTED_PROXIES"]
    if proxies:  # the client's scheme and host as the TLS proxy saw them (LTI URLs, cookies)
        # Werkzeug's documented way to wrap the app; mypy sees wsgi_app as a method.
        wrapped = ProxyFix(
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies, x_port=proxies
        )
        app.wsgi_app = wrapped  # type: ignore[method-assign]

    for template_filter in (
        percent,
        misconception_name,
        kind_name,
        kind_script,
        kind_styles,
        conventions_brief,
        conventions_words,
        in_zone,
        iso_in,
        from_now,
        zone_or_server,
        plural,
        audit_sentences,
    ):
        app.add_template_filter(template_filter)
    app.add_template_global(slot_url)
    app.extensions[SHEET_HTML] = exam_sheets.sheet_html  # the print job's HTML writer
    login_manager.login_view = "auth.login"
    login_manager.login_message_category = "info"
    login_manager.user_loader(load_user)
    user_logged_in.connect(signed_in, app)


def signed_in(_app: Flask, user: User) -> None:
    # Every sign-in (password, invite, LMS launch) goes through Flask-Login's login_user.
    accounts.signed_in(user)


def load_user(alternative_id: str) -> User | None:
    # `id:session_version`: a cookie from before a sign-out or a new password loads no one.
    return accounts.user_for_session(alternative_id)
