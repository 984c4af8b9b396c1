"""Contrast as drawn (WCAG 2.1 1.4.11 and 1.4.3), computed from the rendered page in Chromium,
not by axe: every outline, edge, mark and focus ring reaches 3:1 against the row band (or the
drawing's background) behind it, every text 4.5:1 against what it is painted on, in every state
a tree shows: normal, focused, marked, shaded, graded right and wrong (hatched), and each step of
the replay (current, visited, pruned, chosen), on a MAX/MIN tree and on a chance tree; and every
keyboard focus ring of the page's controls 3:1 against the background around it.

The colours and their ratios, before and after, are tabled in docs/accessibility.md.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.contrast_support import FOCUS_RING, failures, measure, ratio
from tests.e2e.e2e_support import tree_drawn

pytestmark = pytest.mark.e2e

TREE = '[data-role="tree"]'


def _node(page: Any, path: str) -> Any:
    return page.locator(f'{TREE} .node[data-path="{path}"]')


def _every_state(page: Any, marks: list[str], root: str) -> list[dict[str, Any]]:
    """The pairs of a prune exercise: drawn, focused, marked, graded, and at each replay step."""
    pairs = measure(page)
    _node(page, "").focus()
    pairs += measure(page)
    for path in marks:
        _node(page, path).focus()
        page.keyboard.press("Enter")
        expect(_node(page, path)).to_have_class(re.compile(r"\bmarked\b"))
    pairs += measure(page)
    page.get_by_label("Value of the root A").fill(root)
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="score"]')).to_be_visible()
    pairs += measure(page)
    forward = page.get_by_role("button", name="Step forward")
    counter = page.locator('[data-replay="counter"]')
    for _ in range(80):
        if forward.is_disabled():
            break
        before = counter.text_content()
        forward.click()
        expect(counter).not_to_have_text(before or "")
        pairs += measure(page)
    return pairs


def _states(pairs: list[dict[str, Any]]) -> set[str]:
    return {word for p in pairs for word in p["state"].split()}


def test_a_max_min_tree_in_every_state(student, live_server) -> None:
    page = student
    page.goto(f"/exercises/{live_server.practice['contrast']}")
    tree_drawn(page)
    # I marked pruned (right), C marked (wrong: its subtree shaded), the root's value wrong.
    pairs = _every_state(page, ["1.1", "1"], "8")
    states = _states(pairs)
    for wanted in (
        "normal",
        "marked",
        "shaded",
        "wrong",
        "first-wrong",
        "right",
        "current",
        "visited",
        "pruned",
        "chosen",
    ):
        assert wanted in states, (wanted, sorted(states))
    whats = {p["what"] for p in pairs}
    assert {
        "node outline",
        "edge",
        "focus ring",
        "hatch lines",
        "mark pill outline",
        "leaf value",
        "note",
        "row label",
        "legend swatch",
    } <= whats, whats
    assert {p["bg"] for p in pairs if p["what"] == "edge"} >= {
        "rgb(239, 246, 255)",  # the MAX row
        "rgb(255, 251, 235)",  # the MIN row
    }
    bad = failures(pairs)
    assert not bad, "\n".join(bad)


def test_a_chance_tree_in_every_state(student, live_server) -> None:
    page = student
    page.goto(f"/exercises/{live_server.practice['contrast-chance']}")
    tree_drawn(page)
    # G, which Star1 prunes, marked; the root's value wrong.
    pairs = _every_state(page, ["1.1"], "4")
    states = _states(pairs)
    for wanted in ("normal", "marked", "wrong", "current", "pruned"):
        assert wanted in states, (wanted, sorted(states))
    assert "probability" in {p["what"] for p in pairs}
    assert "chance" in {p["player"] for p in pairs}
    bad = failures(pairs)
    assert not bad, "\n".join(bad)


def test_answer_boxes_and_their_results(student, live_server) -> None:
    page = student
    page.goto(f"/exercises/{live_server.practice['contrast-values']}")
    tree_drawn(page)
    for label in ("A", "B", "C", "D"):
        page.get_by_label(f"Value of {label}", exact=True).fill("1")
    pairs = measure(page)
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="score"]')).to_be_visible()
    pairs += measure(page)
    assert "answer box border" in {p["what"] for p in pairs}
    bad = failures(pairs)
    assert not bad, "\n".join(bad)


def _rings(page: Any, stops: int) -> list[str]:
    wrong = []
    seen = set()
    for _ in range(stops):
        page.keyboard.press("Tab")
        ring = page.evaluate(FOCUS_RING)
        if ring is None:
            break
        if ring.get("tree") or ring["what"] in seen:
            continue
        seen.add(ring["what"])
        got = ratio(ring["fg"], ring["bg"])
        if not ring["on"] or got < 3:
            wrong.append(f"{ring['what']}: {ring['fg']} on {ring['bg']} {got:.2f}:1")
    assert len(seen) >= 5, seen
    return wrong


def test_every_focus_ring_stands_out(student, live_server) -> None:
    page = student
    page.goto("/")
    bad = _rings(page, 25)
    page.goto(f"/exercises/{live_server.practice['contrast-values']}")
    tree_drawn(page)
    bad += _rings(page, 40)
    assert not bad, "\n".join(bad)
