"""The staff header at 1280 px (issue 50): the site's navigation and the course's tabs each stay
on one line on a course's staff pages, measured in a real headless Chromium."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.e2e_support import INSTRUCTOR, sign_in

pytestmark = pytest.mark.e2e


def _lines(page: Any, selector: str) -> int:
    """How many lines the element's links and words take: their distinct tops."""
    tops = page.eval_on_selector(
        selector,
        "el => [...el.querySelectorAll('a, span, strong, button')]"
        ".filter(e => e.getClientRects().length)"
        ".map(e => Math.round(e.getBoundingClientRect().top))",
    )
    lines: list[int] = []
    for top in sorted(tops):
        if not lines or top - lines[-1] > 8:
            lines.append(top)
    return len(lines)


def test_the_staff_header_stays_on_one_line_at_1280_px(page, live_server, screenshots) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    sign_in(page, INSTRUCTOR)
    page.goto("/instructor/")
    page.get_by_role("link", name="Search 101").first.click()
    page.wait_for_url(re.compile(r"/instructor/courses/\d+$"))
    page.screenshot(path=str(screenshots / "staff-header-1280.png"))
    assert _lines(page, "header") == 1
    assert _lines(page, "nav.course-tabs") == 1
