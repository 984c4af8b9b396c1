"""LTI Dynamic Registration in a real browser, with no field typed: the administrator makes a
registration URL on /admin/lti, the LMS's page (the loopback platform of tests/lti) frames it
with its configuration, the tool registers itself and asks the LMS to close the frame; then an
instructor's launch from that LMS works. Screenshots: the URL made, the LMS after closing."""

from __future__ import annotations

import json
import urllib.request
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from tests.e2e.e2e_support import PASSWORD, open_page
from tests.live_server import seeding, serve
from tests.lti.lti_platform import INSTRUCTOR, Member, Platform, Served

pytestmark = pytest.mark.e2e
ROOT = "root@uni.example"


@pytest.fixture
def tool(tmp_path, migrated_template):
    """The loopback platform (its issuer its own address), and the tool under gunicorn with an
    administrator and no registration."""
    from grader.extensions import db
    from grader.services import accounts

    served = Served(Platform())
    served.platform.issuer = served.platform.base
    env = {
        "GRADER_INSTANCE_PATH": str(tmp_path / "instance"),
        "GRADER_DATABASE_URL": f"sqlite:///{tmp_path / 'grader.sqlite3'}",
        "GRADER_SECRET_KEY": "lti-registration-e2e",
    }
    with seeding(migrated_template, env):
        accounts.create_user(ROOT, PASSWORD).is_admin = True
        db.session.commit()
    try:
        with serve(tmp_path, env) as url:
            yield served.platform, url
    finally:
        served.close()


def test_the_lms_registers_the_tool_in_a_browser(browser, tool, screenshots):
    platform, url = tool
    with open_page(browser, url) as page:
        page.goto("/login")
        page.get_by_label("E-mail").fill(ROOT)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.goto("/admin/lti")
        page.get_by_role("button", name="Make a registration URL").click()
        made = page.get_by_label("Your registration URL (shown only now):")
        registration_url = made.input_value()
        assert registration_url.startswith(f"{url}/lti/register/")
        page.screenshot(path=str(screenshots / "lti-registration-url.png"), full_page=True)
        # The LMS's administrator pastes it into the LMS, whose page frames it.
        page.goto(f"{platform.base}/admin/tools/register?url={quote(registration_url)}")
        expect(page.locator("#state")).to_have_text("closed", timeout=20_000)
        page.screenshot(path=str(screenshots / "lti-registration-closed.png"))
        page.goto(f"{url}/admin/lti")
        expect(page.get_by_role("cell", name=platform.client_id, exact=True)).to_be_visible()
        expect(page.get_by_role("cell", name=platform.deployment_id, exact=True)).to_be_visible()
    [sent] = platform.registered_tools
    with urllib.request.urlopen(sent["jwks_uri"], timeout=5) as answer:
        platform.tool_jwks = json.load(answer)  # the platform reads the keys it was told of
    teacher = Member("teacher", "Tess Teacher", "tess@uni.example", [INSTRUCTOR])
    hint = "hint-teacher"
    platform.pending[hint] = platform.launch_claims(teacher)
    with open_page(browser, url) as page:
        page.goto(f"{platform.base}/start?hint={hint}&tool={url}")
        page.wait_for_url(f"{url}/lti/setup/*/*")  # launched: the LMS course opens here
        expect(page.get_by_role("heading", name="Set up this LMS link")).to_be_visible()
