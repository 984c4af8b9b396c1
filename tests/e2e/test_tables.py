"""Tables that read at 1280 px and 390 px (issue 30 §4, issue 24 §2): every page that has a
table, as each role, found by the same sweep as the accessibility test (the graded engine's
results and a tournament first); no table cell's text breaks inside a word, measured with the
DOM's line boxes (a word whose Range has client rects on more than one line). On a phone, a
table of more than two columns is a stack of cards. The gradebook keeps its student and total
columns in view while its items scroll, and says that it scrolls."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.accessibility import broken_words, sideways
from tests.e2e.e2e_support import sign_in
from tests.e2e.site_support import INSTRUCTOR, open_at, start_pages, sweep

# make test's workers (--dist loadgroup): one of them runs these, seeding the site once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("site")]


def _check(page: Any, path: str, width: int) -> list[str]:
    if not open_at(page, path, width) or not page.locator("main table").count():
        return []
    found = [f"{path} at {width} px: {problem}" for problem in broken_words(page)]
    if width < 500:
        # A phone stacks the tables of three or more columns: none is laid out as a grid row.
        grid = page.eval_on_selector_all(
            "main table.stacks tbody tr",
            "rows => rows.filter(r => r.offsetParent && getComputedStyle(r).display "
            "=== 'table-row').length",
        )
        if grid:
            found.append(f"{path} at {width} px: {grid} table rows not stacked")
    return found


@pytest.mark.parametrize("who", ["student", "ta", "instructor"])
def test_no_table_cell_breaks_inside_a_word(browser, site, who) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=site.url)
    page = context.new_page()
    tables: list[str] = []

    def check(page: Any, path: str, width: int) -> list[str]:
        problems = _check(page, path, width)
        if width == 1280 and page.locator("main table").count():
            tables.append(path)
        return problems

    try:
        start = start_pages(page, who)
        start.insert(0, f"/engines/{site.tie_strict}")
        if who != "student":
            start.insert(0, f"/instructor/tournaments/{site.tournament}")
        visited, problems = sweep(page, site.url, start, check)
    finally:
        context.close()
    # The pages with tables each role reaches: the sweep found them.
    assert len(tables) >= {"student": 4, "ta": 10, "instructor": 12}[who], (tables, visited)
    assert not problems, "\n".join(problems)


def test_the_gradebook_pins_student_and_total_and_says_it_scrolls(browser, site, screenshots):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=site.url)
    page = context.new_page()
    try:
        sign_in(page, INSTRUCTOR)
        page.goto("/instructor/courses/1/gradebook")
        book = page.locator('[data-role="gradebook"]')
        box = page.locator(".table-scroll:has([data-role='gradebook'])")
        expect(box).to_have_attribute("aria-label", "Gradebook (scrolls sideways)")
        expect(page.locator(".scroll-cue")).to_be_visible()
        total = book.locator("tbody tr td.total").first
        student = book.locator("tbody tr th.who").first

        def inside(cell: Any) -> bool:
            mine, frame = cell.bounding_box(), box.bounding_box()
            return frame["x"] - 1 <= mine["x"] and mine["x"] + mine["width"] <= (
                frame["x"] + frame["width"] + 1
            )

        assert inside(total) and inside(student)  # the total is in view before scrolling
        for end in ("box.scrollWidth", "0"):
            box.evaluate(f"box => box.scrollLeft = {end}")
            expect(total).to_be_in_viewport()
            assert inside(total) and inside(student)
        page.screenshot(path=str(screenshots / "gradebook-1280.png"), full_page=True)
        page.set_viewport_size({"width": 390, "height": 900})
        expect(book.locator("tbody tr").first).to_have_css("display", "block")
        expect(total).to_have_attribute("data-label", "Total")
        assert sideways(page) == 0
        page.screenshot(path=str(screenshots / "gradebook-390.png"), full_page=True)
    finally:
        context.close()
