"""WCAG 2.2 2.4.11 Focus Not Obscured (Minimum): the replay's step controls stick to the window's
bottom, and no control the Tab key reaches is hidden behind them; part of each focused element
is in view, on a wide window and on a phone."""

from __future__ import annotations

import pytest

from tests.e2e.e2e_support import open_page, replay_drawn, signed_in, tree_drawn

pytestmark = pytest.mark.e2e

# The focused element's area left in view: inside the window and outside the sticky controls
# (an element of the controls themselves is drawn on top of them).
IN_VIEW = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const box = e.getBoundingClientRect();
  const bar = document.querySelector('.exercise .replay-controls');
  let top = Math.max(box.top, 0), bottom = Math.min(box.bottom, innerHeight);
  if (bar && !bar.contains(e) && getComputedStyle(bar).position === 'sticky') {
    const b = bar.getBoundingClientRect();
    if (b.top < bottom && b.bottom > top) bottom = Math.min(bottom, b.top);
  }
  const what = e.getAttribute('aria-label') || e.textContent.trim().slice(0, 40) || e.tagName;
  return {what, visible: Math.max(0, bottom - top) * Math.max(0, Math.min(box.right, innerWidth) - Math.max(box.left, 0))};
}"""


@pytest.mark.parametrize(("width", "height"), [(1280, 700), (390, 700)])
def test_no_focused_control_hides_behind_the_replay_controls(
    browser, live_server, student_cookies, width, height
):
    with open_page(browser, live_server.url, width=width, height=height) as page:
        signed_in(page, student_cookies)
        page.goto(f"/exercises/{live_server.practice['obscured']}")
        tree_drawn(page)
        page.get_by_label("Value of the root A").fill("0")
        page.get_by_role("button", name="Submit").click()
        replay_drawn(page)
        hidden = []
        seen = 0
        for _ in range(120):
            page.keyboard.press("Tab")
            got = page.evaluate(IN_VIEW)
            if got is None:
                break
            seen += 1
            if got["visible"] <= 0:
                hidden.append(got["what"])
        assert seen > 10
        assert not hidden, hidden
