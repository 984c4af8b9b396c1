"""Tables that read at 1280 px and 390 px (issue 30 §4, issue 24 §2): the gradebook keeps its
student and total columns in view while its items scroll, and says that it scrolls; on a phone
its rows are cards, the total labelled. Every other page's tables are checked by the sweep of
tests/e2e/test_accessibility.py (no cell's text breaks inside a word, a phone stacks tables of
three or more columns), which opens each page once a width for axe and the tables both."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.accessibility import sideways
from tests.e2e.e2e_support import sign_in
from tests.e2e.site_support import INSTRUCTOR

# make test's workers (--dist loadgroup): one of them runs these, seeding the site once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("site")]


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
