"""Forgot password: a link by e-mail (a real SMTP conversation with the test mail backend), single
use, expiring, rate limited, one answer whatever the address; using it revokes every session and
API token of the account; an account the LMS made is told to sign in through its LMS."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import PasswordReset
from tests.app_support import PASSWORD, bearer, csrf_from

STUDENT, STRANGER, LMS = "student@example.com", "nobody@example.com", "prof.lms@uni.edu"
NEW_PASSWORD = "a brand new passphrase"


@pytest.fixture
def mailing(app, smtp) -> Any:
    app.config.update(
        GRADER_SMTP_HOST="127.0.0.1",
        GRADER_SMTP_PORT=smtp.port,
        GRADER_SMTP_STARTTLS=False,
        GRADER_SMTP_FROM="grader@example.edu",
    )
    return smtp


def _forgot(client, email: str) -> Any:
    token = csrf_from(client.get("/forgot").get_data(as_text=True))
    return client.post("/forgot", data={"email": email, "csrf_token": token}, follow_redirects=True)


def _link(message: Any) -> str:
    found = re.search(r"http://localhost(/reset/\S+)", message.get_content())
    assert found, message.get_content()
    return found.group(1)


def _reset(client, link: str, password: str = NEW_PASSWORD) -> Any:
    page = client.get(link)
    if page.status_code != 200:
        return page
    return client.post(
        link,
        data={
            "password": password,
            "confirm": password,
            "csrf_token": csrf_from(page.get_data(as_text=True)),
        },
    )


def _page_words(response: Any) -> str:
    """The page's text without its CSRF token (which differs at every visit)."""
    return re.sub(r'name="csrf_token"[^>]*>', "", response.get_data(as_text=True))


def test_the_answer_is_the_same_whether_or_not_the_address_has_an_account(
    app, client, factory, mailing
):
    factory.user(STUDENT)
    known = _forgot(app.test_client(), STUDENT)
    unknown = _forgot(app.test_client(), STRANGER)
    assert known.status_code == unknown.status_code == 200
    assert _page_words(known) == _page_words(unknown)
    assert "If an account has this address" in _page_words(known)
    messages = mailing.wait_for(1)
    assert [recipients for recipients, _ in messages] == [[STUDENT]]


def test_the_link_sets_a_new_password_once_and_revokes_every_session_and_token(
    app, client, auth, factory, mailing
):
    factory.user(STUDENT)
    token = factory.token(STUDENT)
    auth.login()  # a session elsewhere
    assert client.get("/account").status_code == 200
    stranger = app.test_client()
    _forgot(stranger, STUDENT)
    ((_, message),) = mailing.wait_for(1)
    link = _link(message)
    done = _reset(stranger, link)
    assert done.status_code == 302
    words = stranger.get("/login").get_data(as_text=True)
    assert "1 API token was revoked" in words
    # Every way in made before the link: gone, for reads and writes.
    assert client.get("/api/me", headers=bearer(token)).status_code == 401
    assert (
        client.post("/api/exercises", json={"kind": "prune"}, headers=bearer(token)).status_code
        == 401
    )
    assert client.get("/account").status_code == 302  # the other session ended
    # The new password signs in; the old one no longer does.
    assert auth.login(STUDENT, PASSWORD).status_code == 200
    assert auth.login(STUDENT, NEW_PASSWORD).status_code == 302
    # Single use.
    again = _reset(app.test_client(), link, "yet another passphrase")
    assert again.status_code == 404 and "not valid" in again.get_data(as_text=True)


def test_an_expired_or_replaced_link_is_refused(app, factory, mailing):
    factory.user(STUDENT)
    _forgot(app.test_client(), STUDENT)
    first = _link(mailing.wait_for(1)[0][1])
    _forgot(app.test_client(), STUDENT)
    second = _link(mailing.wait_for(2)[1][1])
    assert _reset(app.test_client(), first).status_code == 404  # replaced by the newer one
    with app.app_context():
        db.session.execute(sa.update(PasswordReset).values(expires_at=dt.datetime(2000, 1, 1)))
        db.session.commit()
    assert _reset(app.test_client(), second).status_code == 404
    with app.app_context():
        assert db.session.scalar(sa.select(PasswordReset.used_at)) is None  # nothing changed


def test_the_link_lives_only_as_long_as_the_setting(app, factory, mailing):
    app.config["GRADER_RESET_MINUTES"] = 15
    factory.user(STUDENT)
    _forgot(app.test_client(), STUDENT)
    assert "for 15 minutes" in mailing.wait_for(1)[0][1].get_content()
    with app.app_context():
        made = db.session.scalar(sa.select(PasswordReset))
        assert made.expires_at - made.created_at == dt.timedelta(minutes=15)


def test_an_lms_account_is_told_to_sign_in_through_its_lms(app, factory, mailing):
    from grader.services import accounts

    with app.app_context():
        user_id = accounts.create_user(LMS, None, "instructor").id
    factory.lms_identity(user_id, "prof-1")
    answer = _forgot(app.test_client(), LMS)
    assert "If an account has this address" in answer.get_data(as_text=True)
    ((recipients, message),) = mailing.wait_for(1)
    assert recipients == [LMS]
    assert "Sign in through your LMS" in message.get_content()
    assert "/reset/" not in message.get_content()
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(PasswordReset.id))) == 0


def test_asking_is_rate_limited_per_address_typed(app, factory, mailing):
    factory.user(STUDENT)
    app.config["GRADER_RESET_LIMIT"] = "3 per hour"
    client = app.test_client()
    token = csrf_from(client.get("/forgot").get_data(as_text=True))
    answers = []
    for _ in range(4):
        answer = client.post("/forgot", data={"email": STUDENT, "csrf_token": token})
        answer.close()  # as a server does once the answer is sent: the mail goes then
        answers.append(answer.status_code)
    assert answers == [302, 302, 302, 429]
    assert len(mailing.wait_for(3)) == 3


def test_a_forged_link_is_refused(client, factory):
    factory.user(STUDENT)
    assert client.get("/reset/abc").status_code == 404
    assert client.get("/reset/" + "x" * 5000).status_code == 404


def test_without_e_mail_the_page_says_so_and_no_link_is_made(app, client, factory):
    factory.user(STUDENT)
    page = client.get("/forgot").get_data(as_text=True)
    assert "sends no e-mail" in page and "Send the link" not in page
    token = csrf_from(client.get("/login").get_data(as_text=True))
    client.post("/forgot", data={"email": STUDENT, "csrf_token": token})
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(PasswordReset.id))) == 0
