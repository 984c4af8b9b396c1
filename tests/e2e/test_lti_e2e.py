"""LTI 1.3 in a real browser: the platform of tests/lti and the tool under gunicorn, Chromium
following the LMS's auto-posted forms: launch, deep linking (the instructor's pick, the page
that posts the signed reply back), and the student's launch onto the placed exercise."""

from __future__ import annotations

import json
import urllib.request

import pytest
from playwright.sync_api import expect

from tests.e2e.e2e_support import open_page, tree_drawn
from tests.live_server import environment, serve
from tests.lti.lti_platform import INSTRUCTOR, LEARNER, Member, Platform, Served
from tests.lti.lti_support import register_platform

pytestmark = pytest.mark.e2e


@pytest.fixture
def lms(tmp_path):
    """The platform in this process, and the tool under gunicorn on its own database."""
    from flask_migrate import upgrade

    from grader import create_app
    from grader.extensions import db

    served = Served(Platform())
    platform = served.platform
    env = {
        "GRADER_INSTANCE_PATH": str(tmp_path / "instance"),
        "GRADER_DATABASE_URL": f"sqlite:///{tmp_path / 'grader.sqlite3'}",
        "GRADER_SECRET_KEY": "lti-e2e",
    }
    with environment(env):
        app = create_app()
        with app.app_context():
            upgrade(directory=app.config["GRADER_MIGRATIONS_DIR"])
            register_platform(platform)
            db.engine.dispose()
    try:
        with serve(tmp_path, env) as url:
            with urllib.request.urlopen(f"{url}/lti/jwks", timeout=5) as answer:
                platform.tool_jwks = json.load(answer)
            platform.tool_redirect_uris = [f"{url}/lti/launch"]
            yield platform, url, app
    finally:
        served.close()


def start(platform: Platform, tool: str, member: Member, **claims) -> str:
    hint = f"hint-{member.sub}-{len(platform.pending)}"
    platform.pending[hint] = platform.launch_claims(member, **claims)
    return f"{platform.base}/start?hint={hint}&tool={tool}"


def test_launch_and_deep_linking_in_a_browser(browser, lms):
    from grader.extensions import db
    from grader.services import courses

    platform, url, app = lms
    teacher = Member("teacher", "Tess Teacher", "tess@uni.example", [INSTRUCTOR])
    with open_page(browser, url) as page:
        page.goto(start(platform, url, teacher))  # the LMS course's first launch
        page.wait_for_url(f"{url}/lti/courses/*")
        expect(page.get_by_role("heading", name="This course in the LMS")).to_be_visible()
        course_id = int(page.url.rsplit("/", 1)[1])
        with app.app_context():  # the instructor makes an assignment in it
            assignment_id = courses.create_assignment(course_id, "standard").id
            db.engine.dispose()
        page.goto(start(platform, url, teacher, message_type="LtiDeepLinkingRequest"))
        page.wait_for_url(f"{url}/lti/deep-link/**")
        page.get_by_label("exercise 2", exact=False).check()
        page.get_by_role("button", name="Place it").click()
        # The reply page posts the signed content item back to the LMS by itself.
        page.wait_for_url(f"{platform.base}/deep_link_return")
        expect(page.locator("body")).to_contain_text("placed")
    [reply] = platform.deep_link_replies
    [item] = reply["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["custom"] == {"assignment_id": str(assignment_id), "slot": "1"}
    student = Member("alice", "Alice", "alice@uni.example", [LEARNER])
    with open_page(browser, url) as page:
        page.goto(
            start(
                platform,
                url,
                student,
                resource_link=item["_resource_link_id"],
                custom=item["custom"],
            )
        )
        page.wait_for_url(f"{url}/assignments/{assignment_id}/slots/1")
        # The welcome message of a new account, and the exercise page drew the student's tree.
        expect(page.get_by_role("link", name="Link it", exact=True)).to_be_visible()
        tree_drawn(page)
