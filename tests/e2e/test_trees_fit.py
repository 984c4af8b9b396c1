"""Trees that fit, in a real headless Chromium at 1280 and 390 px.

Fit puts the whole drawing in view, its text no smaller than 10 px, folding subtrees where even
that is too wide; the zoom buttons say when they are at a limit; the replay's notes (alpha, beta,
value) never overlap one another, a node or a leaf's value, at any zoom; above a replay too wide
to see whole, the path from the root gives each ancestor's alpha and beta; the step buttons sit
below the drawing, not over it; a tap on a game tree's node shows its board without answering.
What the page must show is worked out here from the reference solver, never read from its script.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from grader.gametree import Conventions, Tree, solve
from tests.e2e.e2e_support import LiveServer, open_page, signed_in, tree_drawn

pytestmark = pytest.mark.e2e

HEIGHTS = {1280: 800, 390: 844}
SLOTS = 3  # the standard preset: prune, values and leaf order on depth-4 trees

# Where the drawing stands against its box and the window, and its smallest text on screen
# (font size times the drawing's scale on screen), among what is drawn (not folded away).
MEASURE = """(host) => {
  const scroller = host.querySelector('.tree-scroll');
  const box = scroller.getBoundingClientRect();
  const outside = [];
  for (const node of host.querySelectorAll('.node')) {
    if (!node.getClientRects().length) continue;
    const b = node.querySelector('.shape').getBoundingClientRect();
    if (b.left < box.left - 0.5 || b.right > box.right + 0.5 || b.top < box.top - 0.5
        || b.bottom > box.bottom + 0.5 || b.left < 0 || b.right > innerWidth
        || b.top < 0 || b.bottom > innerHeight) outside.push(node.dataset.label);
  }
  const texts = [...host.querySelectorAll('svg text')]
    .filter(t => t.textContent.trim() && t.getClientRects().length);
  return {
    sideways: scroller.scrollWidth - scroller.clientWidth,
    downwards: scroller.scrollHeight - scroller.clientHeight,
    outside,
    smallest: Math.min(...texts.map(t => t.getScreenCTM().a * parseFloat(getComputedStyle(t).fontSize))),
    folded: host.querySelectorAll('.node.folded').length,
    hidden: [...host.querySelectorAll('.node')].filter(n => !n.getClientRects().length).length,
  };
}"""

# Pairs of drawn things that meet: a note and another note, a node's shape or a leaf's value.
OVERLAPS = """(host) => {
  const drawn = (selector) => [...host.querySelectorAll(selector)]
    .filter(e => e.getClientRects().length && e.textContent !== null)
    .map(e => [e.closest('[data-path]').dataset.path, e.getBoundingClientRect()]);
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const notes = drawn('.note');
  const others = [...drawn('.node .shape').map(([p, b]) => [`node ${p}`, b]),
    ...drawn('.leaf-value').map(([p, b]) => [`value ${p}`, b])];
  const out = [];
  const canvas = host.querySelector('svg.tree-svg').getBoundingClientRect();
  notes.forEach(([p, a], i) => {
    if (a.left < canvas.left || a.right > canvas.right) out.push(`note ${p} cut off by the drawing's edge`);
    notes.slice(i + 1).forEach(([q, b]) => { if (meet(a, b)) out.push(`note ${p} on note ${q}`); });
    for (const [name, b] of others) if (meet(a, b)) out.push(`note ${p} on ${name}`);
  });
  return [notes.length, out];
}"""


def _exercise(page: Any) -> dict[str, Any]:
    return page.evaluate("JSON.parse(document.getElementById('exercise-data').textContent)")


def _tree(page: Any, where: str = '[data-role="tree"]') -> Any:
    return page.locator(where).first


def _fit_and_check(page: Any, host: Any, shot: Path | None = None) -> dict[str, Any]:
    host.get_by_role("button", name="Fit the whole tree").click()
    if shot is not None:
        expect(host.locator(".node").first).to_be_visible()
        page.screenshot(path=str(shot), full_page=True)
    host.evaluate("(host) => host.scrollIntoView({block: 'start'})")
    seen = host.evaluate(MEASURE)
    assert seen["sideways"] <= 1 and seen["downwards"] <= 1, seen
    assert seen["outside"] == [], seen
    assert seen["smallest"] >= 10 - 0.01, seen
    if seen["hidden"]:
        # What does not fit is folded, never cut off: each fold says how many leaves it holds.
        assert seen["folded"] > 0, seen
        expect(host.locator(".node.folded .fold-badge").first).to_be_visible()
    return seen


@pytest.mark.parametrize("width", [1280, 390])
def test_fit_puts_the_whole_tree_in_view(
    browser, live_server, student_cookies, screenshots, width
) -> None:
    with open_page(browser, live_server.url, height=HEIGHTS[width], width=width) as page:
        signed_in(page, student_cookies)
        for index in range(SLOTS):
            page.goto(f"/assignments/{live_server.assignment_id}/slots/{index}")
            tree_drawn(page)
            shot = screenshots / f"exercise-{width}.png" if index == 0 else None
            seen = _fit_and_check(page, _tree(page), shot)
            if width == 1280 and index == 0:
                # The assigned depth-4 tree fits without folding at 1280 px.
                assert seen["hidden"] == 0, seen
        # A depth-5 tree, 243 leaves: folded where it must be, every fold openable.
        page.goto(f"/exercises/{live_server.practice['243-prune']}")
        tree_drawn(page)
        host = _tree(page)
        seen = _fit_and_check(page, host)
        assert seen["folded"] > 0, seen
        badge = host.locator(".node.folded .fold-badge").first
        folded = badge.locator("xpath=..").get_attribute("data-path")
        badge.click()
        expect(host.locator(f'.node[data-path="{folded}"]')).not_to_contain_class("folded")
        expect(host.get_by_role("button", name="Unfold every folded subtree")).to_be_visible()


def test_zoom_buttons_are_disabled_at_their_limits(student, live_server) -> None:
    page = student
    page.goto(f"/assignments/{live_server.assignment_id}/slots/0")
    tree_drawn(page)
    host = _tree(page)
    size = host.get_by_role("button", name="Actual size")
    for name in ("Zoom out", "Zoom in"):
        button = host.get_by_role("button", name=name, exact=True)
        for _ in range(20):  # 1.25 a click: from 10 px text to 250 % in fewer
            if button.get_attribute("aria-disabled") == "true":
                break
            button.click()
        expect(button).to_be_disabled()
        shown = size.inner_text()
        button.click(force=True)  # at the limit it does nothing, and says so
        expect(size).to_have_text(shown)
        expect(button).to_be_disabled()
        # Off the limit again, the other way.
        other = host.get_by_role(
            "button", name="Zoom in" if name == "Zoom out" else "Zoom out", exact=True
        )
        expect(other).to_be_enabled()
    size.click()
    expect(size).to_have_text("100%")
    expect(size).to_be_disabled()
    expect(host.get_by_role("button", name="Zoom out", exact=True)).to_be_enabled()


def _watch(page: Any, live_server: LiveServer, name: str) -> Any:
    page.goto(f"/exercises/{live_server.practice[name]}")
    tree_drawn(page)
    page.get_by_role("button", name="Watch the search").click()
    replay = page.locator('[data-replay="tree"]')
    expect(replay.locator(".node").first).to_be_visible()
    return replay


@pytest.mark.parametrize("width", [1280, 390])
def test_replay_notes_never_overlap(
    browser, live_server, student_cookies, screenshots, width
) -> None:
    with open_page(browser, live_server.url, height=HEIGHTS[width], width=width) as page:
        signed_in(page, student_cookies)
        replay = _watch(page, live_server, "six-levels")
        page.get_by_role("button", name="End").click()
        expect(page.locator('[data-replay="caption"]')).to_contain_text("Best line")
        page.locator('[data-role="replay"]').evaluate(
            "(box) => box.scrollIntoView({block: 'start'})"
        )
        page.screenshot(path=str(screenshots / f"replay-{width}.png"))
        size = replay.get_by_role("button", name="Actual size")
        levels = []
        for name, clicks in (("Actual size", 1), ("Zoom in", 3), ("Zoom out", 12)):
            for _ in range(clicks):
                button = replay.get_by_role("button", name=name, exact=name != "Actual size")
                if button.get_attribute("aria-disabled") == "true":
                    break
                button.click()
            levels.append(size.inner_text())
            count, overlaps = replay.evaluate(OVERLAPS)
            assert count > 10, "the search's notes are drawn"
            assert overlaps == [], f"at {levels[-1]}: {overlaps[:8]}"
        assert len(set(levels)) == 3, levels


def _shown(value: Any) -> str:
    return {"inf": "+∞", "-inf": "−∞"}.get(str(value), str(value))


def test_breadcrumb_keeps_the_ancestors_bounds_and_the_steps_stay_below(
    browser, live_server, student_cookies
) -> None:
    with open_page(browser, live_server.url, height=HEIGHTS[390], width=390) as page:
        signed_in(page, student_cookies)
        replay = _watch(page, live_server, "243-prune")
        exercise = _exercise(page)
        tree = Tree.from_nested(exercise["tree"], exercise["players"])
        trace = solve(tree, Conventions.from_dict(exercise["conventions"])).trace
        # A step deep in the tree, well into the search: its window has moved at every level.
        k = next(
            s.index for s in trace if s.kind == "enter" and s.path.count(".") == 3 and s.index > 150
        )
        page.locator('[data-replay="slider"]').fill(str(k))
        expect(page.locator('[data-replay="counter"]')).to_have_text(re.compile(rf"^Step {k} of"))
        path = trace[k].path
        chain = [""] + [".".join(path.split(".")[: i + 1]) for i in range(path.count(".") + 1)]
        labels = tree.labels()
        trail = replay.locator(".tree-trail li")
        expect(trail).to_have_count(len(chain))
        for i, node in enumerate(chain):
            # The node's window as the search stands at step k: its last enter or bound step.
            steps = [s for s in trace[: k + 1] if s.path == node and s.kind in ("enter", "bound")]
            last = steps[-1]
            item = trail.nth(i)
            expect(item.locator(".trail-label")).to_have_text(labels[node])
            expect(item.locator(".note-alpha")).to_have_text(f"α={_shown(last.alpha)}")
            expect(item.locator(".note-beta")).to_have_text(f"β={_shown(last.beta)}")
        # Pinned above the drawing, which scrolls under it.
        drawing = replay.locator(".tree-scroll")
        assert trail.first.bounding_box()["y"] < drawing.bounding_box()["y"]
        # A click on an ancestor brings it into view.
        trail.first.get_by_role("button").click()
        expect(replay.locator('.node[data-path=""]')).to_be_in_viewport()
        # The step buttons: below the drawing, never over it, in view with it.
        replay.evaluate("(host) => host.scrollIntoView({block: 'start'})")
        forward = page.get_by_role("button", name="Step forward")
        expect(forward).to_be_in_viewport()
        controls = page.locator('[data-replay="controls"]').bounding_box()
        box = drawing.bounding_box()
        assert controls["y"] >= box["y"] + box["height"] - 1, (controls, box)
        forward.click()
        expect(page.locator('[data-replay="counter"]')).to_have_text(
            re.compile(rf"^Step {k + 1} of")
        )


def test_a_tap_shows_a_game_nodes_board_and_a_second_tap_marks_it(
    browser, live_server, student_cookies
) -> None:
    with open_page(browser, live_server.url, height=HEIGHTS[390], width=390, touch=True) as page:
        signed_in(page, student_cookies)
        page.goto("/practice/game")
        page.get_by_label("Game").select_option("connect-4")
        page.get_by_label("Exercise").select_option("prune")
        page.get_by_label("Start position", exact=False).fill("4453")
        page.get_by_label("Depth in plies").fill("2")
        page.get_by_label("Branching cap", exact=False).fill("3")
        page.get_by_role("button", name="Make the exercise").click()
        page.wait_for_url("**/exercises/*")
        tree_drawn(page)
        tip = page.locator('[data-role="game-board"]')
        node = page.locator('[data-role="tree"] .node[data-path="1"]')
        node.tap()
        expect(tip).to_be_visible()
        expect(tip).to_contain_text("after X in column 2")
        expect(node).not_to_contain_class("marked")
        node.tap()  # the same node again: now it is marked
        expect(node).to_contain_class("marked")
        other = page.locator('[data-role="tree"] .node[data-path="2"]')
        other.tap()  # a new node: its board, no mark
        expect(tip).to_contain_text("after X in column 3")
        expect(other).not_to_contain_class("marked")
        expect(node).to_contain_class("marked")
