"""A depth-5, branching-3 tree (243 leaves) on a laptop (1280 px) and a phone (390 px): every
label legible (12 px at actual size, never below 10 px), every node reachable, inputs clear of
the nodes, MAX/MIN always in view, and after grading the first wrong node brought into view.
(tests/e2e/test_trees_fit.py: Fit puts whole trees in view, folding what must be.)"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from grader.gametree import Conventions, Tree, solve
from tests.e2e.e2e_support import signed_in

pytestmark = pytest.mark.e2e

WIDTHS = {"laptop": (1280, 800), "phone": (390, 844)}
NODES = 1 + 3 + 9 + 27 + 81 + 243


@contextlib.contextmanager
def _tab(browser: Any, live_server: Any, size: str) -> Iterator[Any]:
    width, height = WIDTHS[size]
    context = browser.new_context(
        viewport={"width": width, "height": height},
        base_url=live_server.url,
        has_touch=size == "phone",
    )
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, errors


def _open(tab: Any, live_server: Any, cookies: Any, name: str) -> dict[str, Any]:
    signed_in(tab, cookies)
    tab.goto(f"/exercises/{live_server.practice[name]}")
    expect(tab.locator('[data-role="tree"] .node')).to_have_count(NODES)
    return tab.evaluate("JSON.parse(document.getElementById('exercise-data').textContent)")


# The on-screen size of every drawn text in the tree (font size times the drawing's scale).
SMALLEST_TEXT = """() => Math.min(...[...document.querySelectorAll('[data-role="tree"] svg text')]
  .filter(t => t.textContent.trim() && t.getClientRects().length)
  .map(t => t.getScreenCTM().a * parseFloat(getComputedStyle(t).fontSize)))"""

SIDEWAYS = "() => document.documentElement.scrollWidth - window.innerWidth"

# Pairs (input block, node) whose boxes meet, in the canvas' own coordinates.
OVERLAPS = """() => {
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const shapes = [...document.querySelectorAll('[data-role="tree"] .node .shape')]
    .map(s => [s.closest('.node').dataset.label, s.getBoundingClientRect()]);
  const blocks = [...document.querySelectorAll('[data-role="tree"] .node-input')]
    .map(b => [b.querySelector('input').getAttribute('aria-label'), b.getBoundingClientRect()]);
  const out = [];
  for (const [name, box] of blocks) {
    for (const [label, shape] of shapes) if (meet(box, shape)) out.push(`${name} on ${label}`);
    for (const [other, second] of blocks) if (other !== name && meet(box, second)) out.push(`${name} on ${other}`);
  }
  return out;
}"""

SCROLL = "() => { const s = document.querySelector('[data-role=\"tree\"] .tree-scroll'); return [s.scrollLeft, s.scrollTop, s.scrollWidth - s.clientWidth]; }"


def _in_view(tab: Any, selector: str) -> bool:
    """The element lies inside the tree's scrolling box and inside the window."""
    return tab.evaluate(
        """(selector) => {
      const b = document.querySelector(selector).getBoundingClientRect();
      const s = document.querySelector('[data-role="tree"] .tree-scroll').getBoundingClientRect();
      return b.left >= s.left && b.right <= s.right && b.top >= s.top && b.bottom <= s.bottom
        && b.top >= 0 && b.bottom <= innerHeight; }""",
        selector,
    )


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_243_leaves_legible_pannable_and_reachable(
    browser, live_server, student_cookies, screenshots, size
) -> None:
    with _tab(browser, live_server, size) as tab:
        exercise = _open(tab, live_server, student_cookies, "243-prune")
        tree = tab.locator('[data-role="tree"]')
        assert tab.evaluate(SMALLEST_TEXT) >= 12
        assert tab.evaluate(SIDEWAYS) <= 0
        # The controls sit above the drawing, not on it.
        tools = tree.locator(".tree-tools").bounding_box()
        drawing = tree.locator(".tree-scroll").bounding_box()
        assert tools["y"] + tools["height"] <= drawing["y"]
        # Fit squeezes only as far as labels stay legible (and folds the rest); unfolded, the
        # tree is wider than the view, and the overview frames the view.
        tree.get_by_role("button", name="Fit the whole tree").click()
        assert tab.evaluate(SMALLEST_TEXT) >= 10
        if size == "laptop":
            (screenshots / "tree-243-laptop.png").write_bytes(tree.screenshot())
        tree.get_by_role("button", name="Unfold every folded subtree").click()
        expect(tree.locator(".node.folded")).to_have_count(0)
        assert tab.evaluate(SMALLEST_TEXT) >= 10
        minimap = tree.locator(".tree-minimap")
        expect(minimap).to_be_visible()
        # The overview: a click at its right end shows the right end of the tree.
        box = minimap.bounding_box()
        minimap.click(position={"x": box["width"] - 2, "y": box["height"] / 2})
        left, _, most = tab.evaluate(SCROLL)
        assert left >= most - 2
        # MAX/MIN stay in view while the tree scrolls, in a column that covers no node.
        labels = tree.locator(".row-label")
        expect(labels).to_have_count(6)
        tab.evaluate(
            "() => document.querySelector('[data-role=\"tree\"] .tree-body').scrollIntoView()"
        )
        drawing = tree.locator(".tree-scroll").bounding_box()
        for i in range(6):
            expect(labels.nth(i)).to_be_in_viewport()
            assert (
                labels.nth(i).bounding_box()["x"] + labels.nth(i).bounding_box()["width"]
                <= drawing["x"]
            )
        # Dragging the background pans (mouse); Ctrl + wheel zooms around the pointer.
        tab.evaluate(
            "() => document.querySelector('[data-role=\"tree\"] .tree-scroll').scrollLeft = 0"
        )
        if size == "laptop":
            start = drawing["x"] + drawing["width"] - 40
            tab.mouse.move(start, drawing["y"] + 30)
            tab.mouse.down()
            tab.mouse.move(start - 300, drawing["y"] + 30, steps=6)
            tab.mouse.up()
            assert tab.evaluate(SCROLL)[0] >= 290
            width_before = tab.evaluate(SCROLL)[2]
            zoom = tree.get_by_role("button", name="Actual size")
            before = zoom.inner_text()
            tab.keyboard.down("Control")
            tab.mouse.wheel(0, -200)
            tab.keyboard.up("Control")
            expect(zoom).not_to_have_text(before)
            assert tab.evaluate(SCROLL)[2] > width_before
        else:
            # Two fingers apart zoom in; together, out (never below the legible spacing).
            zoom = tree.get_by_role("button", name="Actual size")
            before = zoom.inner_text()
            tab.evaluate("""() => {
              const s = document.querySelector('[data-role="tree"] .tree-scroll');
              const at = (id, x, type) => s.dispatchEvent(new PointerEvent(type, {pointerId: id,
                pointerType: 'touch', clientX: x, clientY: 400, bubbles: true}));
              at(1, 150, 'pointerdown'); at(2, 200, 'pointerdown');
              at(2, 300, 'pointermove'); at(1, 100, 'pointermove');
              at(1, 100, 'pointerup'); at(2, 300, 'pointerup'); }""")
            expect(zoom).not_to_have_text(before)
            assert tab.evaluate(SMALLEST_TEXT) >= 10
        # Every node can be reached from the keyboard: down to a leaf, then along the row to
        # the far end, each step keeping the focused node in view.
        tree.locator('.node[data-path=""]').focus()
        for _ in range(5):
            tab.keyboard.press("ArrowDown")
        for _ in range(242):
            tab.keyboard.press("ArrowRight")
        expect(tree.locator('.node[data-path="2.2.2.2.2"]')).to_be_focused()
        assert _in_view(tab, '[data-role="tree"] .node[data-path="2.2.2.2.2"]')
        # and clicked: marking the far-right leaf's parent marks it.
        parent = tree.locator('.node[data-path="2.2.2.2"]')
        parent.click()
        expect(parent).to_contain_class("marked")
        parent.click()
        expect(parent).not_to_contain_class("marked")

        # A wrong answer: the page brings the first wrong node into view and highlights it.
        reference = solve(
            Tree.from_nested(exercise["tree"], exercise["players"]),
            Conventions.from_dict(exercise["conventions"]),
        )
        tab.get_by_label("Value of the root A").fill(str(reference.value))
        tab.get_by_role("button", name="Submit").click()
        first = tree.locator(".node.first-wrong")
        expect(first).to_have_count(1)
        selector = f'[data-role="tree"] .node[data-path="{first.get_attribute("data-path")}"]'
        expect(first).to_be_in_viewport()
        assert _in_view(tab, selector)
        if size == "phone":
            (screenshots / "tree-243-phone.png").write_bytes(tab.screenshot())


def test_fold_a_subtree(browser, live_server, student_cookies) -> None:
    with _tab(browser, live_server, "laptop") as tab:
        _open(tab, live_server, student_cookies, "243-prune")
        tree = tab.locator('[data-role="tree"]')
        width = tab.evaluate(SCROLL)[2]
        tree.get_by_role("button", name="Fold subtrees").click()
        tree.locator('.node[data-path="0"]').click()
        # B's 120 descendants are hidden; the tree is narrower; B is not marked pruned.
        expect(tree.locator(".node:visible")).to_have_count(NODES - 120)
        assert tab.evaluate(SCROLL)[2] < width
        expect(tree.locator('.node[data-path="0"]')).not_to_have_class(re.compile("marked"))
        expect(tree.locator('.node[data-path="0"] .fold-badge')).to_contain_text("+81")
        tree.get_by_role("button", name="Fold subtrees").click()  # back to marking
        # The badge unfolds; so does F on the focused node, and Unfold all.
        tree.locator('.node[data-path="0"] .fold-badge').click()
        expect(tree.locator(".node:visible")).to_have_count(NODES)
        tree.locator('.node[data-path="1"]').focus()
        tab.keyboard.press("f")
        expect(tree.locator(".node:visible")).to_have_count(NODES - 120)
        tree.get_by_role("button", name="Unfold every folded subtree").click()
        expect(tree.locator(".node:visible")).to_have_count(NODES)


@pytest.mark.parametrize("kind", ["bounds", "values"])
@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_inputs_never_cover_nodes(browser, live_server, student_cookies, kind, size) -> None:
    with _tab(browser, live_server, size) as tab:
        _open(tab, live_server, student_cookies, f"243-{kind}")
        tree = tab.locator('[data-role="tree"]')
        assert tab.evaluate(OVERLAPS) == []
        tree.get_by_role("button", name="Fit the whole tree").click()
        assert tab.evaluate(OVERLAPS) == []
        assert tab.evaluate(SMALLEST_TEXT) >= 10
        assert tab.evaluate(SIDEWAYS) <= 0
        # After grading, the key's values appear beside wrong boxes: still clear of the nodes.
        tab.get_by_role("button", name="Submit").click()
        expect(tab.locator('[data-role="score"]')).to_be_visible()
        assert tab.evaluate(OVERLAPS) == []
