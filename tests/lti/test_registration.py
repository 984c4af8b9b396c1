"""Registering a platform: the CLI and the instructors' page; the tool's key pair."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import LtiKey, LtiRegistration

PASSWORD = "correct horse battery"


def log_in(app, email: str, role: str):
    from grader.services import accounts

    with app.app_context():
        accounts.create_user(email, PASSWORD, role)
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page).group(1)
    client.post("/login", data={"email": email, "password": PASSWORD, "csrf_token": token})
    return client


def _register(runner, issuer, client_id, deployments, login, token, jwks, *extra):
    """`grader lti register` with these URLs, one --deployment each."""
    args = ["lti", "register", "--issuer", issuer, "--client-id", client_id]
    for deployment in deployments:
        args += ["--deployment", deployment]
    args += ["--login-url", login, "--token-url", token, "--jwks-url", jwks, *extra]
    return runner.invoke(args=args)


def test_cli_registers_lists_and_prints_the_urls(runner, app):
    canvas = "https://sso.canvaslms.com"
    result = _register(
        runner,
        "https://canvas.instructure.com",
        "10000000000001",
        ["1:abc", "2:def"],
        f"{canvas}/api/lti/authorize_redirect",
        f"{canvas}/login/oauth2/token",
        f"{canvas}/api/lti/security/jwks",
    )
    assert result.exit_code == 0, result.output
    with app.app_context():
        assert db.session.scalar(sa.select(LtiRegistration.trust_emails)) is False
    listed = runner.invoke(args=["lti", "list"]).output
    assert "https://canvas.instructure.com\t10000000000001\t1:abc,2:def" in listed
    other = ("https://a.example/x", "https://a.example/y", "https://a.example/z")
    again = _register(runner, "https://canvas.instructure.com", "10000000000001", ["x"], *other)
    assert again.exit_code != 0 and "already registered" in again.output
    bad = _register(runner, "i", "c", ["d"], "javascript:alert(1)", *other[1:])
    assert bad.exit_code != 0 and "http(s) URL" in bad.output
    moodle = "https://moodle.uni.example"
    trusted = _register(
        runner,
        moodle,
        "m1",
        ["1"],
        f"{moodle}/mod/lti/auth.php",
        f"{moodle}/mod/lti/token.php",
        f"{moodle}/mod/lti/certs.php",
        "--trust-emails",
    )
    assert trusted.exit_code == 0, trusted.output
    with app.app_context():
        assert (
            db.session.scalar(
                sa.select(LtiRegistration.trust_emails).where(LtiRegistration.client_id == "m1")
            )
            is True
        )
    urls = runner.invoke(args=["lti", "urls", "https://grader.uni.example/"]).output
    assert "https://grader.uni.example/lti/login" in urls
    assert "https://grader.uni.example/lti/jwks" in urls


def test_only_an_administrator_registers_a_platform(app):
    # Issue 28: the workers call a registration's URLs, so no account registers one; the CLI does.
    teacher = log_in(app, "prof@uni.example", "instructor")
    page = teacher.get("/lti/registrations")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "http://localhost/lti/login" in html
    assert "grader lti register" in html and 'name="key_set_url"' not in html
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html)
    response = teacher.post(
        "/lti/registrations",
        data={
            "csrf_token": token.group(1) if token else "",
            "issuer": "https://moodle.uni.example",
            "client_id": "abc123",
            "deployment_ids": "1\n2\n",
            "auth_login_url": "https://moodle.uni.example/mod/lti/auth.php",
            "auth_token_url": "https://moodle.uni.example/mod/lti/token.php",
            "key_set_url": "https://moodle.uni.example/mod/lti/certs.php",
        },
    )
    assert response.status_code in (400, 405)
    from grader.models import User
    from grader.services import Forbidden, lti

    with app.app_context():
        prof = db.session.scalar(sa.select(User).where(User.email == "prof@uni.example"))
        with pytest.raises(Forbidden):
            lti.register(
                prof,
                issuer="https://x.example",
                client_id="x",
                deployment_ids=["1"],
                auth_login_url="https://x.example/a",
                auth_token_url="https://x.example/t",
                key_set_url="https://x.example/k",
            )
        assert db.session.scalar(sa.select(LtiRegistration)) is None
    student = log_in(app, "kid@uni.example", "student")
    assert student.get("/lti/registrations").status_code == 403


MOODLE = {
    "issuer": "https://moodle.uni.example",
    "client_id": "abc123",
    "deployment_ids": "1\n2\n",
    "auth_login_url": "https://moodle.uni.example/mod/lti/auth.php",
    "auth_token_url": "https://moodle.uni.example/mod/lti/token.php",
    "key_set_url": "https://moodle.uni.example/mod/lti/certs.php",
}


def test_an_administrator_registers_on_the_page_only_they_see(app, runner):
    from tests.app_support import csrf_from

    runner.invoke(args=["user", "create", "root@uni.example", "--password", PASSWORD])
    made = runner.invoke(args=["user", "admin", "root@uni.example"])
    assert made.exit_code == 0 and "is an administrator" in made.output
    teacher = log_in(app, "prof@uni.example", "instructor")  # an instructor is not enough
    assert teacher.get("/admin/lti").status_code == 403
    assert (
        "/admin/lti"
        not in teacher.get("/lti/registrations").get_data(as_text=True).split("<main")[0]
    )  # no Admin link in the navigation
    root = app.test_client()
    token = csrf_from(root.get("/login").get_data(as_text=True))
    root.post(
        "/login", data={"email": "root@uni.example", "password": PASSWORD, "csrf_token": token}
    )
    page = root.get("/admin/lti")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and 'name="key_set_url"' in html
    assert 'href="/admin/lti"' in html.split("<main")[0]  # the Admin link, for them only
    refused = root.post("/admin/lti", data=MOODLE)  # no CSRF token
    assert refused.status_code == 400
    bad = root.post(
        "/admin/lti",
        data={**MOODLE, "key_set_url": "file:///etc/passwd", "csrf_token": csrf_from(html)},
    )
    assert "must be an http(s) URL" in bad.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(sa.select(LtiRegistration)) is None
    done = root.post("/admin/lti", data={**MOODLE, "csrf_token": csrf_from(html)})
    assert done.status_code == 302
    with app.app_context():
        reg = db.session.scalar(sa.select(LtiRegistration))
        assert reg.issuer == "https://moodle.uni.example" and reg.trust_emails is False
        assert sorted(d.deployment_id for d in reg.deployments) == ["1", "2"]
    listed = root.get("/admin/lti").get_data(as_text=True)
    assert "https://moodle.uni.example" in listed and "1, 2" in listed
    revoked = runner.invoke(args=["user", "admin", "root@uni.example", "--revoke"])
    assert revoked.exit_code == 0
    assert root.get("/admin/lti").status_code == 403  # from the next request on


def test_the_tool_key_is_made_once_and_published(app, client):
    first = client.get("/lti/jwks").get_json()
    second = client.get("/lti/jwks").get_json()
    assert first == second and len(first["keys"]) == 1
    key = first["keys"][0]
    assert key["kty"] == "RSA" and key["alg"] == "RS256" and key["use"] == "sig" and key["kid"]
    assert "d" not in key  # the public half only
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(LtiKey)) == 1
