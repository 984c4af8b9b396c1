"""The e2e tests' plain helpers: the seeded accounts, the live server's address, a browser page
that fails the test on any script error, a page's requests followed until they settle, signing
in through the login form (or with the cookies of an earlier sign-in). The fixtures that
use them are in tests/e2e/conftest.py."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

# Debian's old headless shell: the same Blink and V8, of the same version, as its `chromium`,
# without the desktop browser that `chromium --headless` runs around them; the same pages cost
# it about 40% less CPU (its browser process and its renderers both).
CHROMIUM = "/usr/bin/chromium-headless-shell"
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


# Resolves once the page's main thread has no task left to run (a fetch's reply handled, the
# request it leads to made), or after a second of a page that never rests.
IDLE = "() => new Promise((done) => requestIdleCallback(() => done(), {timeout: 1000}))"


class Traffic:
    """A page's requests in flight, followed from the browser's own events (every request: a
    script's fetch, a module imported on the way, an image, a style sheet)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.pending: set[Any] = set()
        self.events = 0
        page.on("request", self._start)
        page.on("requestfinished", self._end)
        page.on("requestfailed", self._end)

    def _start(self, request: Any) -> None:
        self.pending.add(request)
        self.events += 1

    def _end(self, request: Any) -> None:
        self.pending.discard(request)
        self.events += 1

    def settle(self, timeout: float = 30.0) -> None:
        """Returns once no request is in flight and none starts while the page runs every task
        it has left: each reply handled and nothing more asked for. The same end as Playwright's
        "networkidle" for what a page fetches once loaded, without its half-second wait; a poll
        on a timer of a second or more (a queued engine's status) is left running, as there."""
        deadline = time.monotonic() + timeout  # as long as Playwright's own waits
        while time.monotonic() < deadline:
            seen = self.events
            if not self.pending:
                self.page.evaluate(IDLE)
                if not self.pending and self.events == seen:
                    return
            else:
                self.page.wait_for_timeout(20)
        raise AssertionError(f"requests still in flight: {[r.url for r in self.pending]}")


def sign_in(page: Any, email: str = STUDENT) -> Any:
    """Signs in through the login form; returns the page where the person lands (students on
    their dashboard, staff on their courses)."""
    page.goto("/login")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/login" not in url)
    return page


def signed_in(page: Any, cookies: list[dict[str, Any]]) -> Any:
    """The page's context given the cookies of one sign-in through the login form (the
    `student_cookies` fixture's): signed in as that person, no page opened yet."""
    page.context.add_cookies(cookies)
    return page


def tree_drawn(page: Any) -> None:
    """Waits (Playwright's retrying `expect`) until the page has drawn its exercise's tree."""
    expect(page.locator('[data-role="tree"] .node').first).to_be_visible()


# A graded answer's replay is drawn after two requests and a second drawing of the tree: 0.8 s
# for a six-level tree on a quiet machine, more than Playwright's 5 s default on a 2-core CI
# machine whose other test worker is busy (stop 58's run). Playwright's own wait for an action.
REPLAY_DRAWN_MS = 30_000


def replay_drawn(page: Any) -> None:
    """Waits until the page has drawn the replay of the answer it graded."""
    expect(page.locator('[data-role="replay"]')).to_be_visible(timeout=REPLAY_DRAWN_MS)
