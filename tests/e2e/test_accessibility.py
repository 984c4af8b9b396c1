"""Every page of the app, as an anonymous visitor, a student, a TA and an instructor, at 1280 px
and 390 px, through axe-core: no serious or critical violation, every text at 4.5:1 contrast
(axe's color-contrast rule), and no page scrolling sideways on a phone.

The pages are found by following the links of each role's pages from its landing page
(tests/e2e/site_support.py), the graded engine's results and the tournament first.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.accessibility import axe_violations, sideways
from tests.e2e.e2e_support import sign_in
from tests.e2e.site_support import INSTRUCTOR, STUDENT, open_at, start_pages, sweep

# make test's workers (--dist loadgroup): one of them runs these, seeding the site once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("site")]


def _check(page: Any, path: str, width: int) -> list[str]:
    if not open_at(page, path, width):
        return []  # a file, not a page
    problems = [
        f"{path} at {width} px: {v['id']} ({v['impact']}): {v['help']} {v['nodes']}"
        for v in axe_violations(page)
    ]
    if width < 500 and (extra := sideways(page)) > 0:
        problems.append(f"{path} at {width} px scrolls sideways by {extra} px")
    return problems


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
        start = start_pages(page, who)
        if who != "anonymous":  # a graded engine's results, not the upload still queued
            start.insert(0, f"/engines/{site.tie_strict}")
        if who in ("ta", "instructor"):
            start.insert(0, f"/instructor/tournaments/{site.tournament}")
        visited, problems = sweep(page, site.url, start, _check)
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
