"""The pages inside the LMS's frame, as a browser that blocks third-party cookies gets them (the
test clients keep no cookie): the messages a page flashes reach the next page in the frame, and
every link and form of a framed page keeps the launch token, leading to a page that answers
signed in, framed by the platform (or, for a page that is never framed, opens a new window)."""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

from tests.app_support import csrf_from
from tests.lti.lti_platform import INSTRUCTOR, LEARNER
from tests.lti.test_advantage import course_of_context, make_assignment
from tests.lti.test_frames import framed_launch

WELCOME = "Welcome! Your LMS opened a new account here."


def test_the_welcome_of_a_new_account_shows_in_the_frame_once(lti_env, app):
    client = app.test_client(use_cookies=False)
    location = framed_launch(lti_env, client, lti_env.member("alice", [LEARNER])).headers[
        "Location"
    ]
    page = client.get(location)
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert WELCOME in text
    # The service's own link in it stays a link (markup kept), and keeps the token.
    link = html.unescape(text.split(WELCOME, 1)[1].split('href="', 1)[1].split('"', 1)[0])
    assert urlsplit(link).path == "/lti/account" and "lti_frame=" in link
    # Shown once, as a cookie session's flash is.
    assert WELCOME not in client.get(location).get_data(as_text=True)


def test_a_message_flashed_under_a_frame_reaches_the_next_page(lti_env, app):
    teacher = lti_env.member("teacher", [INSTRUCTOR])
    client = app.test_client(use_cookies=False)
    setup = framed_launch(lti_env, client, teacher, resource_link="moodle-activity-7")
    url = setup.headers["Location"]
    assert "/lti/setup/" in url and "lti_frame=" in url
    page = client.get(url).get_data(as_text=True)
    made = client.post(
        url, data={"csrf_token": csrf_from(page), "preset": "standard", "title": "Homework 1"}
    )
    assert made.status_code == 302 and "lti_frame=" in made.headers["Location"]
    # An API call in between (the page's scripts) leaves the message for the page.
    token = parse_qs(urlsplit(url).query)["lti_frame"][0]
    assert client.get("/api/me", headers={"X-LTI-Frame": token}).status_code == 200
    shown = client.get(made.headers["Location"])
    assert shown.status_code == 200
    assert "Homework 1 is ready: this LMS link opens it" in shown.get_data(as_text=True)


_TAG = re.compile(r"<(a|form)\b([^>]*)>", re.S)
_ATTR = re.compile(r'([\w-]+)="([^"]*)"')
FRAME = {"Sec-Fetch-Dest": "iframe"}


def _links(page: str, here: str) -> list[tuple[str, dict[str, str], str]]:
    """Every same-origin link and form of a page: (tag, its attributes, the URL it leads to)."""
    found = []
    for tag, attributes in _TAG.findall(page):
        attrs = {k: html.unescape(v) for k, v in _ATTR.findall(attributes)}
        target = attrs.get("href" if tag == "a" else "action")
        if target is None or target.startswith(("#", "mailto:", "javascript:")):
            continue
        url = urljoin(urljoin("http://localhost/", here), target).split("#")[0]
        if not url.startswith("http://localhost/"):
            continue  # another site's page (the LMS, docs)
        found.append((tag, attrs, url.removeprefix("http://localhost")))
    return found


def _frame_ancestors(answer: Any) -> list[str]:
    policy = answer.headers.get("Content-Security-Policy", "")
    [directive] = [d.strip() for d in policy.split(";") if "frame-ancestors" in d] or [""]
    return directive.split()[1:]


def test_every_link_and_form_of_a_framed_page_keeps_the_launch(lti_env, app):
    """Crawls what a teacher's and a student's framed launches lead to, as the frame would: every
    same-origin link and form carries the launch's token; each link answers inside the frame,
    signed in, framed by the platform only (a page that is never framed answers one button that
    opens it in a new window, signed in there and unframeable); each form's target answers
    inside the frame too."""
    platform = lti_env.platform.base
    client = app.test_client(use_cookies=False)
    teacher = framed_launch(lti_env, client, lti_env.member("teacher", [INSTRUCTOR]))
    make_assignment(app, course_of_context(app))
    student = framed_launch(lti_env, client, lti_env.member("alice", [LEARNER]))
    picker = framed_launch(
        lti_env,
        client,
        lti_env.member("teacher", [INSTRUCTOR]),
        message_type="LtiDeepLinkingRequest",
    )
    starts = [r.headers["Location"] for r in (teacher, student, picker)]
    queue = [(u, parse_qs(urlsplit(u).query)["lti_frame"][0]) for u in starts]
    seen: set[str] = set()
    checked = {"in the frame": 0, "new window": 0, "forms": 0}
    while queue:
        url, token = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        answer = client.get(url, headers=FRAME)
        while answer.status_code == 302:  # a redirect stays in the frame, with the token
            url = answer.headers["Location"]
            assert parse_qs(urlsplit(url).query).get("lti_frame") == [token], url
            answer = client.get(url, headers=FRAME)
        assert answer.status_code == 200, (url, answer.status_code)
        assert _frame_ancestors(answer) == ["'self'", "https://lms.example.edu", platform], url
        assert "X-Frame-Options" not in answer.headers, url
        if answer.mimetype != "text/html":
            continue
        page = answer.get_data(as_text=True)
        assert 'type="password"' not in page, url  # never a sign-in form inside the LMS
        if 'data-role="new-window"' in page:
            [(_, attrs, opened)] = [
                link for link in _links(page, url) if link[1].get("data-role") == "new-window"
            ]
            assert attrs["target"] == "_blank" and opened == url
            top = client.get(opened)  # the new window: the top level, no frame
            assert top.status_code == 200, opened
            assert _frame_ancestors(top) == ["'none'"], opened
            assert 'href="/account?lti_frame=' in top.get_data(as_text=True)  # signed in
            checked["new window"] += 1
            continue
        checked["in the frame"] += 1
        assert f'href="/account?lti_frame={token}"' in page, url  # signed in, same launch
        for tag, attrs, target in _links(page, url):
            if urlsplit(target).path.startswith("/static/"):
                continue
            assert parse_qs(urlsplit(target).query).get("lti_frame") == [token], (url, target)
            if tag == "a" or attrs.get("method", "get").lower() == "get":
                queue.append((target, token))
                continue
            # A form that posts: its target answers inside the frame, signed in (refused here
            # for want of its CSRF token, which a post from elsewhere lacks too).
            refused = client.post(target, headers=FRAME)
            assert refused.status_code == 400, (url, target)
            assert platform in _frame_ancestors(refused), (url, target)
            assert f'href="/account?lti_frame={token}"' in refused.get_data(as_text=True)
            checked["forms"] += 1
    assert checked["in the frame"] >= 8 and checked["new window"] >= 5 and checked["forms"] >= 5
