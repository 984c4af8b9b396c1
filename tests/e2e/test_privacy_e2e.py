"""A person's data in Chromium: a student downloads their export from the account page and asks
for erasure; an administrator finds the request, is refused a wrong confirmation, erases the
account after typing its address, and the course's gradebook no longer lists it."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.app_support import enrol
from tests.e2e.accessibility import axe_violations
from tests.e2e.e2e_support import PASSWORD, LiveServer, open_page, server_env, sign_in
from tests.live_server import seeding, serve

# make test's workers (--dist loadgroup): one of them runs the module, its fixture made once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("test_privacy_e2e")]

TEACHER, ADMIN, ALICE, BOB = (
    "privacy-teacher@example.com",
    "root@example.com",
    "alice@example.com",
    "bob@example.com",
)


def _seed(template: Path, env: dict[str, str]) -> dict[str, int]:
    from grader.services import accounts
    from grader.services.courses import courses
    from grader.services.trees import attempts, exercises

    with seeding(template, env):
        accounts.create_user(TEACHER, PASSWORD, "instructor")
        for email in (ADMIN, ALICE, BOB):
            accounts.create_user(email, PASSWORD)
        accounts.set_admin(accounts.user_by_email(ADMIN).id, True)
        course = courses.create_course("Privacy 101", TEACHER)
        enrol(course.id, ALICE)
        enrol(course.id, BOB)
        assignment = courses.create_assignment(course.id, "standard")
        alice = accounts.user_by_email(ALICE)
        exercise = exercises.slot_exercise(alice, assignment.id, 0)
        attempts.submit(alice, exercise.id, {"pruned": [], "value": 0})
        ids = {"course": course.id, "alice": alice.id}
    return ids


@pytest.fixture(scope="module")
def privacy_server(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path
) -> Iterator[tuple[LiveServer, dict]]:
    folder = tmp_path_factory.mktemp("privacy-e2e")
    env = server_env(folder)
    ids = _seed(migrated_template, env)
    with serve(folder, env) as url:
        yield LiveServer(url, 0), ids


def test_a_student_downloads_their_data_and_an_administrator_erases_the_account(
    browser: Any, privacy_server: tuple[LiveServer, dict], screenshots: Path, tmp_path: Path
) -> None:
    server, ids = privacy_server
    with open_page(browser, server.url, bypass_csp=True) as page:
        sign_in(page, ALICE)
        page.get_by_role("link", name="Account", exact=True).click()
        expect(page).to_have_title("Account · Alpha-Beta Grader")
        with page.expect_download() as download:
            page.get_by_role("link", name="Download my data (ZIP)").click()
        saved = tmp_path / download.value.suggested_filename
        download.value.save_as(saved)
        with zipfile.ZipFile(saved) as archive:
            assert json.loads(archive.read("account.json"))["email"] == ALICE
            assert len(json.loads(archive.read("attempts.json"))) == 1
            assert "integrity.json" not in archive.namelist()
        page.get_by_label("I ask the administrators to erase my account").check()
        page.get_by_role("button", name="Ask for erasure").click()
        expect(page.locator(".flash.info")).to_contain_text("Your request went to the service")
        expect(page.get_by_text("You asked for the erasure of your account on")).to_be_visible()
        page.screenshot(path=str(screenshots / "account-your-data.png"), full_page=True)
        assert axe_violations(page) == []

    with open_page(browser, server.url, refused=("/erase",), bypass_csp=True) as page:
        sign_in(page, ADMIN)
        page.get_by_role("link", name="Accounts (admin)").click()
        requests = page.locator('[data-role="requests"]')
        expect(requests).to_contain_text(ALICE)
        requests.get_by_role("link", name="Erase…").click()
        expect(page.get_by_role("heading", name=f"Erase account #{ids['alice']}")).to_be_visible()
        assert axe_violations(page) == []
        confirm = page.get_by_label("Type the account's e-mail address to confirm")
        confirm.fill(BOB)  # the wrong address: refused, nothing erased
        page.get_by_role("button", name="Erase this account").click()
        expect(page.locator(".flash.error")).to_contain_text("nothing was erased")
        page.screenshot(path=str(screenshots / "admin-erase-confirm.png"), full_page=True)
        page.get_by_label("Type the account's e-mail address to confirm").fill(ALICE)
        page.get_by_role("button", name="Erase this account").click()
        expect(page.locator(".flash.info")).to_contain_text(f"Account {ids['alice']} erased")
        erasures = page.locator('[data-role="erasures"]')
        expect(erasures).to_contain_text(f"#{ids['alice']}")
        expect(erasures).not_to_contain_text(ALICE)
        expect(page.get_by_text("No pending request.")).to_be_visible()
        page.screenshot(path=str(screenshots / "admin-accounts.png"), full_page=True)
        assert axe_violations(page) == []

    with open_page(browser, server.url) as page:
        sign_in(page, TEACHER)
        page.goto(f"/instructor/courses/{ids['course']}/gradebook")
        expect(page.locator("table")).to_contain_text(BOB)
        expect(page.locator("main")).not_to_contain_text(ALICE)
        # The erased account signs in no more.
    with open_page(browser, server.url, refused=("/login",)) as page:
        page.goto("/login")
        page.get_by_label("E-mail").fill(ALICE)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        expect(page.locator(".flash.error")).to_be_visible()
