"""Every exercise kind done with the keyboard alone, from the dashboard to the result: prune,
values, bounds, leaf order, best order and minimax on MAX/MIN trees, and minimax, values and
prune on chance trees. Each run signs in, reaches its exercise from the dashboard, answers and
submits with `page.keyboard` only (Tab, the tree's arrow keys, Enter, typing), never the mouse,
and sees full marks: the answer typed is the reference solver's key for the tree the page shows.
The engine upload done the same way is in tests/e2e/test_engine_e2e.py, on that module's server.

The course is the seeded "Keyboard 101" of keys@example.com: the standard, challenge, intro and
expectimax presets, each exercise untouched by any other test.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from grader.gametree import KINDS, Conventions, Tree
from tests.e2e.e2e_support import KEYS, PASSWORD, tree_drawn

pytestmark = pytest.mark.e2e

TREE = '[data-role="tree"]'


# Whether the element has the focus; None once the page has replaced it (taken again).
FOCUSED = "e => e.isConnected ? e === document.activeElement : null"


def _tab_to(page: Any, locator: Any, limit: int = 400) -> None:
    """Tab (and only Tab) until `locator` has the focus: after each press one question to the
    page, asked of the element found once. Fails when `limit` presses never reach it."""
    target = locator.element_handle()
    for _ in range(limit):
        focused = target.evaluate(FOCUSED)
        if focused:
            return
        if focused is None:
            target = locator.element_handle()
            continue
        page.keyboard.press("Tab")
    expect(locator).to_be_focused()


# The labels of the page's boxes in document order, which is their Tab order (no box has a
# tabindex of its own).
BOXES = "() => [...document.querySelectorAll('input[aria-label]')].map(e => e.ariaLabel)"


def _in_tab_order(page: Any, entries: dict[str, str]) -> list[tuple[str, str]]:
    """`entries` (a box's label -> the text to type) in the page's Tab order, each box one Tab
    after the one before it when they are next to each other."""
    order = {label: i for i, label in enumerate(page.evaluate(BOXES))}
    missing = [label for label in entries if label not in order]
    assert not missing, f"no box labelled {missing}"
    return sorted(entries.items(), key=lambda item: order[item[0]])


def _type_into(page: Any, locator: Any, text: str) -> None:
    _tab_to(page, locator)
    page.keyboard.press("Control+A")
    page.keyboard.type(text)


def _sign_in(page: Any, email: str = KEYS) -> None:
    page.goto("/login")
    _type_into(page, page.get_by_label("E-mail"), email)
    _type_into(page, page.get_by_label("Password"), PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/login" not in url)


def _open(page: Any, assignment: str, slot: str) -> tuple[str, Tree, Conventions]:
    """From the dashboard by Tab and Enter to the slot's exercise; its kind, tree, conventions."""
    _sign_in(page)
    link = page.locator(
        f'xpath=//article[.//h3/a[normalize-space()="{assignment}"]]'
        f'//li/a[normalize-space()="{slot}"]'
    )
    _tab_to(page, link)
    page.keyboard.press("Enter")
    tree_drawn(page)
    exercise = page.evaluate("JSON.parse(document.getElementById('exercise-data').textContent)")
    tree = Tree.from_nested(exercise["tree"], exercise["players"])
    return exercise["kind"], tree, Conventions.from_dict(exercise["conventions"])


def _node(page: Any, path: str) -> Any:
    return page.locator(f'{TREE} .node[data-path="{path}"]')


def _to_node(page: Any, path: str) -> None:
    """To a node by the tree's keys: Home, then Down a row and Right along it to each child."""
    in_tree = page.locator(f"{TREE} .node:focus")
    if in_tree.count() == 0:
        _tab_to(page, page.locator(f'{TREE} .node[tabindex="0"]'))
    page.keyboard.press("Home")
    for step in path.split(".") if path else []:
        page.keyboard.press("ArrowDown")
        for _ in range(int(step)):
            page.keyboard.press("ArrowRight")
    expect(_node(page, path)).to_be_focused()


def _submit(page: Any) -> None:
    _tab_to(page, page.get_by_role("button", name="Submit"))
    page.keyboard.press("Enter")
    result = page.locator('[data-role="result"]')
    expect(result).to_be_focused()
    expect(page.locator('[data-role="score"]')).to_contain_text("Score: 1.00")


def _values(page: Any, tree: Tree, values: dict[str, str]) -> None:
    labels = tree.labels()
    shown = set(page.evaluate(BOXES))
    entries = {}
    for path, value in values.items():
        name = f"Value of the root {labels[path]}" if path == "" else f"Value of {labels[path]}"
        entries[name if name in shown else f"Value of {labels[path]}"] = str(value)
    for name, value in _in_tab_order(page, entries):
        _type_into(page, page.get_by_label(name, exact=True), value)


def _prune(page: Any, tree: Tree, conventions: Conventions) -> None:
    key = KINDS["prune"].key(tree, conventions)
    for path in key["pruned"]:
        _to_node(page, path)
        page.keyboard.press("Enter")
        expect(_node(page, path)).to_contain_class("marked")
    _type_into(page, page.get_by_label(f"Value of the root {tree.labels()['']}"), str(key["value"]))


def _leaf_order(page: Any, tree: Tree, conventions: Conventions) -> None:
    for number, path in enumerate(KINDS["leaf-order"].key(tree, conventions)["leaf_order"], 1):
        _to_node(page, path)
        page.keyboard.press("Enter")
        expect(_node(page, path).locator(".mark")).to_have_text(str(number))


def _bounds(page: Any, tree: Tree, conventions: Conventions) -> None:
    labels = tree.labels()
    entries = {}
    for path, (alpha, beta) in KINDS["bounds"].key(tree, conventions)["bounds"].items():
        entries[f"Alpha at {labels[path]}"] = str(alpha)
        entries[f"Beta at {labels[path]}"] = str(beta)
    for name, value in _in_tab_order(page, entries):
        _type_into(page, page.get_by_label(name, exact=True), value)


SHOWN_ORDER = """([parent]) => [...document.querySelectorAll('[data-role="tree"] .node')]
  .filter(n => n.dataset.path !== '' && n.dataset.path.split('.').slice(0, -1).join('.') === parent)
  .sort((a, b) => a.transform.baseVal.consolidate().matrix.e - b.transform.baseVal.consolidate().matrix.e)
  .map(n => n.dataset.path)"""


def _best_order(page: Any, tree: Tree, conventions: Conventions) -> None:
    labels = tree.labels()
    best = KINDS["best-order"].key(tree, conventions)
    for path, order in sorted(best["order"].items(), key=lambda kv: -len(kv[0])):
        for position, old in enumerate(order):
            child = f"{path}.{old}" if path else str(old)
            shown = page.evaluate(SHOWN_ORDER, [path])
            for _ in range(shown.index(child) - position):
                _tab_to(page, page.get_by_role("button", name=f"Move {labels[child]} left"))
                page.keyboard.press("Enter")
        shown = page.evaluate(SHOWN_ORDER, [path])
        assert shown == [f"{path}.{i}" if path else str(i) for i in order], (path, shown)


RUNS = [
    ("Alpha-beta pruning", "Mark the pruned nodes", "prune", "max"),
    ("Alpha-beta pruning", "Values returned", "values", "max"),
    ("Alpha-beta pruning", "Order of evaluation", "leaf-order", "max"),
    ("Alpha-beta challenge", "Alpha and beta at every node", "bounds", "max"),
    ("Alpha-beta challenge", "Best move order", "best-order", "max"),
    ("Introduction to alpha-beta pruning", "Minimax values", "minimax", "max"),
    ("Expectimax and Star1", "Expectimax values", "minimax", "chance"),
    ("Expectimax and Star1", "Values returned with Star1", "values", "chance"),
    ("Expectimax and Star1", "Nodes Star1 never visits", "prune", "chance"),
]


@pytest.mark.parametrize(
    ("assignment", "slot", "kind", "players"), RUNS, ids=[f"{k}-{p}" for _, _, k, p in RUNS]
)
def test_keyboard_only(page, assignment, slot, kind, players) -> None:
    got, tree, conventions = _open(page, assignment, slot)
    assert got == kind
    assert ("chance" in tree.players) == (players == "chance")
    if kind == "prune":
        _prune(page, tree, conventions)
    elif kind in ("values", "minimax"):
        _values(page, tree, KINDS[kind].key(tree, conventions)["values"])
    elif kind == "leaf-order":
        _leaf_order(page, tree, conventions)
    elif kind == "bounds":
        _bounds(page, tree, conventions)
    else:
        _best_order(page, tree, conventions)
    _submit(page)
