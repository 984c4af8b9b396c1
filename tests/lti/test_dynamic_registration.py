"""LTI Dynamic Registration: an administrator makes a one-time URL, the LMS opens it, the tool
registers itself with the platform served on loopback (no field typed), and a launch works.
Registrations are edited and deleted by administrators; a second registration of the same
issuer and client is refused with words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import LtiContext, LtiRegistration, LtiRegistrationUrl
from tests.app_support import csrf_from
from tests.lti.lti_platform import INSTRUCTOR, LEARNER, Platform, Served
from tests.lti.lti_support import Env, register_platform


@pytest.fixture
def lms(app: Any) -> Iterator[Platform]:
    """The platform on loopback; its issuer is its own address, as its configuration says."""
    from grader import jobs

    served = Served(Platform())
    served.platform.issuer = served.platform.base
    jobs.queue(app).immediate = True
    try:
        yield served.platform
    finally:
        served.close()


def registration_url(root: Any) -> str:
    page = root.get("/admin/lti").get_data(as_text=True)
    made = root.post("/admin/lti/registration-url", data={"csrf_token": csrf_from(page)})
    assert made.status_code == 200
    found = re.search(r'id="new-registration-url"[^>]*value="([^"]+)"', made.get_data(as_text=True))
    assert found, "the page shows the new URL"
    return found.group(1)


def opened_by_lms(client: Any, url: str, platform: Platform, token: str = "reg-token-1") -> Any:
    """What the LMS does with the pasted URL: opens it (in a frame) with its configuration."""
    platform.registration_tokens.add(token)
    query = urlencode(
        {
            "openid_configuration": f"{platform.base}/.well-known/openid-configuration",
            "registration_token": token,
        }
    )
    return client.get(f"{urlsplit(url).path}?{query}")


def test_the_lms_registers_the_tool_itself_and_a_launch_works(app, client, root, lms):
    url = registration_url(root)
    assert url.startswith("http://localhost/lti/register/")
    answer = opened_by_lms(client, url, lms)
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200, html
    assert "js/lti-registered.js" in html and "is registered" in html
    # Only the platform that opened it may frame the page.
    assert f"frame-ancestors 'self' {lms.base}" in answer.headers["Content-Security-Policy"]
    assert "X-Frame-Options" not in answer.headers
    with app.app_context():
        reg = db.session.scalar(sa.select(LtiRegistration))
        assert (reg.issuer, reg.client_id) == (lms.base, lms.client_id)
        assert [d.deployment_id for d in reg.deployments] == [lms.deployment_id]
        assert (reg.auth_login_url, reg.auth_token_url, reg.key_set_url) == (
            f"{lms.base}/auth",
            f"{lms.base}/token",
            f"{lms.base}/jwks",
        )
        assert db.session.scalar(sa.select(LtiRegistrationUrl.registration_id)) == reg.id
    sent = lms.registered_tools[0]
    assert sent["initiate_login_uri"] == "http://localhost/lti/login"
    assert sent["redirect_uris"] == ["http://localhost/lti/launch"]
    assert sent["jwks_uri"] == "http://localhost/lti/jwks"
    tool = sent["https://purl.imsglobal.org/spec/lti-tool-configuration"]
    assert tool["target_link_uri"] == "http://localhost/lti/launch"
    assert "https://purl.imsglobal.org/spec/lti-ags/scope/score" in sent["scope"].split()
    # The platform reads the tool's keys from the jwks_uri it was given.
    lms.tool_jwks = client.get(urlsplit(sent["jwks_uri"]).path).get_json()
    env = Env(app, client, lms)
    teacher = env.member("t-sub", [INSTRUCTOR])
    assert env.launch(app.test_client(), teacher).status_code == 302
    student = env.member("s-sub", [LEARNER])
    assert env.launch(app.test_client(), student).status_code == 302
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(LtiContext)) == 1
    # The URL served once.
    again = opened_by_lms(app.test_client(), url, lms, "reg-token-2")
    assert again.status_code == 400 and "used already" in again.get_data(as_text=True)
    assert len(lms.registered_tools) == 1


def test_an_issuer_that_is_not_the_configurations_own_is_refused(app, client, root, lms):
    url = registration_url(root)
    lms.config_issuer = "https://canvas.instructure.com"  # served from elsewhere
    answer = opened_by_lms(client, url, lms)
    text = answer.get_data(as_text=True)
    assert answer.status_code == 400 and "does not match the address" in text
    assert lms.registered_tools == []
    with app.app_context():
        assert db.session.scalar(sa.select(LtiRegistration)) is None
    lms.config_issuer = ""  # fixed: the same URL still serves
    assert opened_by_lms(client, url, lms, "reg-token-2").status_code == 200


def test_a_bad_or_withdrawn_url_registers_nothing(app, client, root, lms):
    forged = opened_by_lms(client, "http://localhost/lti/register/not-a-real-token", lms)
    assert forged.status_code == 400 and "administrator makes a new one" in forged.get_data(
        as_text=True
    )
    url = registration_url(root)
    page = root.get("/admin/lti").get_data(as_text=True)
    assert "Registration URLs not used yet" in page
    with app.app_context():
        url_id = db.session.scalar(sa.select(LtiRegistrationUrl.id))
    root.post(
        f"/admin/lti/registration-url/{url_id}/withdraw", data={"csrf_token": csrf_from(page)}
    )
    assert opened_by_lms(client, url, lms).status_code == 400
    assert lms.registered_tools == []


def test_the_same_issuer_and_client_again_is_refused_with_words(app, client, root, lms):
    with app.app_context():
        register_platform(lms)
    url = registration_url(root)
    answer = opened_by_lms(client, url, lms)
    text = answer.get_data(as_text=True)
    assert answer.status_code == 409, text
    assert f"{lms.base} with client id {lms.client_id} is already registered" in text
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(LtiRegistration)) == 1


def test_registering_by_hand_twice_says_so_on_a_working_page(app, root):
    """The form's second registration of one issuer and client: the words, on the page
    (the failed commit is rolled back, so the page can read the database again)."""
    form = {
        "issuer": "https://moodle.uni.example",
        "client_id": "abc123",
        "deployment_ids": "1",
        "auth_login_url": "https://moodle.uni.example/mod/lti/auth.php",
        "auth_token_url": "https://moodle.uni.example/mod/lti/token.php",
        "key_set_url": "https://moodle.uni.example/mod/lti/certs.php",
    }
    html = root.get("/admin/lti").get_data(as_text=True)
    assert root.post("/admin/lti", data={**form, "csrf_token": csrf_from(html)}).status_code == 302
    again = root.post("/admin/lti", data={**form, "csrf_token": csrf_from(html)})
    text = again.get_data(as_text=True)
    assert again.status_code == 200, text
    assert "https://moodle.uni.example with client id abc123 is already registered" in text
    assert "Registered" in text  # the page rendered whole, its list included


def test_an_administrator_edits_and_deletes_a_registration(app, client, root, lms):
    with app.app_context():
        reg_id = register_platform(lms).id
    lms.tool_redirect_uris = ["http://localhost/lti/launch"]
    lms.tool_jwks = client.get("/lti/jwks").get_json()
    env = Env(app, client, lms)
    assert env.launch(app.test_client(), env.member("t-sub", [INSTRUCTOR])).status_code == 302
    edit = root.get(f"/admin/lti/{reg_id}/edit")
    html = edit.get_data(as_text=True)
    assert edit.status_code == 200 and lms.deployment_id in html
    saved = root.post(
        f"/admin/lti/{reg_id}/edit",
        data={
            "csrf_token": csrf_from(html),
            "deployment_ids": f"{lms.deployment_id}\ndeployment-2",
            "auth_login_url": f"{lms.base}/auth",
            "auth_token_url": f"{lms.base}/token",
            "key_set_url": f"{lms.base}/jwks",
            "trust_emails": "y",
        },
    )
    assert saved.status_code == 302
    with app.app_context():
        reg = db.session.get(LtiRegistration, reg_id)
        assert sorted(d.deployment_id for d in reg.deployments) == [
            "deployment-1",
            "deployment-2",
        ]
        assert reg.trust_emails is True
    confirm = root.get(f"/admin/lti/{reg_id}/delete")
    words = confirm.get_data(as_text=True)
    assert confirm.status_code == 200
    assert "1 course(s) no longer open from this LMS (CS 188: Artificial Intelligence)" in words
    assert "1 person(s) no longer sign in from it" in words
    wrong = root.post(
        f"/admin/lti/{reg_id}/delete", data={"csrf_token": csrf_from(words), "issuer": "nope"}
    )
    assert wrong.status_code == 400 and "nothing was deleted" in wrong.get_data(as_text=True)
    gone = root.post(
        f"/admin/lti/{reg_id}/delete", data={"csrf_token": csrf_from(words), "issuer": lms.issuer}
    )
    assert gone.status_code == 302
    with app.app_context():
        assert db.session.get(LtiRegistration, reg_id) is None
        assert db.session.scalar(sa.select(sa.func.count()).select_from(LtiContext)) == 0
    refused = client.post(
        "/lti/login",
        data={"iss": lms.issuer, "login_hint": "t-sub", "target_link_uri": "x"},
    )
    assert refused.status_code == 400


def test_only_administrators_make_registration_urls(app, client):
    from tests.lti.test_registration import log_in

    teacher = log_in(app, "prof@uni.example", "instructor")
    html = teacher.get("/lti/registrations").get_data(as_text=True)
    made = teacher.post("/admin/lti/registration-url", data={"csrf_token": csrf_from(html)})
    assert made.status_code == 403
    with app.app_context():
        assert db.session.scalar(sa.select(LtiRegistrationUrl)) is None
