"""The launch token signs in whoever holds its URL, so it goes only where the framed person
goes: the same-origin URLs of their pages, never a full URL that leaves them (the calendar feed
a person pastes elsewhere, the LMS's copy of a placed link, a mail's link to staff)."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest

from tests.app_support import csrf_from
from tests.lti.lti_platform import INSTRUCTOR, LEARNER, form_fields
from tests.lti.lti_support import bench
from tests.lti.test_advantage import course_of_context, make_assignment
from tests.lti.test_frames import framed_launch


@pytest.fixture
def lti_env(app, client):
    yield from bench(app, client)


def test_no_full_url_carries_the_launch_token(lti_env, app):
    client = app.test_client(use_cookies=False)
    teacher = lti_env.member("teacher", [INSTRUCTOR])
    assert framed_launch(lti_env, client, teacher).status_code == 302
    assignment_id = make_assignment(app, course_of_context(app))
    alice = framed_launch(lti_env, client, lti_env.member("alice", [LEARNER]))
    dashboard = client.get(alice.headers["Location"]).get_data(as_text=True)
    feed = html.unescape(re.search(r'value="([^"]+)" data-role="calendar-url"', dashboard)[1])
    assert feed.startswith("http://localhost/") and "lti_frame" not in feed
    assert 'href="/account?lti_frame=' in dashboard  # the page's own links do carry it
    # The deep-linking reply: the placed link's URL the LMS keeps and every student launches.
    picker_url = framed_launch(
        lti_env, client, teacher, message_type="LtiDeepLinkingRequest"
    ).headers["Location"]
    picker = client.get(picker_url).get_data(as_text=True)
    action = html.unescape(re.search(r'<form method="post" action="([^"]+)"', picker).group(1))
    token = parse_qs(urlsplit(action).query)["lti_frame"][0]
    reply = client.post(
        action, data={"csrf_token": csrf_from(picker), "choice": f"a:{assignment_id}"}
    )
    claims = jwt.decode(
        form_fields(reply.get_data(as_text=True))["JWT"], options={"verify_signature": False}
    )
    items = claims["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert items and all(token not in str(item) and "lti_frame" not in str(item) for item in items)


def test_a_page_never_framed_shows_nothing_to_click_inside_the_frame(lti_env, app):
    """Clickjacking: the account page (password, sign out everywhere, API tokens) opened in the
    frame under the token answers only a link to itself in a new window; its forms are never in
    the frame, and at the top level it refuses every frame."""
    client = app.test_client(use_cookies=False)
    location = framed_launch(lti_env, client, lti_env.member("alice", [LEARNER])).headers[
        "Location"
    ]
    token = parse_qs(urlsplit(location).query)["lti_frame"][0]
    framed = client.get(f"/account?lti_frame={token}", headers={"Sec-Fetch-Dest": "iframe"})
    text = framed.get_data(as_text=True)
    assert framed.status_code == 200 and 'data-role="new-window"' in text
    assert "<form" not in text.split('<main id="main"', 1)[1]
    assert f'href="/account?lti_frame={token}" target="_blank"' in text
    top = client.get(f"/account?lti_frame={token}")
    assert "frame-ancestors 'none'" in top.headers["Content-Security-Policy"]
    assert top.headers["X-Frame-Options"] == "DENY" and "<form" in top.get_data(as_text=True)
    # Without a token that signs someone in, no new-window page either: the frame is refused.
    stranger = client.get("/account?lti_frame=forged", headers={"Sec-Fetch-Dest": "iframe"})
    assert "frame-ancestors 'none'" in stranger.headers["Content-Security-Policy"]
