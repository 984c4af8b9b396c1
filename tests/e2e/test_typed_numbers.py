"""Numbers typed back as the exercise page prints them (the answer grammar, answer-numbers.js): "−5",
"14 / 3" and "−∞" are graded; "abc" is refused before anything is sent, in words naming the node,
with its box marked and the last result taken off the screen."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from grader.gametree import KINDS, Conventions, Tree
from tests.e2e.e2e_support import tree_drawn

pytestmark = pytest.mark.e2e

FULL_MARKS = re.compile(r"Score:\s*1\.00")


def _open(page: Any, live_server: Any, name: str) -> tuple[Tree, Conventions]:
    page.goto(f"/exercises/{live_server.practice[name]}")
    tree_drawn(page)
    exercise = page.evaluate("JSON.parse(document.getElementById('exercise-data').textContent)")
    tree = Tree.from_nested(exercise["tree"], exercise["players"])
    return tree, Conventions.from_dict(exercise["conventions"])


def _printed(value: object) -> str:
    """A key's value as the page prints it: −∞ and +∞, a minus sign (U+2212), a fraction with
    spaces around its slash."""
    text = {"inf": "+∞", "-inf": "\u2212∞"}.get(str(value), str(value))
    return text.replace("-", "\u2212").replace("/", " / ")


def _luminance(css: str) -> float:
    channels = [int(c) / 255 for c in re.findall(r"\d+", css)[:3]]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(one: str, two: str) -> float:
    a, b = sorted((_luminance(one), _luminance(two)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def test_values_typed_as_printed_are_graded_and_abc_is_refused_naming_the_node(
    student, live_server
) -> None:
    page = student
    tree, conventions = _open(page, live_server, "typed-values")
    key = KINDS["values"].key(tree, conventions)["values"]
    labels = tree.labels()
    assert key == {"": "14/3", "0": "14/3", "1": -5}
    for path, value in key.items():
        page.get_by_label(f"Value of {labels[path]}", exact=True).fill(_printed(value))
    assert page.get_by_label("Value of C", exact=True).input_value() == "\u22125"
    page.get_by_role("button", name="Submit").click()
    score = page.locator('[data-role="score"]')
    expect(score).to_have_text(FULL_MARKS)

    box = page.get_by_label("Value of B", exact=True)
    box.fill("abc")
    page.get_by_role("button", name="Submit").click()
    status = page.locator('[data-role="status"]')
    expect(status).to_have_text(
        "The value of B must be a number, a fraction such as 14/3 (or inf, -inf), got 'abc'."
    )
    expect(box).to_have_attribute("aria-invalid", "true")
    expect(box).to_be_focused()
    # The last result was about another answer: it is gone, with its marks on the tree.
    expect(score).to_have_count(0)
    expect(page.locator('[data-role="result"]')).to_be_hidden()
    expect(page.locator('[data-role="tree"] .node.right')).to_have_count(0)
    # The box's mark is visible: its border reaches 3:1 against the block behind it.
    border, behind = box.evaluate(
        "b => [getComputedStyle(b).borderTopColor, getComputedStyle(b.parentElement).backgroundColor]"
    )
    assert _contrast(border, behind) >= 3, (border, behind)
    assert box.evaluate("b => getComputedStyle(b).borderTopWidth") == "2px"
    # Typing in the box takes the mark away; the right value is graded again.
    box.fill("14 / 3")
    expect(box).not_to_have_attribute("aria-invalid", "true")
    page.get_by_role("button", name="Submit").click()
    expect(score).to_have_text(FULL_MARKS)


def test_bounds_typed_as_printed_are_graded_and_drawn_right(student, live_server) -> None:
    page = student
    tree, conventions = _open(page, live_server, "typed-bounds")
    key = KINDS["bounds"].key(tree, conventions)["bounds"]
    labels = tree.labels()
    printed = [_printed(v) for pair in key.values() for v in pair]
    assert "\u2212∞" in printed and "\u22122" in printed
    for path, (alpha, beta) in key.items():
        page.get_by_label(f"Alpha at {labels[path]}").fill(_printed(alpha))
        page.get_by_label(f"Beta at {labels[path]}").fill(_printed(beta))
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="score"]')).to_have_text(FULL_MARKS)
    # Drawn as the grader graded it: every node right, no "→" to another value.
    expect(page.locator('[data-role="tree"] .node.wrong')).to_have_count(0)
    expect(page.locator(".node-input.bounds.wrong")).to_have_count(0)
    # Infinity spelled out is the same number: still right, still drawn right.
    root = labels[""]
    alpha, beta = key[""]
    if beta == "inf":
        page.get_by_label(f"Beta at {root}").fill("infinity")
        page.get_by_role("button", name="Submit").click()
        expect(page.locator('[data-role="score"]')).to_have_text(FULL_MARKS)
        expect(page.locator(".node-input.bounds.wrong")).to_have_count(0)
    # A word in a bound is refused, naming the bound and its node.
    page.get_by_label(f"Alpha at {root}").fill("abc")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="status"]')).to_contain_text(
        f"Alpha at {root} must be a number"
    )
    expect(page.get_by_label(f"Alpha at {root}")).to_have_attribute("aria-invalid", "true")
    expect(page.locator('[data-role="score"]')).to_have_count(0)
