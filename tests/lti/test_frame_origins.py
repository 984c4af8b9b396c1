"""The origins an administrator adds to a registration, whose pages may frame the tool (cloud
Canvas frames it from the school's host, which is neither the registration's issuer,
https://canvas.instructure.com, nor its authorization host, sso.canvaslms.com): listed in a
launched page's `frame-ancestors`, and only they; what is not an origin is refused with words,
on the command line and on the administrators' page."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import LtiRegistration
from tests.app_support import csrf_from
from tests.lti.lti_platform import LEARNER
from tests.lti.test_frames import framed_launch

SCHOOL = "https://school.instructure.com"


def _frame_ancestors(policy: str) -> list[str]:
    [directive] = [d.strip() for d in policy.split(";") if "frame-ancestors" in d]
    return directive.split()[1:]


def _reg_id(app: Any) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(LtiRegistration.id))


LMS = "https://lms.uni.example"
ENDPOINTS = {
    "auth_login_url": f"{LMS}/auth",
    "auth_token_url": f"{LMS}/token",
    "key_set_url": f"{LMS}/jwks",
}


def _registered(app: Any) -> int:
    from grader.services import lti

    with app.app_context():
        return lti.register(None, issuer=LMS, client_id="c1", deployment_ids=["1"], **ENDPOINTS).id


def test_an_added_origin_may_frame_the_launched_pages_and_no_other(lti_env, app, runner):
    reg_id = _reg_id(app)
    added = runner.invoke(args=["lti", "frame-origins", str(reg_id), SCHOOL + "/"])
    assert added.exit_code == 0, added.output
    assert f"other origins that frame the tool: {SCHOOL}" in added.output
    client = app.test_client(use_cookies=False)
    location = framed_launch(lti_env, client, lti_env.member("alice", [LEARNER])).headers[
        "Location"
    ]
    page = client.get(location)
    assert page.status_code == 200
    ancestors = _frame_ancestors(page.headers["Content-Security-Policy"])
    assert ancestors == ["'self'", "https://lms.example.edu", lti_env.platform.base, SCHOOL]
    assert "https://other.instructure.com" not in page.headers["Content-Security-Policy"]
    # Taken away again: the school's host no longer frames the tool.
    assert runner.invoke(args=["lti", "frame-origins", str(reg_id)]).exit_code == 0
    again = client.get(location)
    assert SCHOOL not in again.headers["Content-Security-Policy"]


@pytest.mark.parametrize(
    ("origin", "why"),
    [
        ("http://school.instructure.com", "not an origin that may frame the tool"),
        ("https://school.instructure.com/courses/1", "with no path"),
        ("*", "not an origin"),
        ("https://*", "not an origin"),
        ("https://*.com", "a wildcard only as the whole first label"),
        ("https://a.*.instructure.com", "not an origin"),
        ("'self'", "not an origin"),
        ("https://school.instructure.com https://evil.example", "not an origin"),
        ("https://school.instructure.com;script-src *", "not an origin"),
        ("https://user@school.instructure.com", "not an origin"),
    ],
)
def test_what_is_not_an_origin_is_refused_with_words(app, runner, origin, why):
    reg_id = _registered(app)
    refused = runner.invoke(args=["lti", "frame-origins", str(reg_id), origin])
    assert refused.exit_code != 0 and why in refused.output, refused.output
    with app.app_context():
        assert db.session.get(LtiRegistration, reg_id).frame_origins == []


def test_a_wildcard_first_label_and_a_port_are_taken(app, runner):
    reg_id = _registered(app)
    origins = ["https://*.Instructure.com", "https://lms.uni.example:8443"]
    assert runner.invoke(args=["lti", "frame-origins", str(reg_id), *origins]).exit_code == 0
    with app.app_context():
        assert db.session.get(LtiRegistration, reg_id).frame_origins == [
            "https://*.instructure.com",
            "https://lms.uni.example:8443",
        ]


def test_the_administrators_page_sets_and_refuses_them(app, root):
    reg_id = _registered(app)

    def save(origins: str) -> Any:
        html = root.get(f"/admin/lti/{reg_id}/edit").get_data(as_text=True)
        assert "Other origins that frame the tool" in html
        return root.post(
            f"/admin/lti/{reg_id}/edit",
            data={
                "csrf_token": csrf_from(html),
                "deployment_ids": "1",
                **ENDPOINTS,
                "frame_origins": origins,
            },
        )

    assert save(f"{SCHOOL}\n\nhttps://canvas.uni.example\n").status_code == 302
    with app.app_context():
        reg = db.session.get(LtiRegistration, reg_id)
        assert reg.frame_origins == [SCHOOL, "https://canvas.uni.example"]
    assert SCHOOL in root.get(f"/admin/lti/{reg_id}/edit").get_data(as_text=True)
    refused = save("https://school.instructure.com/courses/1")
    assert refused.status_code == 200
    assert "is not an origin that may frame the tool" in refused.get_data(as_text=True)
    with app.app_context():
        assert db.session.get(LtiRegistration, reg_id).frame_origins == [
            SCHOOL,
            "https://canvas.uni.example",
        ]
