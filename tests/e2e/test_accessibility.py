"""Every page of the app, as an anonymous visitor, a student, a TA and an instructor, at 1280 px
and 390 px, in one sweep a role that opens each page once at each width and checks there:

- axe-core: no serious or critical violation, every text at 4.5:1 contrast (axe's
  color-contrast rule), and no page scrolling sideways on a phone;
- its tables (issue 30 §4, issue 24 §2): no table cell's text breaks inside a word, measured
  with the DOM's line boxes (a word whose Range has client rects on more than one line), and on
  a phone a table of more than two columns is a stack of cards.

The pages are found by following the links of each role's pages from its landing page
(tests/e2e/site_support.py), the graded engine's results and the tournament first. The pages run
under the app's own Content-Security-Policy; axe is added to each page by the browser itself.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.accessibility import BROKEN_WORDS, RUN, axe_script
from tests.e2e.e2e_support import Traffic, sign_in
from tests.e2e.site_support import INSTRUCTOR, STUDENT, WIDTHS, open_at, start_pages, sweep

# make test's workers (--dist loadgroup): one of them runs these, seeding the site once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("site")]


# One question to the page at each width: its tables measured first (before axe runs in it), on a
# phone the tables of three or more columns still laid out as grid rows (not stacked), then axe,
# then how far the page scrolls sideways.
CHECK = """async (phone) => {
  const tables = document.querySelector("main table") !== null;
  const broken = tables ? (BROKEN_WORDS)() : [];
  const grid = tables && phone ? [...document.querySelectorAll("main table.stacks tbody tr")]
    .filter(r => r.offsetParent && getComputedStyle(r).display === "table-row").length : 0;
  const violations = await (RUN)();
  const sideways = document.documentElement.scrollWidth - window.innerWidth;
  return {tables, broken, grid, violations, sideways};
}""".replace("(RUN)", f"({RUN})").replace("(BROKEN_WORDS)", f"({BROKEN_WORDS})")


@pytest.mark.parametrize("who", ["anonymous", "student", "ta", "instructor"])
def test_every_page_passes_axe_and_no_table_cell_breaks_a_word(browser, site, who) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=site.url)
    # The browser runs axe in every document before the page's own scripts, so the page keeps
    # its Content-Security-Policy (it allows only the app's own scripts).
    context.add_init_script(path=axe_script())
    errors: list[str] = []
    tabs: dict[int, Any] = {}  # a tab of each width, signed in together (one context)
    traffic: dict[int, Traffic] = {}
    for width in WIDTHS:
        tabs[width] = context.new_page()
        tabs[width].set_viewport_size({"width": width, "height": 900})
        tabs[width].on("pageerror", lambda error: errors.append(str(error)))
        traffic[width] = Traffic(tabs[width])
    tables: list[str] = []  # the pages with a table in their main part

    def check(page: Any, path: str, width: int) -> list[str]:
        if not open_at(page, traffic[width], path, width):
            return []  # a file, not a page
        phone = width < 500
        found = page.evaluate(CHECK, phone)
        if found["tables"] and width == 1280:
            tables.append(path)
        problems = [f"{path} at {width} px: {problem}" for problem in found["broken"]]
        if found["grid"]:
            problems.append(f"{path} at {width} px: {found['grid']} table rows not stacked")
        problems += [
            f"{path} at {width} px: {v['id']} ({v['impact']}): {v['help']} {v['nodes']}"
            for v in found["violations"]
        ]
        if phone and found["sideways"] > 0:
            problems.append(f"{path} at {width} px scrolls sideways by {found['sideways']} px")
        return problems

    try:
        start = start_pages(tabs[1280], who)
        if who != "anonymous":  # a graded engine's results, not the upload still queued
            start.insert(0, f"/engines/{site.tie_strict}")
        if who in ("ta", "instructor"):
            start.insert(0, f"/instructor/tournaments/{site.tournament}")
        visited, problems = sweep(tabs, site.url, start, check)
    finally:
        context.close()
    assert not errors, errors
    assert len(visited) >= {"anonymous": 3, "student": 6, "ta": 8, "instructor": 12}[who], visited
    # The pages with tables each role reaches: the sweep found them.
    assert len(tables) >= {"anonymous": 0, "student": 4, "ta": 10, "instructor": 12}[who], (
        tables,
        visited,
    )
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
