"""API tokens: an expiry, a list and a revoke, on the account page and in the CLI; a token is
stored only as a hash and shown once; nobody revokes or lists another account's tokens."""

from __future__ import annotations

import datetime as dt
import re

import sqlalchemy as sa

from grader.extensions import db
from grader.models import ApiToken

STUDENT, OTHER = "student@example.com", "other@example.com"


def _me(client, token: str) -> int:
    return client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).status_code


def test_account_page_makes_lists_and_revokes_tokens(client, app, auth, factory):
    factory.user(STUDENT)
    auth.login()
    made = client.post(
        "/account/tokens",
        data={"name": "my script", "days": "30", "read": "y", "csrf_token": auth.csrf()},
    )
    assert made.status_code == 201
    token = re.search(r'id="new-token">([^<]+)<', made.get_data(as_text=True)).group(1)
    assert _me(client, token) == 200
    page = client.get("/account").get_data(as_text=True)
    assert "<td>my script</td>" in page and token not in page  # listed, never shown again
    with app.app_context():
        stored = db.session.scalar(sa.select(ApiToken))
        assert stored.token_hash != token and token not in stored.token_hash
        assert (
            dt.timedelta(days=29) < stored.expires_at - stored.created_at <= dt.timedelta(days=30)
        )
        token_id = stored.id
    assert (
        client.post(
            f"/account/tokens/{token_id}/revoke", data={"csrf_token": auth.csrf()}
        ).status_code
        == 302
    )
    assert _me(client, token) == 401
    assert "<td>my script</td>" not in client.get("/account").get_data(as_text=True)
    # A lifetime out of bounds is refused.
    client.post("/account/tokens", data={"name": "x", "days": "5000", "csrf_token": auth.csrf()})
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(ApiToken.id))) == 0


def test_an_expired_token_is_refused(client, app, factory):
    factory.user(STUDENT)
    token = factory.token(STUDENT)
    assert _me(client, token) == 200
    with app.app_context():
        db.session.execute(sa.update(ApiToken).values(expires_at=dt.datetime(2000, 1, 1)))
        db.session.commit()
    assert _me(client, token) == 401


def test_nobody_revokes_another_accounts_token(client, app, auth, factory):
    factory.user(STUDENT)
    factory.user(OTHER)
    theirs = factory.token(OTHER)
    with app.app_context():
        their_id = db.session.scalar(sa.select(ApiToken.id))
    auth.login()
    refused = client.post(f"/account/tokens/{their_id}/revoke", data={"csrf_token": auth.csrf()})
    assert refused.status_code == 404
    assert _me(client, theirs) == 200


def test_the_cli_creates_lists_and_revokes(runner, client, factory):
    factory.user(STUDENT)
    made = runner.invoke(args=["user", "token", "create", STUDENT, "--name", "ci", "--days", "7"])
    assert made.exit_code == 0, made.output
    token = made.output.strip()
    assert _me(client, token) == 200
    listed = runner.invoke(args=["user", "token", "list", STUDENT]).output
    token_id, name, _, _, scopes, used = listed.strip().split("\t")
    # Just now, told by the server's clock (UTC here), named.
    assert scopes == "read" and re.fullmatch(r"\w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d UTC", used)
    assert name == "ci" and token not in listed
    assert runner.invoke(args=["user", "token", "revoke", OTHER, token_id]).exit_code != 0
    assert runner.invoke(args=["user", "token", "revoke", STUDENT, token_id]).exit_code == 0
    assert _me(client, token) == 401
    assert runner.invoke(args=["user", "token", "create", STUDENT, "--days", "1000"]).exit_code != 0


def test_a_token_request_neither_reads_nor_writes_the_cookie_session(client, factory, auth):
    """A request with an `Authorization` header is the token's alone: the browser's session
    cookie it may also carry signs nobody in, and no cookie is set or refreshed in reply."""
    factory.user(STUDENT)
    factory.user(OTHER)
    token = factory.token(STUDENT)
    auth.login(OTHER)  # the client now sends OTHER's session cookie with every request
    assert client.get("/api/me").get_json()["email"] == OTHER
    mine = client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert mine.get_json()["email"] == STUDENT
    assert "Set-Cookie" not in mine.headers and "Cookie" not in mine.headers.get("Vary", "")
    # A bad token, or another scheme, is refused even beside a valid session cookie.
    for header in (f"Bearer {token}x", "Basic c3R1ZGVudDpwdw=="):
        refused = client.get("/api/me", headers={"Authorization": header})
        assert refused.status_code == 401 and "Set-Cookie" not in refused.headers
    assert client.get("/api/me").get_json()["email"] == OTHER  # the cookie still works alone
