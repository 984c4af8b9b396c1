"""Launches from a real LTI 1.3 platform: accounts, course memberships and roles."""

from __future__ import annotations

import sqlalchemy as sa

from grader.extensions import db
from grader.models import Course, LtiContext, Membership
from tests.lti.lti_platform import INSTRUCTOR, LEARNER, TA


def membership_role(app, user_id: int) -> tuple[str, str]:
    with app.app_context():
        row = db.session.execute(
            sa.select(Membership.role, Course.name)
            .join(Course)
            .where(Membership.user_id == user_id)
        ).one()
        return row.role, row.name


def test_a_launch_creates_the_student_and_the_course_membership(lti_env, app):
    alice = lti_env.member("alice-sub", [LEARNER], "Alice Liddell", "alice@uni.example")
    assert lti_env.user("alice-sub") is None
    response = lti_env.launch(lti_env.client, alice)
    assert response.status_code == 302
    user = lti_env.user("alice-sub")
    # The platform's e-mail is not taken on its word (see the trusted case below).
    assert user is not None and user.name == "Alice Liddell"
    assert user.email.endswith("@lti.invalid")
    role, course = membership_role(app, user.id)
    assert role == "student" and course == lti_env.platform.context_title
    # The launch logged the student in: the dashboard shows the LMS's course.
    page = lti_env.client.get(
        "/dashboard"
        if response.headers["Location"].endswith("/dashboard")
        else response.headers["Location"]
    )
    assert page.status_code == 200


def test_a_course_the_lms_makes_is_in_the_servers_zone(lti_env, app):
    app.config["GRADER_TIMEZONE"] = "America/Chicago"
    teacher = lti_env.member("teacher-sub", [INSTRUCTOR], "Tess Teacher", "tess@uni.example")
    assert lti_env.launch(lti_env.client, teacher).status_code == 302
    with app.app_context():
        made = db.session.scalar(sa.select(Course).join(LtiContext))
        assert made is not None and made.timezone == "America/Chicago"


def test_roles_map_to_memberships_and_a_second_launch_reuses_the_account(lti_env, app):
    teacher = lti_env.member("t-sub", [INSTRUCTOR])
    ta = lti_env.member("ta-sub", [TA, INSTRUCTOR.replace("Instructor", "Mentor")])
    client_t, client_ta = app.test_client(), app.test_client()
    assert lti_env.launch(client_t, teacher).status_code == 302
    assert lti_env.launch(client_ta, ta).status_code == 302
    assert membership_role(app, lti_env.user("t-sub").id)[0] == "instructor"
    assert membership_role(app, lti_env.user("ta-sub").id)[0] == "ta"
    first = lti_env.user("t-sub").id
    assert lti_env.launch(app.test_client(), teacher).status_code == 302
    assert lti_env.user("t-sub").id == first
    with app.app_context():  # one course for the one LMS context
        assert db.session.scalar(sa.select(sa.func.count()).select_from(LtiContext)) == 1


def trust_emails(app) -> None:
    from grader.models import LtiRegistration

    with app.app_context():  # what `grader lti register --trust-emails` stores
        db.session.execute(sa.update(LtiRegistration).values(trust_emails=True))
        db.session.commit()


def test_a_trusted_platform_gives_its_email_addresses(lti_env, app):
    trust_emails(app)
    alice = lti_env.member("alice-sub", [LEARNER], "Alice Liddell", "Alice@Uni.Example")
    lti_env.launch(lti_env.client, alice)
    assert lti_env.user("alice-sub").email == "alice@uni.example"


def test_a_platform_email_never_logs_into_an_existing_account(lti_env, app):
    from grader.services import accounts

    trust_emails(app)
    with app.app_context():
        admin = accounts.create_user("boss@uni.example", "correct horse battery", "instructor")
    mallory = lti_env.member("mallory", [INSTRUCTOR], "Mallory", "boss@uni.example")
    assert lti_env.launch(lti_env.client, mallory).status_code == 302
    user = lti_env.user("mallory")
    assert user.id != admin.id and user.email.endswith("@lti.invalid")


def test_over_https_the_lti_cookies_survive_a_cross_site_post(lti_env, app):
    """pylti1p3's state cookie is SameSite=None and Secure over HTTPS, so the browser sends it
    with the LMS's cross-site POST; its launch-storage session id is not used (a browser that
    blocks third-party cookies would drop it in the LMS's frame, and every nonce with it)."""
    alice = lti_env.member("alice", [LEARNER])
    client = app.test_client()
    response = lti_env.launch(client, alice, base_url="https://localhost")
    assert response.status_code == 302
    cookies = lti_env.last_login.headers.getlist("Set-Cookie")
    named = {c.split("=", 1)[0]: c for c in cookies}
    assert any(name.startswith("lti1p3-state-") for name in named)
    assert "lti1p3-session-id" not in named
    for cookie in named.values():
        assert "Secure" in cookie and "SameSite=None" in cookie and "HttpOnly" in cookie
    assert lti_env.user("alice") is not None


def test_behind_a_trusted_tls_proxy_the_urls_are_https(tmp_path, db_file, monkeypatch):
    import re

    from grader import create_app
    from grader.services import accounts

    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path / "instance2"))
    config = {
        "TESTING": True,
        "SECRET_KEY": "x",
        "GRADER_TRUSTED_PROXIES": 1,
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{db_file}",
        "GRADER_ARGON2": {"time_cost": 1, "memory_cost": 1024, "parallelism": 1},
    }
    proxied = create_app(config)
    with proxied.app_context():
        accounts.create_user("prof@uni.example", "correct horse battery", "instructor")
    client = proxied.test_client()
    base = "http://grader.uni.example"  # the proxy speaks plain HTTP to the service
    forwarded = {"X-Forwarded-Proto": "https"}
    page = client.get("/login", base_url=base, headers=forwarded).get_data(as_text=True)
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page).group(1)
    # Over https Flask-WTF also wants a same-site Referer: the proxy made the request secure.
    client.post(
        "/login",
        base_url=base,
        headers={**forwarded, "Referer": "https://grader.uni.example/login"},
        data={
            "email": "prof@uni.example",
            "password": "correct horse battery",
            "csrf_token": token,
        },
    )
    html = client.get("/lti/registrations", base_url=base, headers=forwarded).get_data(as_text=True)
    assert "https://grader.uni.example/lti/login" in html
    assert "https://grader.uni.example/lti/jwks" in html
    # Without the header the same page gives the plain address: the header made the difference.
    html = client.get("/lti/registrations", base_url=base).get_data(as_text=True)
    assert "http://grader.uni.example/lti/login" in html


def test_a_new_account_is_offered_the_link_to_an_existing_one(lti_env, app):
    client = app.test_client()
    response = lti_env.launch(client, lti_env.member("newbie", [LEARNER]))
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert 'href="/lti/account"' in page  # the welcome message links the account page
    again = lti_env.launch(client, lti_env.member("newbie", [LEARNER]))
    assert 'href="/lti/account"' not in client.get(again.headers["Location"]).get_data(as_text=True)


def test_a_platform_that_rotates_its_key_between_two_launches(lti_env, app, monkeypatch):
    # Issue 28: the cached key set lacks the new kid, so the tool fetches the set again.
    alice = lti_env.member("alice-sub", [LEARNER])
    assert lti_env.launch(lti_env.client, alice).status_code == 302
    assert lti_env.platform.jwks_fetches == 1
    lti_env.platform.rotate_key("platform-key-2")
    bob = lti_env.member("bob-sub", [LEARNER])
    response = lti_env.launch(app.test_client(), bob)
    assert response.status_code == 302, response.get_data(as_text=True)
    assert lti_env.user("bob-sub") is not None
    assert lti_env.platform.jwks_fetches == 2
    # The refreshed set is cached: a third launch fetches nothing.
    carol = lti_env.member("carol-sub", [LEARNER])
    assert lti_env.launch(app.test_client(), carol).status_code == 302
    assert lti_env.platform.jwks_fetches == 2
