"""LTI inside the LMS's frame, under the conditions a university's LMS brings (issue 53): the
LMS and the tool on two sites over HTTPS (two host names on the loopback, a local certificate
authority), the LMS's page framing the tool, and Chromium blocking third-party cookies (its own
restriction, turned on through the DevTools protocol). The platform is the tests' own
(tests/lti/lti_platform.py), its browser-facing pages at https://lms.test, its services (key
set, tokens, line items) on plain loopback HTTP as the tool's back channel.

Through the frame: an instructor's deep linking makes an assignment from a preset and places it;
a student's embedded launch opens it, answers an exercise, and the score reaches the LMS's line
item. Without the platform's storage, the frame offers "Open in a new window", which finishes
the same launch there."""

from __future__ import annotations

import datetime as dt
import json
import ssl
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect
from werkzeug.serving import make_server

from grader.gametree import Conventions, Tree, solve
from tests.e2e.e2e_support import CHROMIUM, CHROMIUM_ARGS, tree_drawn
from tests.e2e.tls_support import make_certificates
from tests.live_server import SHUTDOWN_POLL, seeding, serve
from tests.lti.lti_platform import INSTRUCTOR, LEARNER, Member, Platform, Served

pytestmark = pytest.mark.e2e

HOSTS = ["lms.test", "tool.test"]


@dataclass
class Sites:
    platform: Platform
    lms: str  # https://lms.test:PORT, the LMS's pages
    tool: str  # https://tool.test:PORT, the tool as the browser reaches it


@pytest.fixture
def sites(tmp_path, migrated_template) -> Iterator[tuple[Sites, Any]]:
    from grader.services import lti

    certs = make_certificates(tmp_path, HOSTS)
    back = Served(Platform())  # the platform's services, on loopback HTTP
    platform = back.platform
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certs.cert, certs.key)
    front = make_server("127.0.0.1", 0, platform.app(), threaded=True, ssl_context=context)
    lms = f"https://lms.test:{front.server_port}"
    thread = threading.Thread(target=front.serve_forever, args=(SHUTDOWN_POLL,), daemon=True)
    thread.start()
    platform.return_url = f"{lms}/deep_link_return"  # the browser posts the reply there
    env = {
        "GRADER_INSTANCE_PATH": str(tmp_path / "instance"),
        "GRADER_DATABASE_URL": f"sqlite:///{tmp_path / 'grader.sqlite3'}",
        "GRADER_SECRET_KEY": "lti-frame-e2e",
    }
    with seeding(migrated_template, env):
        lti.register(
            None,
            issuer=platform.issuer,
            client_id=platform.client_id,
            auth_login_url=f"{lms}/auth",
            auth_token_url=f"{platform.base}/token",
            key_set_url=f"{platform.base}/jwks",
            deployment_ids=[platform.deployment_id],
        )
    try:
        with serve(tmp_path, env, worker=True, tls=(certs.cert, certs.key, certs.ca)) as url:
            port = url.rsplit(":", 1)[1]
            tool = f"https://tool.test:{port}"
            trusted = ssl.create_default_context(cafile=str(certs.ca))
            with urllib.request.urlopen(f"{url}/lti/jwks", timeout=5, context=trusted) as answer:
                platform.tool_jwks = json.load(answer)
            platform.tool_redirect_uris = [f"{tool}/lti/launch"]
            yield Sites(platform, lms, tool), certs
    finally:
        front.shutdown()
        thread.join(timeout=10)
        back.close()


@pytest.fixture
def lms_browser(sites, driver) -> Iterator[Any]:
    """Chromium resolving both host names to the loopback, taking the servers' certificate (the
    local CA's, pinned by its key), in a context that blocks third-party cookies."""
    _, certs = sites
    args = [
        *CHROMIUM_ARGS,
        "--host-resolver-rules=" + ", ".join(f"MAP {h} 127.0.0.1" for h in HOSTS),
        f"--ignore-certificate-errors-spki-list={certs.spki}",
    ]
    browser = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    devtools = context.new_cdp_session(page)
    devtools.send("Network.enable")
    devtools.send(
        "Network.setCookieControls",
        {
            "enableThirdPartyCookieRestriction": True,
            "disableThirdPartyCookieMetadata": True,
            "disableThirdPartyCookieHeuristics": True,
        },
    )
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield page
    finally:
        browser.close()
    assert errors == [], errors


def _lms_page(sites: Sites, member: Member, *, storage: bool = True, **claims: Any) -> str:
    platform = sites.platform
    hint = f"hint-{member.sub}-{len(platform.pending)}"
    platform.pending[hint] = platform.launch_claims(member, **claims)
    query = {"hint": hint, "tool": sites.tool} | ({"storage": "1"} if storage else {})
    return f"{sites.lms}/frame?{urlencode(query)}"


def _frame_cookies_blocked(page: Any) -> bool:
    """What the tool's frame can keep: nothing, when third-party cookies are blocked."""
    return page.frame(name="tool").evaluate(
        "document.cookie = 'probe=1; path=/; SameSite=None; Secure'; document.cookie === ''"
    )


def _score_at_the_lms(platform: Platform, lineitem: str, seconds: float = 60) -> dict:
    deadline = time.monotonic() + seconds  # a bound for a broken worker, never a measure
    while not platform.scores.get(lineitem):
        assert time.monotonic() < deadline, f"no score at {lineitem}: {platform.scores}"
        time.sleep(0.2)
    [score] = platform.scores[lineitem]
    return score


def test_deep_linking_and_an_embedded_launch_across_sites(sites, lms_browser):
    site, _ = sites
    page = lms_browser
    frame = page.frame_locator("iframe[name=tool]")
    teacher = Member("teacher", "Tess Teacher", "tess@uni.example", [INSTRUCTOR])
    next_week = (dt.datetime.now(dt.UTC) + dt.timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")

    # 1. Deep linking from the LMS's "Select content" frame: the picker shows, signed in.
    page.goto(_lms_page(site, teacher, message_type="LtiDeepLinkingRequest"))
    heading = frame.get_by_role("heading", name="Set up this course from a preset")
    expect(heading).to_be_visible()
    assert _frame_cookies_blocked(page)  # the condition is real: the frame keeps no cookie
    # 2. A new assignment from a preset, placed: the reply is posted to the LMS from the frame.
    frame.get_by_label("Preset").select_option("standard")
    frame.get_by_label("Title").fill("Week 1: alpha-beta")
    frame.get_by_label("Due (in the course's time zone", exact=False).fill(next_week)
    frame.get_by_role("button", name="Create and place it").click()
    expect(frame.locator("body")).to_have_text("placed")  # the LMS's answer to the reply
    [reply] = site.platform.deep_link_replies
    [item] = reply["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["title"] == "Week 1: alpha-beta"
    assignment_id = int(item["custom"]["assignment_id"])
    [lineitem] = site.platform.lineitems.values()

    # 3. The student's embedded launch opens the placed assignment in the frame.
    student = Member("alice", "Alice", "alice@uni.example", [LEARNER])
    page.goto(
        _lms_page(site, student, resource_link=item["_resource_link_id"], custom=item["custom"])
    )
    expect(frame.locator("body")).to_contain_text("Week 1: alpha-beta")
    tool = page.frame(name="tool")
    assert tool.url.startswith(f"{site.tool}/assignments/{assignment_id}")
    # 4. An answer, from the exercise page inside the frame.
    frame.get_by_role("link", name="Mark the pruned nodes").click()
    expect(frame.locator('[data-role="tree"] .node').first).to_be_visible()
    tool = page.frame(name="tool")
    tree_drawn(tool)
    exercise = tool.evaluate("JSON.parse(document.getElementById('exercise-data').textContent)")
    tree = Tree.from_nested(exercise["tree"], exercise["players"])
    result = solve(tree, Conventions.from_dict(exercise["conventions"]))
    for path in result.pruned:
        frame.locator(f'[data-role="tree"] .node[data-path="{path}"]').click()
    frame.get_by_label("Value of the root A").fill(str(result.value))
    frame.get_by_role("button", name="Submit").click()
    expect(frame.locator('[data-role="score"]')).to_contain_text("Score: 1.00")
    # 5. The grade, in the LMS's gradebook.
    score = _score_at_the_lms(site.platform, lineitem["id"])
    assert score["userId"] == "alice" and score["scoreGiven"] == 1.0


def test_without_platform_storage_the_frame_opens_the_launch_in_a_new_window(sites, lms_browser):
    site, _ = sites
    page = lms_browser
    frame = page.frame_locator("iframe[name=tool]")
    student = Member("bob", "Bob", "bob@uni.example", [LEARNER])
    page.goto(_lms_page(site, student, storage=False))
    button = frame.get_by_role("link", name="Open in a new window")
    expect(button).to_be_visible()
    expect(frame.get_by_label("Password")).to_have_count(0)  # never a sign-in form in the LMS
    with page.context.expect_page() as opened:
        button.click()
    window = opened.value
    # The same launch, finished at the top level: Bob's dashboard, his LMS course on it.
    expect(window.locator("body")).to_contain_text("CS 188")


def test_a_framed_page_keeps_its_messages_and_its_links_sign_in(sites, lms_browser):
    """In the frame, third-party cookies blocked: the new account's welcome shows; the header's
    link to a page that is never framed offers a new window, which opens it signed in."""
    site, _ = sites
    page = lms_browser
    frame = page.frame_locator("iframe[name=tool]")
    carol = Member("carol", "Carol", "carol@uni.example", [LEARNER])
    page.goto(_lms_page(site, carol))
    expect(frame.get_by_role("status").filter(has_text="Welcome! Your LMS opened")).to_be_visible()
    assert _frame_cookies_blocked(page)
    frame.get_by_role("navigation", name="main").get_by_role("link", name="Progress").click()
    button = frame.get_by_role("link", name="Open in a new window")
    expect(button).to_be_visible()
    with page.context.expect_page() as opened:
        button.click()
    window = opened.value
    expect(window.get_by_role("heading", name="Your progress per misconception")).to_be_visible()
    nav = window.get_by_role("navigation", name="main")
    expect(nav.get_by_role("link", name="Account")).to_be_visible()  # signed in there
