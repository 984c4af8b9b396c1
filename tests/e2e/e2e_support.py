"""The e2e tests' plain helpers: the seeded accounts, the live server's address, a browser page
that fails the test on any script error, signing in through the login form. The fixtures that
use them are in tests/e2e/conftest.py."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import expect

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PASSWORD = "correct horse battery"
STUDENT = "student@example.com"
INSTRUCTOR = "teacher@example.com"
LEARNER = "learner@example.com"  # adaptive practice: a student of their own, with no history


@dataclass
class LiveServer:
    url: str
    assignment_id: int
    practice: dict[str, int] = field(default_factory=dict)  # name -> exercise id
    drill_down: str = ""  # the instructor's page of the student who answered every kind


@contextlib.contextmanager
def open_page(
    browser: Any, base_url: str, height: int = 900, *, bypass_csp: bool = False
) -> Iterator[Any]:
    """A fresh browser context (no cookies) whose page fails the test on any script error;
    `bypass_csp` lets axe be injected (the app allows only its own scripts)."""
    context = browser.new_context(
        viewport={"width": 1280, "height": height}, base_url=base_url, bypass_csp=bypass_csp
    )
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))

    def console(message: Any) -> None:
        # Browsers ask for /favicon.ico by themselves; the test LMS platform has none (the app
        # has one, checked in tests/web/test_auth.py).
        url = message.location.get("url", "")
        if message.type == "error" and not (
            url.endswith("/favicon.ico") and not url.startswith(base_url)
        ):
            errors.append(f"{message.text} ({message.location.get('url')})")

    tab.on("console", console)
    yield tab
    context.close()
    assert not errors, f"errors in the page: {errors}"


def sign_in(page: Any, email: str = STUDENT) -> Any:
    """Signs in through the login form; returns the page where the person lands (students on
    their dashboard, staff on their courses)."""
    page.goto("/login")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/login" not in url)
    return page


def tree_drawn(page: Any) -> None:
    """Waits (Playwright's retrying `expect`) until the page has drawn its exercise's tree."""
    expect(page.locator('[data-role="tree"] .node').first).to_be_visible()
