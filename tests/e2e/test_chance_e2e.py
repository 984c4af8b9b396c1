"""Chance trees in a real headless Chromium: an expectimax exercise answered with a fraction and
a rounded decimal and graded by the answer rule, a wrong answer explained at the chance node, the
replay stepping through a chance node (each child's weighted contribution, the running sum, the
interval Star1 keeps and its cutoff), and a depth-4 expectiminimax tree drawn at 1280 and 390 px
(chance nodes as circles, each probability above its child, nothing overlapping, text no smaller
than 10 px), a depth-5 one still read on a phone.

The values are worked by hand (tests/e2e/chance_support.py gives the trees with their sums):
AVERAGES: B = 1/3·4 + 2/3·5 = 14/3 (4.67), C = 1/2·0 + 1/2·9 = 9/2, A = max(14/3, 9/2) = 14/3;
STAR1_CUT: B = 1/2·6 + 1/2·4 = 5 sets alpha = 5 at A; C's first child F = 0 leaves C's value in
[0 + 1/2·0, 0 + 1/2·10] = [0, 5], at or below alpha: Star1 never evaluates G.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from grader.gametree import Tree
from tests.e2e.e2e_support import LiveServer, open_page, signed_in, tree_drawn
from tests.e2e.test_trees_fit import HEIGHTS, _fit_and_check

pytestmark = pytest.mark.e2e

# Drawn things that meet: a probability and another probability, a node's shape, a leaf's value.
PROBABILITIES = """(host) => {
  const drawn = (selector) => [...host.querySelectorAll(selector)]
    .filter(e => e.getClientRects().length)
    .map(e => [e.closest('[data-path]').dataset.path, e.getBoundingClientRect()]);
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const probs = drawn('.edge-prob');
  const others = [...drawn('.node .shape').map(([p, b]) => [`node ${p}`, b]),
    ...drawn('.leaf-value').map(([p, b]) => [`value ${p}`, b])];
  const out = [];
  probs.forEach(([p, a], i) => {
    probs.slice(i + 1).forEach(([q, b]) => { if (meet(a, b)) out.push(`${p} on ${q}`); });
    for (const [name, b] of others) if (meet(a, b)) out.push(`${p} on ${name}`);
  });
  const size = Math.min(...[...host.querySelectorAll('.edge-prob')]
    .filter(e => e.getClientRects().length)
    .map(e => e.getScreenCTM().a * parseFloat(getComputedStyle(e).fontSize)));
  return [probs.length, out, size];
}"""


def _open(page: Any, live_server: LiveServer, name: str) -> Any:
    page.goto(f"/exercises/{live_server.practice[name]}")
    tree_drawn(page)
    return page.locator('[data-role="tree"]')


def _values(page: Any, answers: dict[str, str]) -> None:
    for label, text in answers.items():
        page.get_by_label(f"Value of {label}", exact=True).fill(text)


def test_a_chance_exercise_is_answered_with_fractions_and_explained(student, live_server):
    page = student
    tree = _open(page, live_server, "chance-values")
    # Chance nodes are circles; each probability is written above its child.
    expect(tree.locator(".node.chance circle.shape")).to_have_count(2)
    expect(tree.locator(".node.max polygon.shape")).to_have_count(1)
    expect(tree.locator(".edge-prob")).to_have_text(["1/3", "2/3", "1/2", "1/2"])
    expect(tree.locator('.node[data-label="D"]')).to_have_attribute(
        "aria-label", re.compile("probability 1/3 from B")
    )
    expect(page.locator('[data-role="hint"]')).to_contain_text("type a fraction (14/3)")
    # A wrong answer: B the least of its children, as if MIN; A rounded to one place.
    _values(page, {"A": "4.7", "B": "4", "C": "4.5"})
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="score"]')).to_contain_text("0.50")
    wrong = page.locator('[data-role="first-wrong"]')
    expect(wrong).to_contain_text("First wrong step, at B")
    expect(wrong).to_contain_text(
        "You gave B 4, the least value its children returned, as a MIN node takes it; B is a "
        "chance node: the weighted average of its children, 1/3 × 4 + 2/3 × 5: 4.67."
    )
    # The key's values beside the wrong boxes: 4.67 shown, 14/3 on hover.
    key_b = page.locator(".node-input.wrong .expected").first
    expect(key_b).to_have_text("→ 4.67")
    expect(key_b).to_have_attribute("title", "exactly 14/3")
    # The exact fraction, the decimal to 2 places and a half: all right by the rule.
    _values(page, {"A": "14/3", "B": "4.67", "C": "9/2"})
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="score"]')).to_contain_text("1.00 (100%)")
    expect(page.locator(".node-input.wrong")).to_have_count(0)
    expect(page.locator(".node-input.right")).to_have_count(3)


def _step_to(page: Any, k: int) -> Any:
    page.locator('[data-replay="slider"]').fill(str(k))
    expect(page.locator('[data-replay="counter"]')).to_have_text(re.compile(rf"^Step {k} of"))
    return page.locator('[data-replay="caption"]')


def test_the_replay_steps_through_chance_nodes_and_a_star1_cutoff(student, live_server):
    page = student
    _open(page, live_server, "chance-prune")
    # The pruned leaf marked and the root's value: the key, worked by hand.
    page.locator('[data-role="tree"] .node[data-label="G"]').click()
    page.get_by_label("Value of the root A").fill("5")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="score"]')).to_contain_text("1.00 (100%)")
    replay = page.locator('[data-replay="tree"]')
    expect(replay.locator(".node").first).to_be_visible()
    captions = []
    counter = page.locator('[data-replay="counter"]')
    last = int(re.search(r"of (\d+)", counter.inner_text()).group(1))
    for k in range(last + 1):
        captions.append(_step_to(page, k).inner_text())
    # B's first child D (6, probability 1/2): its weighted contribution, the running sum, and
    # the interval B's value lies in, [3 + 1/2·0, 3 + 1/2·10].
    assert (
        "B (chance): D returned 6, weighted 1/2 × 6 = 3; the running sum S = 3 with "
        "probability P = 1/2 seen; B's value lies in [3, 8]." in captions
    ), captions
    assert (
        "B (chance): E returned 4, weighted 1/2 × 4 = 2; the running sum S = 5 with "
        "probability P = 1 seen; B's value lies in [5, 5]." in captions
    ), captions
    # F's window by Ballard's formulas: A = (5 − 0 − 1/2·10) / (1/2) = 0, B = +∞ kept to U = 10.
    window = next(c for c in captions if c.startswith("C (chance): Star1 searches F"))
    assert "with α = 0, β = 10" in window, window
    cut = next(i for i, c in enumerate(captions) if "Star1 cuts" in c)
    assert captions[cut] == (
        "C (chance): its value lies in [0, 5], at or below α = 5: Star1 cuts, G is never evaluated."
    ), captions[cut]
    _step_to(page, cut)
    expect(replay.locator('.node[data-label="G"]')).to_contain_class("pruned")
    # The chance node's note keeps the running sum until it returns.
    expect(replay.locator('.note[data-path="1"]')).to_contain_text("Σ=0 of 1/2")
    _step_to(page, last)
    expect(page.locator('[data-replay="caption"]')).to_contain_text("Best line: A → B.")
    expect(replay.locator('.note[data-path="1"]')).to_contain_text("v=5")


@pytest.mark.parametrize("width", [1280, 390])
def test_an_expectiminimax_tree_is_drawn_readably(
    browser, live_server, student_cookies, screenshots, width
):
    with open_page(browser, live_server.url, height=HEIGHTS[width], width=width) as page:
        signed_in(page, student_cookies)
        host = _open(page, live_server, "chance-4")
        expect(host.locator(".tree-rows .row-chance").first).to_have_text("CHANCE")
        seen = _fit_and_check(page, host, screenshots / f"expectiminimax-{width}.png")
        count, overlaps, size = host.evaluate(PROBABILITIES)
        assert count > 0 and overlaps == [] and size >= 10 - 0.01, (count, overlaps, size)
        if width == 1280:
            # The whole depth-4 tree, nothing folded: a probability above every chance child.
            data = page.evaluate("JSON.parse(document.getElementById('exercise-data').textContent)")
            tree = Tree.from_nested(data["tree"], data["players"])
            edges = sum(len(tree.probabilities(p) or ()) for p, _ in tree.walk())
            assert seen["hidden"] == 0 and count == edges, (seen, count, edges)
        # The replay of the same tree at its end, notes clear of one another.
        page.get_by_role("button", name="Watch the search").click()
        page.get_by_role("button", name="End").click()
        page.locator('[data-role="replay"]').evaluate(
            "(box) => box.scrollIntoView({block: 'start'})"
        )
        page.screenshot(path=str(screenshots / f"expectiminimax-replay-{width}.png"))
        # A depth-5 expectiminimax tree (120 leaves): fitted, folded where it must be.
        host = _open(page, live_server, "chance-5")
        _fit_and_check(page, host)
        count, overlaps, size = host.evaluate(PROBABILITIES)
        assert count > 0 and overlaps == [] and size >= 10 - 0.01, (count, overlaps, size)


def test_screenshots_are_in_the_docs() -> None:
    """The docs show the pictures this file takes (scripts/screenshots.sh copies them)."""
    docs = Path(__file__).resolve().parents[2] / "docs"
    text = (docs / "game-trees.md").read_text(encoding="utf-8")
    for width in (1280, 390):
        for name in (f"expectiminimax-{width}.png", f"expectiminimax-replay-{width}.png"):
            assert (docs / "screenshots" / name).is_file(), name
            assert f"screenshots/{name}" in text, name
