"""The exercise page in a real headless Chromium against a real server.

The answers clicked here come from the reference solver run on the tree the page shows, never
from constants, so the test follows whatever tree the generator gives the student.
"""

from __future__ import annotations

import random
import re
from itertools import pairwise
from typing import Any

import pytest
from playwright.sync_api import expect

from grader.gametree import KINDS, Conventions, GeneratorParams, Tree, generate, grade, solve
from tests.e2e.e2e_support import replay_drawn, tree_drawn

pytestmark = pytest.mark.e2e


def _exercise(page: Any) -> dict[str, Any]:
    return page.evaluate("JSON.parse(document.getElementById('exercise-data').textContent)")


def _reference(exercise: dict[str, Any]) -> tuple[Tree, Conventions]:
    tree = Tree.from_nested(exercise["tree"], exercise["players"])
    return tree, Conventions.from_dict(exercise["conventions"])


def _node(page: Any, path: str, where: str = "tree") -> Any:
    return (
        page.locator(f'[data-role="{where}"] .node[data-path="{path}"]')
        if where == "tree"
        else page.locator(f'[data-replay="tree"] .node[data-path="{path}"]')
    )


def _caption(page: Any) -> Any:
    return page.locator('[data-replay="caption"]')


def _counter(page: Any) -> Any:
    return page.locator('[data-replay="counter"]')


def _starts(text: str) -> re.Pattern[str]:
    """The text starts with this (Playwright matches a pattern anywhere in the text)."""
    return re.compile("^" + re.escape(text))


FULL_MARKS = re.compile(r"Score:\s*1\.00")


def test_prune_exercise_score_diagnosis_and_replay(student, live_server) -> None:
    page = student
    # Open the assigned exercise from the dashboard, as a student does.
    page.get_by_role("link", name="Mark the pruned nodes").click()
    tree_drawn(page)
    exercise = _exercise(page)
    assert exercise["kind"] == "prune"
    tree, conventions = _reference(exercise)
    result = solve(tree, conventions)
    assert result.pruned, "the preset asks for cutoffs"

    # A wrong first attempt on the graded variant: a score, but neither key nor replay yet.
    page.get_by_label("Value of the root A").fill(str(result.value + 1))
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="no-key"]')).to_be_visible()
    expect(page.locator('[data-role="score"]')).not_to_have_text(FULL_MARKS)
    expect(page.locator('[data-role="replay"]')).to_be_hidden()
    expect(page.locator('[data-role="tree"] .node.right')).to_have_count(0)
    expect(page.locator('[data-role="tree"] .node.first-wrong')).to_have_count(1)

    for path in result.pruned:
        _node(page, path).click()
        expect(_node(page, path)).to_contain_class("marked")
    # Marking shades the whole subtree, and the node says so to a screen reader.
    for path in result.pruned_all:
        expect(_node(page, path)).to_contain_class("shaded")
    expect(_node(page, result.pruned[0])).to_have_attribute(
        "aria-label", re.compile("marked pruned")
    )

    page.get_by_label("Value of the root A").fill(str(result.value))
    page.get_by_role("button", name="Submit").click()
    score = page.locator('[data-role="score"]')
    expect(score).to_contain_text("Score: 1.00")  # the first attempt's result is replaced
    expect(page.locator('[data-role="attempts-used"]')).to_have_text("2")
    expect(page.locator('[data-role="no-key"]')).to_have_count(0)
    # Full marks on a slot that allows the replay: the key colours every node right.
    replay_drawn(page)
    expect(page.locator('[data-role="tree"] .node.wrong')).to_have_count(0)
    expect(page.locator('[data-role="tree"] .node.right')).to_have_count(len(tree.labels()))

    # A second variant, answered with no pruning at all: the misconception is named.
    graded_url = page.url
    page.get_by_role("button", name="Another tree like this").click()
    expect(page).not_to_have_url(graded_url)
    expect(page).to_have_url(re.compile(r"/exercises/\d+"))
    tree_drawn(page)
    variant = _exercise(page)
    assert variant["id"] != exercise["id"] and variant["practice"]
    tree, conventions = _reference(variant)
    value = solve(tree, conventions).value
    expected = grade("prune", tree, conventions, {"pruned": [], "value": value})
    assert expected.diagnosis == "no-pruning"

    page.get_by_label("Value of the root A").fill(str(value))
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="diagnosis"]')).to_contain_text(expected.diagnosis_text)
    expect(page.locator('[data-role="first-wrong"]')).to_contain_text(
        expected.first_wrong["message"]
    )
    expect(_node(page, expected.first_wrong["path"])).to_contain_class("first-wrong")
    # The key is shown on a practice variant: the missed pruned nodes are wrong, hatched.
    key = KINDS["prune"].key(tree, conventions)
    for path in key["pruned"]:
        expect(_node(page, path)).to_contain_class("wrong")

    # The replay: step forward and back; the caption and the node states follow.
    replay = page.locator('[data-role="replay"]')
    expect(replay).to_be_visible()
    replay.scroll_into_view_if_needed()
    expect(_counter(page)).to_have_text(_starts("Step 0 of"))
    expect(_caption(page)).to_contain_text("Start at the root A")
    start = _caption(page).inner_text()
    expect(_node(page, "", "replay")).to_contain_class("current")
    forward = page.get_by_role("button", name="Step forward")
    forward.click()
    expect(_caption(page)).to_contain_text("Enter B")
    entered = _caption(page).inner_text()
    assert entered != start
    expect(_node(page, "0", "replay")).to_contain_class("current")
    expect(_node(page, "", "replay")).not_to_contain_class("current")
    forward.click()
    forward.click()
    expect(_counter(page)).to_have_text(_starts("Step 3 of"))
    page.get_by_role("button", name="Step back").click()
    page.get_by_role("button", name="Step back").click()
    expect(_counter(page)).to_have_text(_starts("Step 1 of"))
    expect(_caption(page)).to_have_text(entered)
    # Beside each node: alpha and beta with the step at which they were set.
    note = page.locator('[data-replay="tree"] .note[data-path=""]')
    expect(note).to_contain_text("α=−∞ (0)")
    expect(note).to_contain_text("β=+∞ (0)")

    # Jump to the first wrong step: the replay explains the cutoff the answer missed.
    page.get_by_role("button", name="Your first wrong step").click()
    step = expected.first_wrong["step"]
    expect(_counter(page)).to_have_text(_starts(f"Step {step} of"))
    expect(_caption(page)).to_contain_text("cutoff")
    cut = solve(tree, conventions).trace[step]
    for pruned in cut.pruned:
        expect(_node(page, pruned, "replay")).to_contain_class("pruned")

    # The end: the chosen line from the root, in its own colour.
    page.get_by_role("button", name="End").click()
    expect(_caption(page)).to_contain_text("Best line: A")
    expect(_node(page, "", "replay")).to_contain_class("chosen")

    # Keyboard: arrows move along the tree; Enter marks, and the mark is announced.
    page.locator('[data-role="tree"] .node[tabindex="0"]').focus()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowDown")
    expect(_node(page, "0")).to_be_focused()
    page.keyboard.press("ArrowRight")
    expect(_node(page, "1")).to_be_focused()
    page.keyboard.press("Enter")
    expect(_node(page, "1")).to_contain_class("marked")
    page.keyboard.press(" ")
    expect(_node(page, "1")).not_to_contain_class("marked")

    # A reload shows the latest attempt again: its answer, its result and the replay.
    page.reload()
    expect(page.locator('[data-role="diagnosis"]')).to_be_visible()
    expect(page.get_by_label("Value of the root A")).to_have_value(str(value))
    expect(page.locator('[data-role="tree"] .node.marked')).to_have_count(0)
    replay_drawn(page)


def _open_practice(page: Any, live_server: Any, name: str) -> dict[str, Any]:
    page.goto(f"/exercises/{live_server.practice[name]}")
    tree_drawn(page)
    return _exercise(page)


@pytest.mark.parametrize("name", ["three-levels", "six-levels"])
def test_readable_at_three_and_six_levels(student, live_server, screenshots, name) -> None:
    page = student
    exercise = _open_practice(page, live_server, name)
    tree, conventions = _reference(exercise)
    result = solve(tree, conventions)
    assert len({p.count(".") for p in tree.leaves()}) == 1
    # Mark one pruned subtree (and miss the rest) so the result colours show.
    _node(page, result.pruned[0]).click()
    page.get_by_label("Value of the root A").fill(str(result.value))
    _node(page, "").focus()
    page.keyboard.press("Home")  # focuses the root and scrolls it to the middle
    page.screenshot(path=str(screenshots / f"{name}-answer.png"), full_page=True)
    page.get_by_role("button", name="Submit").click()
    replay_drawn(page)
    slider = page.locator('[data-replay="slider"]')
    middle = result.cutoffs[-1].step
    slider.fill(str(middle))
    expect(_counter(page)).to_have_text(_starts(f"Step {middle} of"))
    page.screenshot(path=str(screenshots / f"{name}-result.png"), full_page=True)
    # Text in the tree stays at a readable size, whatever the depth.
    smallest = page.evaluate(
        "Math.min(...[...document.querySelectorAll('svg text')]"
        ".filter(t => t.textContent.trim())"
        ".map(t => parseFloat(getComputedStyle(t).fontSize)))"
    )
    assert smallest >= 11
    # Nodes of one row never overlap.
    boxes = page.evaluate(
        """[...document.querySelectorAll('[data-role="tree"] .node')].map(n => {
             const b = n.querySelector('.shape').getBBox();
             const t = n.transform.baseVal.consolidate().matrix;
             return [t.e + b.x, t.f, b.width]; })"""
    )
    rows: dict[float, list[tuple[float, float]]] = {}
    for x, y, width in boxes:
        rows.setdefault(y, []).append((x, width))
    for row in rows.values():
        row.sort()
        for (x1, w1), (x2, _) in pairwise(row):
            assert x1 + w1 <= x2


def test_bounds_inputs_beside_nodes(student, live_server) -> None:
    page = student
    exercise = _open_practice(page, live_server, "bounds")
    tree, conventions = _reference(exercise)
    key = KINDS["bounds"].key(tree, conventions)["bounds"]
    labels = tree.labels()
    # Only alpha at the root: the page asks for both before sending anything.
    page.get_by_label("Alpha at A").fill("3")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="status"]')).to_contain_text("Give both alpha and beta at A")
    # Only the root, right: a partial score, the wrong boxes marked with the key's values.
    page.get_by_label("Beta at A").fill("inf")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="score"]')).to_be_visible()
    expect(page.locator('[data-role="score"]')).not_to_have_text(FULL_MARKS)
    b = page.locator('.node-input.bounds:has([aria-label="Alpha at B"])')
    expect(b).to_contain_class("wrong")
    expect(b).to_contain_text("→")
    for path, (alpha, beta) in key.items():
        page.get_by_label(f"Alpha at {labels[path]}").fill(str(alpha))
        page.get_by_label(f"Beta at {labels[path]}").fill(str(beta))
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="score"]')).to_contain_text("Score: 1.00")
    expect(page.locator('[data-role="tree"] .node.wrong')).to_have_count(0)
    # The second attempt's replay replaced the first: one click is one step.
    page.get_by_role("button", name="Step forward").click()
    expect(_counter(page)).to_have_text(_starts("Step 1 of"))


def test_leaf_order_by_clicking_leaves(student, live_server) -> None:
    page = student
    exercise = _open_practice(page, live_server, "leaf-order")
    tree, conventions = _reference(exercise)
    order = solve(tree, conventions).leaf_order
    extra = next(p for p in tree.leaves() if p not in order)
    for path in order:
        _node(page, path).click()
    _node(page, extra).click()
    expect(page.locator("ol.leaf-order li")).to_have_count(len(order) + 1)
    page.get_by_role("button", name="Undo").click()
    expect(page.locator("ol.leaf-order li")).to_have_count(len(order))
    # Each leaf's number sits centred under it, not in the gap before the next leaf.
    for number, path in enumerate(order, start=1):
        leaf = _node(page, path)
        expect(leaf.locator(".mark")).to_have_text(str(number))
        shape = leaf.locator(".shape").bounding_box()
        mark = leaf.locator(".mark").bounding_box()
        middle = shape["x"] + shape["width"] / 2
        assert abs(mark["x"] + mark["width"] / 2 - middle) < 1.5, path
        assert mark["y"] >= shape["y"] + shape["height"], path
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="score"]')).to_contain_text("Score: 1.00")


def test_best_order_with_buttons(student, live_server) -> None:
    page = student
    exercise = _open_practice(page, live_server, "best-order")
    tree, conventions = _reference(exercise)
    best = KINDS["best-order"].key(tree, conventions)
    labels = tree.labels()

    # Dragging B past C swaps them; dragging it back restores the order.
    def x_of(path: str) -> float:
        box = _node(page, path).bounding_box()
        return box["x"] + box["width"] / 2

    def drag(path: str, to_x: float) -> None:
        box = _node(page, path).bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(to_x, box["y"] + box["height"] / 2, steps=8)
        page.mouse.up()

    # The count of the order as it stands, from the reference solver: live while reordering.
    count = page.locator('[data-role="leaf-count"]')

    def counted(order: dict[str, list[int]]) -> str:
        leaves = len(solve(tree.reordered(order), conventions).leaf_order)
        return f"As ordered now, alpha-beta evaluates {leaves} of the {len(tree.leaves())} leaves."

    expect(count).to_have_text(counted({}))
    left, right = x_of("0"), x_of("1")
    drag("0", right + 20)
    assert x_of("0") > x_of("1")
    expect(_node(page, "0")).to_have_attribute("aria-label", re.compile("child 2 of 2"))
    expect(count).to_have_text(counted({"": [1, 0]}))
    # Graded, this order is marked where it goes wrong; reordering takes those marks away.
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="score"]')).not_to_have_text(FULL_MARKS)
    expect(page.locator('[data-role="tree"] .node.first-wrong')).to_have_count(1)
    marked = page.locator('[data-role="tree"] .node .mark:text-matches(".+")')
    expect(marked).to_have_count(1)
    drag("0", x_of("1") - 20)
    assert abs(x_of("0") - left) < 1 and abs(x_of("1") - right) < 1
    expect(page.locator('[data-role="tree"] .node.first-wrong')).to_have_count(0)
    expect(marked).to_have_count(0)
    expect(count).to_have_text(counted({}))
    # Move each child into the optimum's place with the buttons, deepest first.
    for path, order in sorted(best["order"].items(), key=lambda kv: -len(kv[0])):
        for position, old in enumerate(order):
            child = f"{path}.{old}" if path else str(old)
            current = page.evaluate(
                "([parent]) => [...document.querySelectorAll('[data-role=\"tree\"] .node')]"
                ".filter(n => n.dataset.path.split('.').slice(0, -1).join('.') === parent"
                " && n.dataset.path !== '')"
                ".sort((a, b) => a.transform.baseVal.consolidate().matrix.e"
                " - b.transform.baseVal.consolidate().matrix.e).map(n => n.dataset.path)",
                [path],
            )
            for _ in range(current.index(child) - position):
                page.get_by_role("button", name=f"Move {labels[child]} left").click()
    expect(count).to_have_text(counted(best["order"]))
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="score"]')).to_contain_text("Score: 1.00")
    # The replay: the student's order beside the best one, both on the tree as drawn.
    orders = page.locator('[data-replay="orders"] button')
    expect(orders).to_have_count(2)
    expect(orders.nth(0)).to_have_attribute("aria-pressed", "true")
    expect(orders.nth(1)).to_contain_text(f"({best['leaves']} leaves)")
    orders.nth(1).click()
    expect(orders.nth(1)).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name="End").click()
    last = len(solve(tree.reordered(best["order"]), conventions).trace) - 1
    expect(_counter(page)).to_have_text(_starts(f"Step {last} of {last}"))


# The page's own count (search-replay.js), for trees and orders given as data.
COUNTS = """async (cases) => {
  const { buildTree, childPath } = await import('/static/js/tree-model.js');
  const { leavesEvaluated } = await import('/static/js/search-replay.js');
  return cases.map(({ nested, players, order, conventions }) => {
    const tree = buildTree(nested, players);
    const children = (p) => (order[p] ? order[p].map((i) => childPath(p, i)) : tree.nodes.get(p).children);
    return leavesEvaluated(tree, children, conventions);
  });
}"""


def test_the_live_leaf_count_agrees_with_the_solver(student, live_server) -> None:
    """Best-order's live count is the page's own search: on random trees, orders and conventions
    it counts the leaves the reference solver evaluates on the reordered tree."""
    page = student
    _open_practice(page, live_server, "best-order")
    rng = random.Random(30)
    cases, expected = [], []
    for i in range(80):
        tree = generate(
            GeneratorParams(depth=rng.choice([2, 3, 4]), branching=(1, 3), values=(-5, 5)),
            f"count-{i}",
        )
        if rng.random() < 0.3:
            tree = Tree.from_nested(tree.to_nested(), ["min", "max"])
        ties = rng.choice(["prune", "explore"])
        conventions = Conventions(
            ties=ties,
            values="soft" if ties == "explore" else rng.choice(["soft", "hard"]),
            order=rng.choice(["ltr", "rtl"]),
        )
        order = {
            path: rng.sample(range(len(node.children)), len(node.children))
            for path, node in tree.walk()
            if not node.is_leaf and rng.random() < 0.6
        }
        cases.append(
            {
                "nested": tree.to_nested(),
                "players": list(tree.players),
                "order": order,
                "conventions": conventions.to_dict(),
            }
        )
        expected.append(len(solve(tree.reordered(order), conventions).leaf_order))
    assert len(set(expected)) > 5  # the cases differ
    assert page.evaluate(COUNTS, cases) == expected


def test_the_replay_comes_once_for_every_attempt_after_it(student, live_server) -> None:
    """An attempt's response carries the key, not the replay (the exercise's, the same for every
    attempt): the page reads it once, from the first attempt that earns it, and replays it after
    every attempt since."""
    page = student
    reads: list[str] = []
    page.on(
        "request",
        lambda r: reads.append(r.url) if r.method == "GET" and "/api/attempts/" in r.url else None,
    )
    exercise = _open_practice(page, live_server, "replay-once")  # no attempt yet
    tree, conventions = _reference(exercise)
    result = solve(tree, conventions)
    for value in (result.value + 1, result.value):
        page.get_by_label("Value of the root A").fill(str(value))
        with page.expect_response(lambda r: r.request.method == "POST") as posted:
            page.get_by_role("button", name="Submit").click()
        shown = posted.value.json()
        assert shown["solution"]["key"] and shown["solution"]["search"] is None
        expect(page.locator('[data-role="score"]')).to_contain_text(f"{shown['score']:.2f}")
        replay_drawn(page)
        expect(page.locator('[data-replay="counter"]')).to_contain_text(" of ")
    assert len(reads) == 1, reads
