"""The e2e tests' plain helpers: the seeded accounts, the live server's address, a browser page
that fails the test on any script error, signing in through the login form. The fixtures that
use them are in tests/e2e/conftest.py."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
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
KEYS = "keys@example.com"  # the keyboard-only runs: a course of every exercise kind, untouched


@dataclass
class LiveServer:
    url: str
    assignment_id: int
    practice: dict[str, int] = field(default_factory=dict)  # name -> exercise id
    drill_down: str = ""  # the instructor's page of the student who answered every kind


def server_env(folder: Path, **more: str) -> dict[str, str]:
    """The settings of a test server whose instance and SQLite database live in `folder`."""
    return {
        "GRADER_INSTANCE_PATH": str(folder / "instance"),
        "GRADER_DATABASE_URL": f"sqlite:///{folder / 'grader.sqlite3'}",
        "GRADER_SECRET_KEY": "e2e-secret",
        **more,
    }


@contextlib.contextmanager
def open_page(
    browser: Any,
    base_url: str,
    height: int = 900,
    refused: tuple[str, ...] = (),
    width: int = 1280,
    touch: bool = False,
    *,
    bypass_csp: bool = False,
) -> Iterator[Any]:
    """A fresh browser context (no cookies) whose page fails the test on any script error.
    `refused`: the paths whose 4xx answer the test asks for (a form refused on purpose), which
    the browser reports as an error too; with `touch`, a touch screen (taps); `bypass_csp` lets
    axe be injected (the app allows only its own scripts)."""
    context = browser.new_context(
        viewport={"width": width, "height": height},
        base_url=base_url,
        has_touch=touch,
        bypass_csp=bypass_csp,
    )
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))

    def console(message: Any) -> None:
        # Browsers ask for /favicon.ico by themselves; the test LMS platform has none (the app
        # has one, checked in tests/web/test_auth.py).
        url = message.location.get("url", "")
        if message.type == "error" and not (
            (url.endswith("/favicon.ico") and not url.startswith(base_url))
            or (
                url.startswith(base_url) and url.endswith(refused) and "status of 4" in message.text
            )
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
