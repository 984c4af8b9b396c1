"""Account recovery and the second factor in a real headless Chromium, against gunicorn: a
forgot-password e-mail caught by the test mail backend (a real SMTP conversation), its link
followed to a new password and a sign-in with it; and a TOTP enrolment from the account page
(the key read from the page, the code computed by pyotp here) followed by a sign-in with a
code."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyotp
import pytest
from playwright.sync_api import expect

from tests.e2e.e2e_support import PASSWORD, open_page, server_env
from tests.live_server import seeding, serve
from tests.mail_support import MailServer

# make test's workers (--dist loadgroup): one of them runs the module, its fixture made once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("test_accounts_e2e")]

FORGETFUL, TEACHER = "forgetful@example.com", "second.factor@example.com"
NEW_PASSWORD = "lantern orchard mosaic"


@pytest.fixture(scope="module")
def mail() -> Iterator[MailServer]:
    server = MailServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path, mail: MailServer
) -> Iterator[str]:
    from grader.services import accounts

    folder = tmp_path_factory.mktemp("accounts")
    env = server_env(
        folder,
        GRADER_SMTP_HOST="127.0.0.1",
        GRADER_SMTP_PORT=str(mail.port),
        GRADER_SMTP_STARTTLS="0",
        GRADER_SMTP_FROM="grader@example.edu",
    )
    with seeding(migrated_template, env):
        accounts.create_user(FORGETFUL, PASSWORD)
        accounts.create_user(TEACHER, PASSWORD, "instructor")
    with serve(folder, env) as url:
        yield url


def _log_in(page: Any, email: str, password: str) -> None:
    page.goto("/login")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


def test_a_reset_email_leads_to_a_new_password_that_signs_in(browser, server, mail) -> None:
    with open_page(browser, server) as page:
        page.goto("/login")
        page.get_by_role("link", name="Forgot your password?").click()
        page.get_by_label("E-mail").fill(FORGETFUL)
        page.get_by_role("button", name="Send the link").click()
        expect(page.get_by_text("If an account has this address")).to_be_visible()
        (recipients, message), *_ = mail.wait_for(1)
        assert recipients == [FORGETFUL]
        link = re.search(r"http://\S+/reset/\S+", message.get_content()).group(0)
        page.goto(link)
        expect(page.get_by_role("heading", name="Choose a new password")).to_be_visible()
        page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
        page.get_by_label("New password again").fill(NEW_PASSWORD)
        page.get_by_role("button", name="Set the new password").click()
        expect(page.get_by_text("Log in with the new password")).to_be_visible()
        _log_in(page, FORGETFUL, NEW_PASSWORD)
        page.wait_for_url(lambda url: "/login" not in url)
        page.goto("/account")
        expect(page.get_by_text(FORGETFUL, exact=True)).to_be_visible()


def test_totp_enrolment_then_a_sign_in_with_a_code(browser, server) -> None:
    with open_page(browser, server) as page:
        _log_in(page, TEACHER, PASSWORD)
        page.wait_for_url(lambda url: "/login" not in url)
        page.goto("/account")
        page.get_by_role("link", name="Set up a second factor").click()
        expect(page.locator(".qr svg")).to_be_visible()
        secret = page.locator("#totp-secret").inner_text().strip()
        page.get_by_label("Code").fill(pyotp.TOTP(secret).now())
        page.get_by_role("button", name="Turn on").click()
        expect(page.get_by_role("heading", name="Your recovery codes")).to_be_visible()
        assert page.locator("#recovery-codes li").count() == 10
        page.goto("/account")
        page.get_by_role("button", name=re.compile(r"^Log out")).click()
        _log_in(page, TEACHER, PASSWORD)
        page.wait_for_url(re.compile(r"/login/code$"))
        # The enrolment's code is spent: the next time step's code (within the window).
        page.get_by_label("Code").fill(pyotp.TOTP(secret).at(time.time() + 30))
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(lambda url: "/login" not in url)
        page.goto("/account")
        expect(page.get_by_text("On: signing in asks for a code")).to_be_visible()
