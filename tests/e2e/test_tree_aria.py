"""The exercise tree as assistive technology reads it, from Chromium's own accessibility tree (the
DevTools protocol's `Accessibility.getFullAXTree`, tests/e2e/ax_support.py): a WAI-ARIA tree whose nodes say their label, player, value, mark
and grade, with their level, place among their siblings and open state; the skip link, the
keys, the announcements and the focus after Submit, all from the keyboard alone.

The tree, [[3, 12, 8], [2, 4, 6], [14, 5, 2]]: A (MAX) over B, C, D (MIN) over the leaves E-M
(the MAX row); alpha-beta prunes I and J, and A's value is 3.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from grader.gametree import Tree
from tests.e2e.ax_support import (
    AX_CHANCE,
    AX_TREES,
    Item,
    as_expected,
    expected_items,
    line,
    outline,
    tree_items,
)
from tests.e2e.e2e_support import tree_drawn

pytestmark = pytest.mark.e2e

TREE = '[data-role="tree"]'
DOC = Path(__file__).resolve().parents[2] / "docs" / "accessibility.md"


def _doc_states() -> dict[str, str]:
    """docs/accessibility.md's table of a node in each state: state -> the node's line."""
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("| state | the node in Chromium's accessibility tree |") :]
    rows = {}
    for row in table.splitlines()[2:]:
        if not row.startswith("| "):
            break
        state, node = (cell.strip() for cell in row.strip("|").split("|"))
        rows[state] = node.strip("`")
    return rows


def _doc_outline() -> list[str]:
    """docs/accessibility.md's whole tree, as Chromium exposes it before any answer."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index("```text\ntree ") + len("```text\n")
    return text[start : text.index("```", start)].splitlines()


def _node(page: Any, path: str) -> Any:
    return page.locator(f'{TREE} .node[data-path="{path}"]')


def _open(page: Any, live_server: Any, name: str) -> None:
    page.goto(f"/exercises/{live_server.practice[name]}")
    tree_drawn(page)


def _item(page: Any, label: str) -> Item:
    """The node labelled `label` as Chromium exposes it (a node folded away is not there)."""
    found = [i for i in tree_items(page, "Game tree of exercise") if i.label == label]
    assert len(found) == 1, (label, found)
    return found[0]


def _exposed(page: Any, label: str, **want: Any) -> None:
    """Waits until Chromium's accessibility tree says of the node what `want` says (its role,
    name, level, expanded, parent, position, set_size), then checks it once more, whole."""

    def seen() -> dict[str, Any] | None:
        found = [i for i in tree_items(page, "Game tree of exercise") if i.label == label]
        return {key: getattr(found[0], key) for key in want} if len(found) == 1 else None

    for _ in range(100):  # as Playwright's expect retries: the page may still be changing
        if seen() == want:
            break
        page.wait_for_timeout(50)
    assert seen() == want, (label, _item(page, label))


def test_each_node_state_in_the_accessibility_tree(student, live_server) -> None:
    page = student
    _open(page, live_server, "aria")
    tree = page.get_by_role("tree", name="Game tree of exercise")
    expect(tree).to_have_attribute("aria-orientation", "horizontal")
    # The whole tree before any answer, as the docs show it.
    whole = outline(tree_items(page, "Game tree of exercise"))
    assert ['tree "Game tree of exercise N"', *("  " + row for row in whole)] == _doc_outline()
    seen = {}  # state -> the node's line, as docs/accessibility.md shows it
    # Normal: an internal node, open, on the second level, the first of three children of A.
    _exposed(
        page,
        "B",
        role="treeitem",
        name="B, MIN",
        level=2,
        expanded=True,
        parent="A",
        position=1,
        set_size=3,
    )
    seen["normal (internal)"] = line(_item(page, "B"))
    # With a value: a leaf says its value; it has no open state; the second child of B.
    _exposed(
        page,
        "F",
        role="treeitem",
        name="F, MAX, value 12",
        level=3,
        expanded=None,
        parent="B",
        position=2,
        set_size=3,
    )
    seen["with a value (a leaf)"] = line(_item(page, "F"))

    # Marked pruned, from the keyboard; the mark is announced in the polite status line.
    status = page.locator('[data-role="status"]')
    expect(status).to_have_attribute("aria-live", "polite")
    i = _node(page, "1.1")
    i.focus()
    page.keyboard.press("Enter")
    _exposed(page, "I", role="treeitem", name="I, MAX, value 4, marked pruned", level=3)
    seen["marked pruned"] = line(_item(page, "I"))
    expect(status).to_have_text("I marked pruned.")

    # The tree's letter keys act only on a node in hand: F and + elsewhere change nothing.
    size = page.locator(".tree-tools button").nth(1)
    before = size.text_content()
    box = page.get_by_label("Value of the root A")
    box.focus()
    page.keyboard.press("f")
    page.keyboard.press("+")
    expect(box).to_have_value("f+")  # typed, as in any text box
    box.fill("")
    _exposed(page, "C", name="C, MIN", expanded=True)
    expect(size).to_have_text(before or "")
    # The labels drawn are text, not pictures of it (the name says them in words besides).
    expect(_node(page, "1").locator("text.node-label")).to_have_text("C")

    # Folded: F folds C; its state and its children's absence are in Chromium's tree.
    c = _node(page, "1")
    c.focus()
    page.keyboard.press("f")
    _exposed(
        page,
        "C",
        role="treeitem",
        name="C, MIN, folded, press F to unfold",
        level=2,
        expanded=False,
    )
    seen["folded"] = line(_item(page, "C"))
    shown = [i.label for i in tree_items(page, "Game tree of exercise")]
    assert shown == ["A", "B", "E", "F", "G", "C", "D", "K", "L", "M"]
    page.keyboard.press("ArrowDown")  # opens it and goes to its first child
    expect(_node(page, "1.0")).to_be_focused()
    _exposed(page, "C", name="C, MIN", expanded=True)
    _exposed(page, "H", parent="C", position=1, set_size=3)

    # Wrong after grading: J, left unmarked, is pruned in the key.
    page.get_by_label("Value of the root A").fill("3")
    page.get_by_role("button", name="Submit").click()
    _exposed(page, "J", role="treeitem", name="J, MAX, value 6, wrong, pruned in the key", level=3)
    seen["wrong after grading"] = line(_item(page, "J"))
    _exposed(
        page,
        "I",
        role="treeitem",
        name="I, MAX, value 4, marked pruned, right, pruned in the key",
        level=3,
    )
    seen["right after grading"] = line(_item(page, "I"))
    # A replay step is announced: its caption is a polite live region that follows the step.
    caption = page.locator('[data-replay="caption"]')
    expect(caption).to_have_attribute("aria-live", "polite")
    expect(caption).to_contain_text("Start at the root A")
    page.get_by_role("button", name="Step forward").click()
    expect(caption).to_contain_text("Enter B")
    assert seen == _doc_states()


@pytest.mark.parametrize("name", [*AX_TREES, "chance"])
def test_every_kind_s_tree_nests_in_chromium_s_accessibility_tree(
    student, live_server, name
) -> None:
    """Each kind of the registry, and a chance tree: every node a treeitem, depth first, nested
    in its parent, with its level, its place among its siblings and, above the leaves, its open
    state, as Chromium exposes them; the markup's aria-posinset and aria-setsize (which the
    protocol does not report) say the same place."""
    page = student
    _open(page, live_server, f"ax-{name}")
    tree = AX_CHANCE if name == "chance" else Tree.from_nested(AX_TREES[name])
    want = expected_items(tree)
    got = tree_items(page, "Game tree of exercise")
    assert as_expected(got) == want
    # Each name starts with the node's label and its player.
    label_of = tree.labels()
    path_of = {label: path for path, label in label_of.items()}
    for item in got:
        player = tree.player(path_of[item.label])
        assert item.name.startswith(f"{item.label}, {player.upper().replace('CHANCE', 'chance')}")
    marked = page.evaluate(
        """() => [...document.querySelectorAll('[data-role="tree"] .node')].map((g) =>
             [g.dataset.label, Number(g.getAttribute('aria-posinset')),
              Number(g.getAttribute('aria-setsize'))])"""
    )
    assert sorted(map(tuple, marked)) == sorted((w[0], w[5], w[6]) for w in want)
    if name == "best-order":
        # Reordered by its buttons, the children are read in the order shown.
        page.get_by_role("button", name="Move C left").click()
        moved = [i for i in tree_items(page, "Game tree of exercise") if i.parent == "A"]
        assert [(i.label, i.position) for i in moved] == [("C", 1), ("B", 2), ("D", 3)]


def test_keyboard_alone_skip_link_mark_submit_and_the_result(student, live_server) -> None:
    page = student
    _open(page, live_server, "aria-keys")
    # The first Tab reaches the skip link; it lands on the tree's node in hand, the root.
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to the tree")
    expect(skip).to_be_focused()
    expect(skip).to_be_visible()
    page.keyboard.press("Enter")
    expect(_node(page, "")).to_be_focused()
    # The tree's keys: down to B, right to C, down to H, right to I; End the last node shown.
    page.keyboard.press("End")
    expect(_node(page, "2.2")).to_be_focused()
    page.keyboard.press("Home")
    for key, path in [
        ("ArrowDown", "0"),
        ("ArrowRight", "1"),
        ("ArrowDown", "1.0"),
        ("ArrowRight", "1.1"),
    ]:
        page.keyboard.press(key)
        expect(_node(page, path)).to_be_focused()
        expect(_node(page, path)).to_have_attribute("tabindex", "0")
    page.keyboard.press("Enter")  # I marked pruned
    page.keyboard.press("ArrowRight")
    page.keyboard.press(" ")  # J marked pruned
    expect(page.locator('[data-role="status"]')).to_have_text("J marked pruned.")
    page.keyboard.press("ArrowUp")
    expect(_node(page, "1")).to_be_focused()
    # Only one node is in the Tab order: Tab leaves the tree for the next control.
    expect(page.locator(f'{TREE} .node[tabindex="0"]')).to_have_count(1)

    # To the root's box and Submit by Tab alone.
    value = page.get_by_label("Value of the root A")
    for _ in range(20):
        page.keyboard.press("Tab")
        if value.evaluate("e => e === document.activeElement"):
            break
    expect(value).to_be_focused()
    page.keyboard.type("3")
    submit = page.get_by_role("button", name="Submit")
    for _ in range(20):
        page.keyboard.press("Tab")
        if submit.evaluate("e => e === document.activeElement"):
            break
    expect(submit).to_be_focused()
    page.keyboard.press("Enter")
    # Focus is on the result, a polite live region that holds the score.
    result = page.locator('[data-role="result"]')
    expect(result).to_be_focused()
    expect(result).to_have_attribute("aria-live", "polite")
    expect(result).to_match_aria_snapshot('- region "Result":\n  - heading "Result" [level=2]')
    expect(page.locator('[data-role="score"]')).to_contain_text("Score: 1.00")


# The focused element's ring, as drawn: its outline, or a tree node's own ring shape.
RING = """() => {
  const e = document.activeElement;
  if (e === document.body) return null;  // past the last control
  const ring = e.querySelector?.(':scope > .focus-ring');
  if (ring) {
    const s = getComputedStyle(ring);
    return {what: e.getAttribute('aria-label'), width: parseFloat(s.strokeWidth), on: s.stroke !== 'none'};
  }
  const s = getComputedStyle(e);
  const what = e.getAttribute('aria-label') || e.textContent.trim() || e.outerHTML;
  return {what: what.slice(0, 60), width: parseFloat(s.outlineWidth),
          on: s.outlineStyle !== 'none'};
}"""


def test_every_control_shows_a_focus_ring(student, live_server) -> None:
    page = student
    _open(page, live_server, "aria-keys")
    seen: set[str] = set()
    for _ in range(40):
        page.keyboard.press("Tab")
        ring = page.evaluate(RING)
        if ring is None:
            break
        if ring["what"] in seen:
            continue
        seen.add(ring["what"])
        assert ring["on"] and ring["width"] >= 2, ring
    assert any("Skip to the tree" in what for what in seen), seen
    assert any(what.startswith("A, MAX") for what in seen), sorted(seen)
