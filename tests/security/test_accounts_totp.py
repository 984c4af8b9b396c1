"""The second factor: RFC 6238 TOTP through pyotp, checked against the RFC's published vectors;
enrolment from the account page (a QR code and a confirming code); sign-in asks for a code after
the password; a code is good once (a replay in its window is refused); single-use recovery codes;
`GRADER_STAFF_TOTP=required` leads a staff account to enrol and keeps it off the staff pages
and the API until it has."""

from __future__ import annotations

import base64
import re
import time
from typing import Any

import pyotp
import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import RecoveryCode, User
from grader.services import Conflict, totp
from tests.app_support import PASSWORD, bearer, csrf_from

TEACHER, STUDENT = "teacher@example.com", "student@example.com"

# RFC 6238 Appendix B, SHA1: the ASCII secret "12345678901234567890", 8 digits.
RFC_SECRET = base64.b32encode(b"12345678901234567890").decode()
RFC_VECTORS = [
    (59, "94287082"),
    (1111111109, "07081804"),
    (1111111111, "14050471"),
    (1234567890, "89005924"),
    (2000000000, "69279037"),
    (20000000000, "65353130"),
]


@pytest.mark.parametrize(("at", "code"), RFC_VECTORS)
def test_the_codes_are_rfc_6238s(at, code):
    assert pyotp.TOTP(RFC_SECRET, digits=8).at(at) == code
    step = at // 30
    # The verification the sign-in uses: the code's own step, from 30 s either side too.
    assert totp.matching_step(RFC_SECRET, code, at, digits=8) == step
    assert totp.matching_step(RFC_SECRET, code, at + 30, digits=8) == step
    assert totp.matching_step(RFC_SECRET, code, at - 30, digits=8) == step
    assert totp.matching_step(RFC_SECRET, code, at + 90, digits=8) is None  # outside the window
    # Six digits, as the apps show: the same code's last six.
    assert totp.matching_step(RFC_SECRET, code[-6:], at) == step
    # Once used, a step never matches again (the replay rule), nor does an earlier one.
    assert totp.matching_step(RFC_SECRET, code, at, after=step, digits=8) is None
    wrong = f"{(int(code) + 1) % 10**8:08d}"
    assert totp.matching_step(RFC_SECRET, wrong, at, digits=8) is None


def _login(client, email: str) -> Any:
    token = csrf_from(client.get("/login").get_data(as_text=True))
    return client.post("/login", data={"email": email, "password": PASSWORD, "csrf_token": token})


def _code(client, code: str) -> Any:
    token = csrf_from(client.get("/login/code").get_data(as_text=True))
    return client.post("/login/code", data={"code": code, "csrf_token": token})


def _enrol(client) -> tuple[str, list[str]]:
    """Enrols the signed-in account from its page: the key from the page, a code from pyotp."""
    page = client.get("/account/second-factor").get_data(as_text=True)
    assert "<svg" in page  # the QR code
    secret = re.search(r'id="totp-secret">([A-Z2-7]+)<', page).group(1)
    done = client.post(
        "/account/second-factor",
        data={"code": pyotp.TOTP(secret).now(), "csrf_token": csrf_from(page)},
    )
    assert done.status_code == 201, done.get_data(as_text=True)
    codes = re.findall(r"<li><code>([a-z2-7-]+)</code></li>", done.get_data(as_text=True))
    return secret, codes


def test_enrolment_then_sign_in_asks_for_a_code_and_refuses_its_replay(app, client, factory):
    factory.user(TEACHER, "instructor")
    assert _login(client, TEACHER).status_code == 302
    secret, codes = _enrol(client)
    assert len(codes) == 10 and len(set(codes)) == 10
    with app.app_context():
        stored = db.session.scalars(sa.select(RecoveryCode.code_hash)).all()
        assert len(stored) == 10 and not set(codes) & set(stored)  # hashed
        assert db.session.scalar(sa.select(User.totp_secret)) == secret
    client.post("/logout", data={"csrf_token": csrf_from(client.get("/account").get_data(True))})
    # The password alone no longer signs in: it leads to the code.
    answer = _login(client, TEACHER)
    assert answer.status_code == 302 and answer.location.endswith("/login/code")
    assert client.get("/account").status_code == 302
    # The enrolment's confirming code is spent; the next step's code signs in.
    with app.app_context():
        spent = db.session.scalar(sa.select(User.totp_last_step))
    assert _code(client, pyotp.TOTP(secret).generate_otp(spent)).status_code == 200  # refused
    code = pyotp.TOTP(secret).at(time.time() + 30)
    assert _code(client, code).status_code == 302
    assert client.get("/account").status_code == 200
    # The same code again, within its window, from another browser: refused.
    other = app.test_client()
    assert _login(other, TEACHER).status_code == 302
    replay = _code(other, code)
    assert replay.status_code == 200 and "was used already" in replay.get_data(as_text=True)
    assert other.get("/account").status_code == 302


def test_a_recovery_code_signs_in_once(app, client, factory):
    factory.user(TEACHER, "instructor")
    _login(client, TEACHER)
    _, codes = _enrol(client)
    stranger = app.test_client()
    _login(stranger, TEACHER)
    assert _code(stranger, codes[0].upper()).status_code == 302  # any case, dashes or not
    again = app.test_client()
    _login(again, TEACHER)
    assert _code(again, codes[0]).status_code == 200
    assert _code(again, codes[1].replace("-", "")).status_code == 302


def test_a_password_reset_does_not_pass_the_second_factor(app, client, factory):
    from grader.services import recovery

    factory.user(TEACHER, "instructor")
    _login(client, TEACHER)
    _enrol(client)
    app.config["GRADER_SMTP_HOST"] = "127.0.0.1"  # the message is made, not sent, here
    with app.test_request_context():
        (message,) = recovery.request_reset(TEACHER, lambda token: f"/reset/{token}")
    link = re.search(r"/reset/\S+", message[2]).group(0)
    fresh = app.test_client()
    page = fresh.get(link).get_data(as_text=True)
    new = "a brand new passphrase"
    fresh.post(link, data={"password": new, "confirm": new, "csrf_token": csrf_from(page)})
    token = csrf_from(fresh.get("/login").get_data(as_text=True))
    answer = fresh.post("/login", data={"email": TEACHER, "password": new, "csrf_token": token})
    assert answer.location.endswith("/login/code")
    assert fresh.get("/account").status_code == 302


def test_required_for_staff_leads_to_enrolment_and_keeps_staff_pages_closed(app, client, factory):
    app.config["GRADER_STAFF_TOTP"] = "required"
    factory.user(TEACHER, "instructor")
    factory.user(STUDENT)
    course_id, _ = factory.course("Search 101", TEACHER)
    token = factory.token(TEACHER)
    answer = _login(client, TEACHER)
    assert answer.location.endswith("/account/second-factor")
    home = client.get("/instructor/")
    assert home.status_code == 302 and home.location.endswith("/account/second-factor")
    assert client.get(f"/api/courses/{course_id}/gradebook").status_code == 403
    staff = client.get(f"/api/courses/{course_id}/gradebook", headers=bearer(token))
    assert staff.status_code == 403 and "second factor" in staff.get_json()["error"]
    # A student is not asked.
    learner = app.test_client()
    assert _login(learner, STUDENT).location.endswith("/dashboard")
    # Once enrolled, the staff pages open; the second factor cannot be turned off.
    _enrol(client)
    assert client.get("/instructor/").status_code == 200
    assert (
        client.get(f"/api/courses/{course_id}/gradebook", headers=bearer(token)).status_code == 200
    )
    page = client.get("/account").get_data(as_text=True)
    assert "Turn off" not in page
    with app.app_context(), pytest.raises(Conflict, match="requires a second factor"):
        totp.turn_off(db.session.scalar(sa.select(User.id).where(User.email == TEACHER)), "")


def test_the_code_step_is_rate_limited(app, client, factory):
    factory.user(TEACHER, "instructor")
    _login(client, TEACHER)
    _enrol(client)
    app.config["GRADER_LOGIN_LIMIT_ACCOUNT"] = "3 per 15 minutes"
    other = app.test_client()
    _login(other, TEACHER)
    answers = [_code(other, "000000").status_code for _ in range(4)]
    assert answers[-1] == 429


def test_turning_it_off_takes_a_code_and_the_operator_can_for_a_lost_phone(
    app, client, runner, factory
):
    factory.user(TEACHER, "instructor")
    _login(client, TEACHER)
    secret, _ = _enrol(client)
    token = csrf_from(client.get("/account").get_data(as_text=True))
    refused = client.post(
        "/account/second-factor/off",
        data={"code": "123456", "csrf_token": token},
        follow_redirects=True,
    )
    assert "not right" in refused.get_data(as_text=True)
    code = pyotp.TOTP(secret).at(time.time() + 30)
    client.post("/account/second-factor/off", data={"code": code, "csrf_token": token})
    with app.app_context():
        assert db.session.scalar(sa.select(User.totp_secret)) is None
        assert db.session.scalar(sa.select(sa.func.count(RecoveryCode.id))) == 0
    _enrol(client)
    done = runner.invoke(args=["user", "second-factor-off", TEACHER])
    assert done.exit_code == 0 and "turned off" in done.output
    fresh = app.test_client()
    assert _login(fresh, TEACHER).location.endswith("/instructor/")


def test_the_setting_takes_only_its_two_values(tmp_path):
    from grader import config

    with pytest.raises(ValueError, match="GRADER_STAFF_TOTP"):
        config.load(tmp_path, environ={"GRADER_STAFF_TOTP": "sometimes"})
    assert config.load(tmp_path, environ={})["GRADER_STAFF_TOTP"] == "optional"


@pytest.fixture
def lti_env(app, client):
    from tests.lti.lti_support import bench

    yield from bench(app, client)


def test_linking_an_lms_launch_to_an_account_with_a_second_factor_needs_a_code(
    app, client, factory, lti_env
):
    """The LMS opens a linked account with neither factor: linking takes both."""
    from tests.lti.lti_platform import LEARNER

    factory.user(TEACHER, "instructor")
    owner = app.test_client()
    _login(owner, TEACHER)
    secret, _ = _enrol(owner)
    lti_env.launch(client, lti_env.member("mallory", [LEARNER]))
    made = lti_env.user("mallory").id

    def link(code: str) -> Any:
        token = csrf_from(client.get("/lti/account").get_data(as_text=True))
        return client.post(
            "/lti/account",
            data={"csrf_token": token, "email": TEACHER, "password": PASSWORD, "code": code},
        )

    refused = link("")  # the password alone, as a thief who has it
    assert refused.status_code == 200 and "second factor" in refused.get_data(as_text=True)
    assert lti_env.user("mallory").id == made
    assert link(pyotp.TOTP(secret).at(time.time() + 30)).status_code == 302
    with app.app_context():
        assert lti_env.user("mallory").email == TEACHER


def test_the_code_is_asked_for_within_five_minutes_of_the_password(app, client, factory):
    factory.user(TEACHER, "instructor")
    _login(client, TEACHER)
    secret, _ = _enrol(client)
    late = app.test_client()
    _login(late, TEACHER)
    with late.session_transaction() as session:
        pending = session["second_factor"]
        session["second_factor"] = {**pending, "at": pending["at"] - 301}
    answer = late.get("/login/code")
    assert answer.status_code == 302 and answer.location.endswith("/login")
    token = csrf_from(late.get("/login").get_data(as_text=True))
    code = pyotp.TOTP(secret).at(time.time() + 30)
    late.post("/login/code", data={"code": code, "csrf_token": token})
    assert late.get("/account").status_code == 302  # not signed in
