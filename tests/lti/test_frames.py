"""A launch inside the LMS's frame, as a browser that blocks third-party cookies makes it: no
cookie ever comes back (the test clients keep none). The OIDC state goes through the
platform's storage (1EdTech Platform Storage: the browser's part played here by reading the
pages' data and posting what the storage frame would answer), the pages after the launch are
signed in by the launch token, and only they may be framed, by the platform only."""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import requests

from tests.app_support import csrf_from
from tests.lti.lti_platform import INSTRUCTOR, LEARNER, form_fields
from tests.lti.lti_support import LAUNCH_URL, Env

FRAME = {"Sec-Fetch-Dest": "iframe"}
OWN = {"Origin": "http://localhost"}


def _data(page: str) -> dict[str, str]:
    box = re.search(r'<div id="lti-frame"([^>]*)>', page)
    assert box, page
    return {k: html.unescape(v) for k, v in re.findall(r'data-(\w+)="([^"]*)"', box.group(1))}


def _login_fields(env: Env, member: Any, **claims: Any) -> dict[str, str]:
    hint = f"hint-{member.sub}-{len(env.platform.pending)}"
    env.platform.pending[hint] = env.platform.launch_claims(member, **claims)
    return {
        "iss": env.platform.issuer,
        "login_hint": member.sub,
        "lti_message_hint": hint,
        "target_link_uri": LAUNCH_URL,
        "client_id": env.platform.client_id,
        "lti_deployment_id": env.platform.deployment_id,
    }


def framed_launch(env: Env, client: Any, member: Any, **claims: Any) -> Any:
    """Login with a storage target, the platform's auth, the launch, the state read back from
    the platform's storage and confirmed: the tool's answer to the confirmation."""
    fields = _login_fields(env, member, **claims) | {"lti_storage_target": "_parent"}
    login = client.post("/lti/login", data=fields, headers=FRAME)
    assert login.status_code == 200, login.get_data(as_text=True)
    put = _data(login.get_data(as_text=True))
    assert put["mode"] == "put" and put["origin"] == env.platform.base
    assert put["next"].startswith(env.platform.base + "/auth?")
    assert parse_qs(urlsplit(put["next"]).query)["state"] == [put["key"]]
    auth = requests.get(put["next"], timeout=10)  # the storage frame answered lti.put_data
    launch = client.post("/lti/launch", data=form_fields(auth.text), headers=FRAME)
    assert launch.status_code == 200, launch.get_data(as_text=True)
    got = _data(launch.get_data(as_text=True))
    assert got["mode"] == "get" and got["key"] == put["key"]
    assert got["origin"] == env.platform.base  # the auth endpoint's: where the storage frame is
    launch_id = form_fields(launch.get_data(as_text=True))["launch_id"]
    return client.post(
        "/lti/launch/confirm",
        data={"launch_id": launch_id, "state": put["key"]},  # what lti.get_data returned
        headers=FRAME | OWN,
    )


def test_a_framed_launch_signs_in_without_a_cookie(lti_env, app):
    alice = lti_env.member("alice", [LEARNER])
    client = app.test_client(use_cookies=False)
    answer = framed_launch(lti_env, client, alice)
    assert answer.status_code == 302
    location = answer.headers["Location"]
    assert "lti_frame=" in location
    page = client.get(location)
    assert page.status_code == 200
    assert "CS 188" in page.get_data(as_text=True)  # the dashboard of Alice's LMS course
    policy = page.headers["Content-Security-Policy"]
    assert f"frame-ancestors 'self' https://lms.example.edu {lti_env.platform.base}" in policy
    assert "X-Frame-Options" not in page.headers
    # The same page without the token: no one signed in, and no frame at all.
    bare = client.get(location.split("?")[0])
    assert bare.status_code == 302 and "/login" in bare.headers["Location"]
    assert "frame-ancestors 'none'" in bare.headers["Content-Security-Policy"]
    # An ordinary page, even with the token: never framed.
    token = parse_qs(urlsplit(location).query)["lti_frame"][0]
    other = client.get("/account?lti_frame=" + token)
    assert "frame-ancestors 'none'" in other.headers["Content-Security-Policy"]
    assert other.headers["X-Frame-Options"] == "DENY"


def test_deep_linking_in_a_frame_without_a_cookie(lti_env, app):
    from tests.lti.test_advantage import course_of_context, make_assignment

    teacher = lti_env.member("teacher", [INSTRUCTOR])
    client = app.test_client(use_cookies=False)
    assert framed_launch(lti_env, client, teacher).status_code == 302  # the course is made
    assignment_id = make_assignment(app, course_of_context(app))
    answer = framed_launch(lti_env, client, teacher, message_type="LtiDeepLinkingRequest")
    picker_url = answer.headers["Location"]
    assert "/lti/deep-link/" in picker_url and "lti_frame=" in picker_url
    picker = client.get(picker_url)
    assert picker.status_code == 200
    text = picker.get_data(as_text=True)
    assert lti_env.platform.base in picker.headers["Content-Security-Policy"]
    # The form's action carries the token; its CSRF token holds without a session cookie.
    action = html.unescape(re.search(r'<form method="post" action="([^"]+)"', text).group(1))
    assert "lti_frame=" in action
    reply = client.post(
        action, data={"csrf_token": csrf_from(text), "choice": f"a:{assignment_id}"}
    )
    assert reply.status_code == 200, reply.get_data(as_text=True)
    jwt = form_fields(reply.get_data(as_text=True))["JWT"]
    policy = reply.headers["Content-Security-Policy"]
    assert "frame-ancestors 'self' https://lms.example.edu" in policy
    assert f"form-action 'self' {lti_env.platform.base}" in policy
    placed = requests.post(
        lti_env.platform.base + "/deep_link_return", data={"JWT": jwt}, timeout=10
    )
    assert placed.text == "placed"
    # Without the form's CSRF token the same post is refused.
    refused = client.post(action, data={"choice": f"a:{assignment_id}"})
    assert refused.status_code == 400


def test_the_state_must_come_back_from_the_platform_storage(lti_env, app):
    """A login-CSRF: an id_token posted with a state the victim's platform storage does not
    hold, or the confirmation posted by another site, signs no one in."""
    alice = lti_env.member("alice", [LEARNER])
    client = app.test_client(use_cookies=False)
    fields = _login_fields(lti_env, alice) | {"lti_storage_target": "_parent"}
    put = _data(client.post("/lti/login", data=fields, headers=FRAME).get_data(as_text=True))
    auth = requests.get(put["next"], timeout=10)
    launch = client.post("/lti/launch", data=form_fields(auth.text), headers=FRAME)
    launch_id = form_fields(launch.get_data(as_text=True))["launch_id"]
    wrong = client.post(
        "/lti/launch/confirm",
        data={"launch_id": launch_id, "state": "state-not-it"},
        headers=FRAME | OWN,
    )
    assert wrong.status_code == 400 and lti_env.user("alice") is None
    elsewhere = client.post(
        "/lti/launch/confirm",
        data={"launch_id": launch_id, "state": put["key"]},
        headers=FRAME | {"Origin": "https://evil.example"},
    )
    assert elsewhere.status_code == 400 and lti_env.user("alice") is None
    # Without the storage step, the launch is refused: the state is in no cookie either.
    fields = _login_fields(lti_env, alice)
    login = client.post("/lti/login", data=fields)  # a top-level login: a 302 and its cookie
    auth = requests.get(login.headers["Location"], timeout=10)
    stolen = client.post("/lti/launch", data=form_fields(auth.text), headers=FRAME)
    assert stolen.status_code == 400 and "State not found" in stolen.get_data(as_text=True)


def test_a_forged_or_stale_token_signs_no_one_in(lti_env, app):
    alice = lti_env.member("alice", [LEARNER])
    client = app.test_client(use_cookies=False)
    location = framed_launch(lti_env, client, alice).headers["Location"]
    path, _, query = location.partition("?")
    token = parse_qs(query)["lti_frame"][0]
    forged = token[:-3] + ("AAA" if not token.endswith("AAA") else "BBB")
    answer = client.get(f"{path}?lti_frame={forged}")
    assert answer.status_code == 401 and "Open the activity again from your LMS" in answer.text
    assert "frame-ancestors 'none'" in answer.headers["Content-Security-Policy"]
    assert 'type="password"' not in answer.text  # never a sign-in form
    with app.app_context():  # a sign-out everywhere ends the token as it ends a cookie
        from grader.services import accounts

        accounts.revoke_access(lti_env.user("alice").id)
    ended = client.get(location)
    assert ended.status_code == 401 and "Open the activity again" in ended.text
    # ... shown inside the LMS's frame: the token was this service's, for that platform.
    assert lti_env.platform.base in ended.headers["Content-Security-Policy"]


def test_a_token_past_its_two_hours_asks_for_the_lms_again(lti_env, app, monkeypatch):
    from grader.services.lti import frames

    alice = lti_env.member("alice", [LEARNER])
    client = app.test_client(use_cookies=False)
    location = framed_launch(lti_env, client, alice).headers["Location"]
    assert client.get(location).status_code == 200
    monkeypatch.setattr(frames, "TOKEN_SECONDS", -1)  # every token is past its age now
    ended = client.get(location)
    assert ended.status_code == 401 and "Open the activity again" in ended.text
    assert lti_env.platform.base in ended.headers["Content-Security-Policy"]


def test_without_a_storage_target_a_frame_checks_its_cookies_first(lti_env, app):
    """Inside a frame, with no platform storage: a page that goes on to the platform when the
    frame keeps cookies, else shows one button, which starts the same login in a new window."""
    alice = lti_env.member("alice", [LEARNER])
    client = app.test_client()
    login = client.post("/lti/login", data=_login_fields(lti_env, alice), headers=FRAME)
    assert login.status_code == 200
    page = login.get_data(as_text=True)
    data = _data(page)
    assert data["mode"] == "cookie" and data["next"].startswith(lti_env.platform.base + "/auth?")
    assert "Open in a new window" in page and "Sign in" not in page
    again = html.unescape(re.search(r'href="([^"]*new_window=1[^"]*)"', page).group(1))
    top = client.get(again)  # the new window: a top-level login, the LMS's hint kept
    assert top.status_code == 302 and top.headers["Location"].startswith(lti_env.platform.base)
    assert "lti_message_hint=hint-alice" in top.headers["Location"]
    assert lti_env.platform.base in login.headers["Content-Security-Policy"]


def test_get_launch_answers_a_probe_plainly(client):
    answer = client.get("/lti/launch")
    assert answer.status_code == 200
    assert answer.mimetype == "text/plain"
    assert "<html" not in answer.get_data(as_text=True).lower()
