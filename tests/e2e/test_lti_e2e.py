"""LTI 1.3 in a real browser: the platform of tests/lti and the tool under gunicorn (and a
grader worker, which sends the scores), Chromium following the LMS's auto-posted forms: launch,
deep linking (the instructor's pick, the page that posts the signed reply back), the student's
launch onto the placed exercise; and a blank LMS course to a placed assignment and a score at
the LMS, without leaving the LMS."""

from __future__ import annotations

import datetime as dt
import json
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from grader.gametree import Conventions, Tree, solve
from tests.e2e.e2e_support import open_page, tree_drawn
from tests.live_server import seeding, serve
from tests.lti.lti_platform import INSTRUCTOR, LEARNER, Member, Platform, Served
from tests.lti.lti_support import register_platform

pytestmark = pytest.mark.e2e


@pytest.fixture
def lms(tmp_path, migrated_template):
    """The platform in this process, and the tool under gunicorn on its own database."""

    served = Served(Platform())
    platform = served.platform
    env = {
        "GRADER_INSTANCE_PATH": str(tmp_path / "instance"),
        "GRADER_DATABASE_URL": f"sqlite:///{tmp_path / 'grader.sqlite3'}",
        "GRADER_SECRET_KEY": "lti-e2e",
    }
    with seeding(migrated_template, env) as app:
        register_platform(platform)
    try:
        with serve(tmp_path, env, worker=True) as url:
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
    from grader.services.courses import courses

    platform, url, app = lms
    teacher = Member("teacher", "Tess Teacher", "tess@uni.example", [INSTRUCTOR])
    with open_page(browser, url) as page:
        page.goto(start(platform, url, teacher))  # the LMS course's first launch, by a link
        page.wait_for_url(f"{url}/lti/setup/*/*")  # that opens nothing yet: set it up, or not
        expect(page.get_by_role("heading", name="Set up this LMS link")).to_be_visible()
        course_id = int(page.url.rsplit("/", 2)[1])
        with app.app_context():  # the instructor makes an assignment in it
            assignment_id = courses.create_assignment(course_id, "standard").id
            db.engine.dispose()
        page.goto(start(platform, url, teacher, message_type="LtiDeepLinkingRequest"))
        page.wait_for_url(f"{url}/lti/deep-link/**")
        page.get_by_label("exercise 2", exact=False).check()
        page.get_by_role("button", name="Place it", exact=True).click()
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


def _score_at_the_lms(platform: Platform, lineitem: str, seconds: float = 60) -> dict:
    """The score the worker posts to the line item, once it has (the worker runs on its own)."""
    deadline = time.monotonic() + seconds
    while not platform.scores.get(lineitem):
        assert time.monotonic() < deadline, f"no score at {lineitem}: {platform.scores}"
        time.sleep(0.2)
    [score] = platform.scores[lineitem]
    return score


def test_a_blank_lms_course_to_a_score_at_the_lms(browser, lms):
    """Everything from the LMS's pages: the instructor's deep linking into a new LMS course
    makes an assignment from a preset and places it in one submit (after a refused date, the
    form kept); the student's launch, a right answer, and the score in the LMS's gradebook."""
    platform, url, _ = lms
    teacher = Member("teacher", "Tess Teacher", "tess@uni.example", [INSTRUCTOR])
    next_week = (dt.datetime.now(dt.UTC) + dt.timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")
    with open_page(browser, url, refused=("/new",)) as page:  # the refused date: a 400
        page.goto(start(platform, url, teacher, message_type="LtiDeepLinkingRequest"))
        page.wait_for_url(f"{url}/lti/deep-link/**")
        expect(page.get_by_role("heading", name="Set up this course from a preset")).to_be_visible()
        page.get_by_label("Preset").select_option("standard")
        page.get_by_label("Title").fill("Week 1: alpha-beta")
        page.get_by_label("Due (in the course's time zone", exact=False).fill("2001-01-01T09:00")
        page.get_by_role("button", name="Create and place it").click()
        expect(page.get_by_role("alert")).to_contain_text("the due date is in the past")
        expect(page.get_by_label("Title")).to_have_value("Week 1: alpha-beta")  # kept
        expect(page.get_by_label("Preset")).to_have_value("standard")
        page.get_by_label("Due (in the course's time zone", exact=False).fill(next_week)
        page.get_by_role("button", name="Create and place it").click()
        page.wait_for_url(f"{platform.base}/deep_link_return")  # posted back by itself
        expect(page.locator("body")).to_contain_text("placed")
    [reply] = platform.deep_link_replies
    [item] = reply["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["title"] == "Week 1: alpha-beta" and item["custom"]["slot"] == ""
    assignment_id = int(item["custom"]["assignment_id"])
    [lineitem] = platform.lineitems.values()
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
        page.wait_for_url(f"{url}/assignments/{assignment_id}")
        page.get_by_role("link", name="Mark the pruned nodes").click()
        tree_drawn(page)
        exercise = page.evaluate("JSON.parse(document.getElementById('exercise-data').textContent)")
        tree = Tree.from_nested(exercise["tree"], exercise["players"])
        result = solve(tree, Conventions.from_dict(exercise["conventions"]))
        for path in result.pruned:
            page.locator(f'[data-role="tree"] .node[data-path="{path}"]').click()
        page.get_by_label("Value of the root A").fill(str(result.value))
        page.get_by_role("button", name="Submit").click()
        expect(page.locator('[data-role="score"]')).to_contain_text("Score: 1.00")
    score = _score_at_the_lms(platform, lineitem["id"])
    assert score["userId"] == "alice" and score["scoreGiven"] == 1.0
    assert score["scoreMaximum"] == lineitem["scoreMaximum"]
