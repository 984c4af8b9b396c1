"""Reflow and target sizes (WCAG 2.1 1.4.10, 2.2 2.5.8), measured in Chromium.

At 320 CSS px wide the page reflows: nothing sticks out past the window but inside the tree's own
scroll box (and a wide table's, which scrolls in its box: 1.4.10 lets data tables keep their two
dimensions), so only the tree scrolls both ways. Every pointer target of an exercise page, each
node of the tree included, is 24 px or more both ways, or spaced as 2.5.8 allows: the 24 px
circle on its centre meets no other target, nor another undersized target's circle.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.e2e_support import Traffic, open_page, sign_in, signed_in, tree_drawn
from tests.e2e.site_support import links, pattern
from tests.e2e.staff_support import STAFF

pytestmark = pytest.mark.e2e

# Elements past the window's right edge that are not inside a box that scrolls on its own.
STICKING_OUT = """(width) => {
  const out = [];
  for (const e of document.body.querySelectorAll('*')) {
    if (e.closest('.tree-scroll, .table-scroll, pre, .tree-minimap')) continue;
    const box = e.getBoundingClientRect();
    if (!box.width || getComputedStyle(e).visibility === 'hidden') continue;
    if (box.right > width + 0.5 || box.left < -0.5) {
      if (e.closest('.skip-link') || e.matches('.skip-link')) continue;
      out.push(`${e.tagName.toLowerCase()}.${[...e.classList].join('.')} ${Math.round(box.left)}..${Math.round(box.right)}`);
    }
  }
  return {scroll: document.documentElement.scrollWidth, out: out.slice(0, 10)};
}"""

# Every pointer target shown: tree nodes (their shapes), buttons, links, inputs, selects.
TARGETS = """() => {
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const targets = [];
  for (const g of document.querySelectorAll('.tree-svg .node')) {
    const shape = g.querySelector('.shape');
    if (shape && shown(shape)) targets.push([`node ${g.dataset.label}`, shape.getBoundingClientRect()]);
  }
  for (const e of document.querySelectorAll('main button, main a[href], main input, main select, header a, header button')) {
    if (!shown(e) || e.closest('.skip-link') || e.type === 'hidden') continue;
    // A link inside a sentence is exempt (2.5.8's inline exception).
    if (e.tagName === 'A' && getComputedStyle(e).display === 'inline'
        && e.parentElement.textContent.trim() !== e.textContent.trim()) continue;
    targets.push([`${e.tagName.toLowerCase()} ${(e.getAttribute('aria-label') || e.textContent || e.name || '').trim().slice(0, 30)}`,
                  e.getBoundingClientRect()]);
  }
  const small = (b) => b.width < 24 - 0.01 || b.height < 24 - 0.01;
  const centre = (b) => [(b.left + b.right) / 2, (b.top + b.bottom) / 2];
  const toBox = ([x, y], b) => Math.hypot(Math.max(b.left - x, 0, x - b.right), Math.max(b.top - y, 0, y - b.bottom));
  const out = [];
  targets.forEach(([name, box], i) => {
    if (!small(box)) return;
    const c = centre(box);
    targets.forEach(([other, b], j) => {
      if (i === j) return;
      const meets = toBox(c, b) < 12 - 0.01 || (small(b) && Math.hypot(c[0] - centre(b)[0], c[1] - centre(b)[1]) < 24 - 0.01);
      if (meets) out.push(`${name} (${box.width.toFixed(1)}x${box.height.toFixed(1)}) too near ${other}`);
    });
  });
  return {count: targets.length, out: out.slice(0, 12)};
}"""


def _reflows(page: Any, traffic: Traffic, path: str) -> None:
    page.goto(path)
    traffic.settle()
    got = page.evaluate(STICKING_OUT, 320)
    assert got["scroll"] <= 320 and not got["out"], (path, got)


def _sweep(
    page: Any, traffic: Traffic, origin: str, start: list[str], widths: tuple[int, ...]
) -> tuple[list[str], dict[str, Any]]:
    """Every page reached from `start` by links (one page per route pattern), each at every
    width with its folded parts open: the pages visited, and what stuck out or where the
    first Tab missed the skip link (WCAG 2.4.1; where no field took the focus on arrival)."""
    queue, seen, visited = list(start), set(), []
    found: dict[str, Any] = {}
    while queue and len(visited) < 60:
        path = queue.pop(0)
        if pattern(path) in seen:
            continue
        seen.add(pattern(path))
        for width in widths:
            page.set_viewport_size({"width": width, "height": 640})
            response = page.goto(path)
            if response is None or "text/html" not in response.headers.get("content-type", ""):
                break  # a file, not a page
            traffic.settle()
            # What a click opens is measured too (a folded form: "Name a group of students").
            page.evaluate(
                "() => document.querySelectorAll('main details').forEach((d) => { d.open = true; })"
            )
            got = page.evaluate(STICKING_OUT, width)
            if got["scroll"] > width or got["out"]:
                found[f"{path} at {width} px"] = got
            if page.evaluate("document.activeElement === document.body"):
                page.keyboard.press("Tab")
                if page.evaluate("document.activeElement.dataset.role") != "skip-link":
                    found[f"{path}: the first Tab"] = "not the skip link"
        else:
            visited.append(path)
            queue += [link for link in links(page, origin) if pattern(link) not in seen]
    return visited, found


def test_every_student_page_reflows_at_320_px(browser, live_server, student_cookies) -> None:
    """Every page the student reaches from their dashboard, found by following its links, and
    a practice tree of each kind."""
    with open_page(browser, live_server.url, width=320, height=640) as page:
        traffic = Traffic(page)
        signed_in(page, student_cookies)
        start = ["/dashboard", "/practice", f"/assignments/{live_server.assignment_id}"]
        visited, found = _sweep(page, traffic, live_server.url, start, (320,))
        print(f"\n{len(visited)} student pages at 320 px: {visited}")
        assert set(start) <= set(visited) and len(visited) > 8, visited
        assert not found, found
        for name in (
            "three-levels",
            "bounds",
            "leaf-order",
            "best-order",
            "chance-4",
            "243-values",
        ):
            _reflows(page, traffic, f"/exercises/{live_server.practice[name]}")
            tree_drawn(page)
            got = page.evaluate(STICKING_OUT, 320)
            assert got["scroll"] <= 320 and not got["out"], (name, got)
            # The tree's own box scrolls when the drawing is wider than it.
            scroller = page.locator('[data-role="tree"] .tree-scroll')
            expect(scroller).to_be_visible()
            sizes = scroller.evaluate(
                "e => [e.scrollWidth, e.clientWidth, e.getBoundingClientRect().right]"
            )
            assert sizes[2] <= 320, (name, sizes)


@pytest.mark.parametrize("width", [1280, 320])
def test_targets_are_24_px_or_spaced(browser, live_server, student_cookies, width) -> None:
    with open_page(browser, live_server.url, width=width, height=800) as page:
        signed_in(page, student_cookies)
        for name in (
            "three-levels",
            "contrast-values",  # a values exercise (this test only reads its page)
            "bounds",
            "leaf-order",
            "best-order",
            "chance-4",
            "243-prune",
        ):
            page.goto(f"/exercises/{live_server.practice[name]}")
            tree_drawn(page)
            got = page.evaluate(TARGETS)
            assert got["count"] > 5 and not got["out"], (name, width, got)


def test_every_staff_page_reflows_at_320_px(browser, live_server, screenshots) -> None:
    """Every page the staff reach from their dashboard (issue 50 §5: the courses, the roster and
    the assignment's page overflowed), found by following links (one page per route pattern),
    on a course of long addresses, pending invites and extensions (tests/e2e/staff_support.py),
    at 640 px (200% of 1280) and 320 px (400%), every folded part opened."""
    with open_page(browser, live_server.url, width=320, height=640) as page:
        traffic = Traffic(page)
        sign_in(page, STAFF)
        page.goto("/instructor/")
        page.get_by_role("link", name="Reflow 101").first.click()
        roster = page.locator('a[href$="/roster"]').first.get_attribute("href")
        assignment = page.locator('a[href*="/instructor/assignments/"]').first.get_attribute("href")
        assert roster and assignment, (roster, assignment)
        shots = {"courses": "/instructor/", "roster": roster, "assignment": assignment}
        visited, found = _sweep(page, traffic, live_server.url, list(shots.values()), (640, 320))
        print(f"\n{len(visited)} staff pages at 320 and 640 px: {visited}")
        assert set(shots.values()) <= set(visited), visited
        assert len(visited) > 15, visited  # the crawl reached the course's pages
        page.set_viewport_size({"width": 320, "height": 640})
        for name, path in shots.items():
            page.goto(path)
            traffic.settle()
            page.screenshot(path=str(screenshots / f"staff-{name}-320.png"), full_page=True)
        assert not found, found
