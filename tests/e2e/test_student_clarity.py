"""What a student reads on the exercise page: when the key and replay come, nodes rather than
replay steps while the replay is locked, Submit off (and why) after the last attempt, the
replay's keys working at both ends, and the focus ring on a marked node."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.e2e_support import replay_drawn, tree_drawn

pytestmark = pytest.mark.e2e


def test_limits_said_and_kept(student, live_server) -> None:
    page = student
    page.goto(f"/assignments/{live_server.assignment_id}/slots/1")  # values, 3 attempts
    tree_drawn(page)
    submit = page.get_by_role("button", name="Submit")
    submit.click()  # every box empty: a wrong answer
    no_key = page.locator('[data-role="no-key"]')
    expect(no_key).to_have_text(
        "The key and the replay are shown after full marks or after your last attempt (3 of 3)."
    )
    # Without the replay, the first wrong place is a node, never a step number.
    first = page.locator('[data-role="first-wrong"]')
    expect(first).to_contain_text("First wrong node:")
    expect(page.locator('[data-role="result"]')).not_to_have_text(re.compile(r"step \d"))
    for used in (2, 3):
        expect(submit).to_be_enabled()
        submit.click()
        expect(page.locator('[data-role="attempts-used"]')).to_have_text(str(used))
    # The third used the last attempt: Submit is off and says why; the replay is open.
    expect(submit).to_be_disabled()
    expect(page.locator('[data-role="attempts-done"]')).to_have_text(
        "You have used all 3 attempts; the best one counts."
    )
    page.reload()
    expect(page.get_by_role("button", name="Submit")).to_be_disabled()
    replay_drawn(page)

    # The replay's keys: End, then the left arrow; Restart, then the right arrow.
    counter = page.locator('[data-replay="counter"]')
    end = page.get_by_role("button", name="End")
    end.click()
    expect(end).to_be_focused()
    expect(counter).to_have_text(re.compile(r"^Step (\d+) of \1$"))  # the last step
    total = int(counter.inner_text().split(" of ")[1])
    page.keyboard.press("ArrowLeft")
    expect(counter).to_have_text(f"Step {total - 1} of {total}")
    restart = page.get_by_role("button", name="Restart")
    restart.click()
    expect(counter).to_have_text(f"Step 0 of {total}")
    page.keyboard.press("ArrowLeft")  # at step 0: nothing to go back to, focus stays
    expect(restart).to_be_focused()
    expect(counter).to_have_text(f"Step 0 of {total}")
    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text(f"Step 1 of {total}")


def test_focus_ring_shows_on_a_marked_node(student, live_server) -> None:
    page = student
    page.goto(f"/exercises/{live_server.practice['focus-ring']}")
    node = page.locator('[data-role="tree"] .node[data-path="1"]')
    node.click()
    expect(node).to_contain_class("marked")
    ring: Any = page.evaluate("""() => { const n = document.querySelector('[data-role="tree"] .node[data-path="1"]');
      n.focus(); const r = getComputedStyle(n.querySelector('.focus-ring'));
      return [document.activeElement === n, r.stroke, r.strokeWidth]; }""")
    assert ring[0] and ring[1] not in ("none", "") and float(ring[2].rstrip("px")) >= 2
