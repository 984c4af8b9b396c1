"""Every page of the app, as an anonymous visitor, a student, a TA and an instructor, at 1280 px
and 390 px, through axe-core: no serious or critical violation, every text at 4.5:1 contrast
(axe's color-contrast rule), and no page scrolling sideways on a phone.

The pages are found by following the links of each role's pages from its landing page (one page
per route pattern: /exercises/1 stands for /exercises/N), so a new page is checked as soon as a
link leads to it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.app_support import enrol
from tests.e2e.accessibility import axe_violations, sideways
from tests.e2e.e2e_support import PASSWORD, sign_in
from tests.live_server import environment, serve

pytestmark = pytest.mark.e2e

TESTS = Path(__file__).resolve().parents[1]
ENGINE = TESTS / "harness" / "engines" / "correct.py"
STUDENT = "ada@example.com"
TA = "ta@example.com"
INSTRUCTOR = "prof@example.com"
WIDTHS = (1280, 390)
# Downloads and actions, not pages.
SKIP = re.compile(r"\.(csv|test|py|zip|json)$|/api/|/static/|/logout")


@dataclass
class Site:
    url: str
    off_label: str = ""  # the node where the seeded bounds answer differs from the key


def _seed(env: dict[str, str]) -> str:
    from flask_migrate import upgrade

    from grader import create_app
    from grader.extensions import db
    from grader.gametree import KINDS, Conventions, Tree
    from grader.services import accounts, attempts, courses, exercises, submissions

    with environment(env):
        app = create_app()
        with app.app_context():
            upgrade(directory=app.config["GRADER_MIGRATIONS_DIR"])
            accounts.create_user(INSTRUCTOR, PASSWORD, "instructor")
            accounts.create_user(STUDENT, PASSWORD)
            accounts.create_user(TA, PASSWORD)
            course = courses.create_course("Search 101", INSTRUCTOR)
            enrol(course.id, STUDENT)
            enrol(course.id, TA, "ta")
            assignment = courses.create_assignment(course.id, "standard")
            slot = submissions.add_engine_slot(assignment.id, suite="quick")
            student = accounts.user_by_email(STUDENT)
            # A graded attempt (the gradebook, statistics and the student's detail show it),
            # a practice exercise and an engine upload waiting for a worker.
            first = exercises.slot_exercise(student, assignment.id, 0)
            attempts.submit(student, first.id, {"pruned": [], "value": 0})
            # A bounds answer off at one node only: the detail must make that node stand out.
            challenge = courses.create_assignment(course.id, "challenge")
            bounds = exercises.slot_exercise(student, challenge.id, 1)
            tree = Tree.from_nested(bounds.tree, bounds.players)
            key = KINDS["bounds"].key(tree, Conventions.from_dict(bounds.conventions))["bounds"]
            off = max(key, key=len)  # the deepest internal node the key gives bounds for
            alpha, beta = key[off]
            wrong = {**key, off: [alpha - 2 if isinstance(alpha, int) else -99, beta]}
            attempts.submit(student, bounds.id, {"bounds": wrong})
            practice = exercises.create_practice(
                student, "bounds", tree=[[[2, 3], [5, 9]], [[0, 1], [7, 5]]]
            )
            attempts.submit(student, practice.id, {"bounds": {"": [0, 1]}})
            db.session.expire_all()  # the assignment was loaded before its engine slot
            submissions.upload(student, assignment.id, slot.index, ENGINE.read_bytes(), "engine.py")
            db.engine.dispose()
            return tree.labels()[off]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("a11y")
    env = {
        "GRADER_INSTANCE_PATH": str(folder / "instance"),
        "GRADER_DATABASE_URL": f"sqlite:///{folder / 'grader.sqlite3'}",
        "GRADER_SECRET_KEY": "e2e-secret",
    }
    off_label = _seed(env)
    with serve(folder, env) as url:
        yield Site(url, off_label)


def _pattern(path: str) -> str:
    return re.sub(r"\d+", "N", path)


def _links(page: Any, origin: str) -> list[str]:
    hrefs = page.eval_on_selector_all("a[href]:not([download])", "links => links.map(a => a.href)")
    out = []
    for href in hrefs:
        parts = urlsplit(href)
        if f"{parts.scheme}://{parts.netloc}" != origin or SKIP.search(parts.path):
            continue
        out.append(parts.path + (f"?{parts.query}" if parts.query else ""))
    return out


def _check(page: Any, path: str, width: int) -> list[str]:
    page.set_viewport_size({"width": width, "height": 900})
    response = page.goto(path)
    assert response is not None
    if "text/html" not in (response.headers.get("content-type") or ""):
        return []  # a file, not a page
    page.wait_for_load_state("networkidle")
    problems = [
        f"{path} at {width} px: {v['id']} ({v['impact']}): {v['help']} {v['nodes']}"
        for v in axe_violations(page)
    ]
    if width < 500 and (extra := sideways(page)) > 0:
        problems.append(f"{path} at {width} px scrolls sideways by {extra} px")
    return problems


def _sweep(
    page: Any, origin: str, start: list[str], limit: int = 40
) -> tuple[list[str], list[str]]:
    """Visits start and the pages their links lead to (one per route pattern)."""
    seen: set[str] = set()
    queue = list(start)
    visited: list[str] = []
    problems: list[str] = []
    while queue and len(visited) < limit:
        path = queue.pop(0)
        if _pattern(path) in seen:
            continue
        seen.add(_pattern(path))
        visited.append(path)
        for width in WIDTHS:
            problems += _check(page, path, width)
        queue += [link for link in _links(page, origin) if _pattern(link) not in seen]
    return visited, problems


@pytest.mark.parametrize("who", ["anonymous", "student", "ta", "instructor"])
def test_every_page_passes_axe(browser, site, who) -> None:
    # bypass_csp: the app allows only its own scripts; axe is injected inline.
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, base_url=site.url, bypass_csp=True
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        if who == "anonymous":
            start = ["/login", "/signup", "/no-such-page"]
        else:
            sign_in(page, {"student": STUDENT, "ta": TA, "instructor": INSTRUCTOR}[who])
            start = [urlsplit(page.url).path, "/practice", "/attempts"]
            if who != "student":
                start.append("/instructor/")
        visited, problems = _sweep(page, site.url, start)
    finally:
        context.close()
    assert not errors, errors
    assert len(visited) >= {"anonymous": 3, "student": 6, "ta": 8, "instructor": 12}[who], visited
    assert not problems, "\n".join(problems)


def test_student_detail_shows_answer_and_key_side_by_side(browser, site, screenshots) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=site.url)
    page = context.new_page()
    try:
        sign_in(page, INSTRUCTOR)
        page.goto("/instructor/courses/1/gradebook")
        page.get_by_role("link", name=STUDENT).click()
        box = (
            page.locator('[data-compare]:has([data-side="answer"] .node)')
            .filter(has_text="The key")
            .nth(1)
        )  # the challenge's bounds exercise (after the prune one)
        expect(box).to_have_attribute("data-differ", site.off_label)
        for side in ("answer", "key"):
            node = box.locator(f'[data-side="{side}"] .node[data-label="{site.off_label}"]')
            expect(node).to_contain_class("wrong")
            expect(node).to_have_attribute("aria-label", re.compile("differs"))
        # Only that node differs; both trees write the bounds beside their nodes.
        expect(box.locator(".node.wrong")).to_have_count(2)
        expect(box.locator('[data-side="answer"] .note')).not_to_have_count(0)
        expect(box.locator(".legend")).to_contain_text(f"They differ at {site.off_label} ")
        box.screenshot(path=str(screenshots / "student-detail-bounds.png"))
    finally:
        context.close()
