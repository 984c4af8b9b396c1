"""The practice loop in a real browser: the form's common case shown and the rest folded, its
labels above their own inputs (laptop and phone), the search watched before answering, another tree like this in one click, and the
settings kept for the next visit."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.accessibility import sideways
from tests.e2e.e2e_support import replay_drawn, tree_drawn

pytestmark = pytest.mark.e2e


def _exercise(page: Any) -> dict[str, Any]:
    return page.evaluate("JSON.parse(document.getElementById('exercise-data').textContent)")


COMMON = ("kind", "depth", "branching")  # what the form shows as it opens
FOLDED = ("values", "min_cutoffs", "players", "ties", "values_rule", "order", "depth_limit")
SOURCES = {
    "Generate one": ("depth", "branching", "values", "min_cutoffs"),
    "Type leaf values": ("leaves", "leaf_branching", "leaf_depth"),
    "Type a nested list": ("nested",),
}


def _sits_on_its_label(page: Any, name: str) -> None:
    field = page.locator(f"#{name}")
    expect(field).to_be_visible()
    label = page.locator(f'label[for="{name}"]').bounding_box()
    box = field.bounding_box()
    # Directly above its own input, starting at the same left edge.
    gap = box["y"] - (label["y"] + label["height"])
    assert -1 <= gap < 12, name
    assert abs(label["x"] - box["x"]) < 2, name


@pytest.mark.parametrize("width", [1280, 390])
def test_practice_form_shows_the_common_case_and_folds_the_rest(student, width) -> None:
    page = student
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/practice")
    for name in COMMON:
        expect(page.locator(f"#{name}")).to_be_visible()
    for name in FOLDED + SOURCES["Type leaf values"] + SOURCES["Type a nested list"]:
        expect(page.locator(f"#{name}")).to_be_hidden()
    # The folds open under their summaries, which say what is inside them now.
    conventions = page.locator("summary", has_text="Players and conventions")
    expect(conventions).to_contain_text("max,min")
    conventions.click()
    page.locator("summary", has_text="Values and cutoffs").click()
    for name in SOURCES["Generate one"] + ("players", "ties", "values_rule", "order"):
        _sits_on_its_label(page, name)
    # One tree source's fields at a time: the one chosen.
    for source, names in SOURCES.items():
        page.get_by_label(source, exact=True).check()
        for name in names:
            _sits_on_its_label(page, name)
        for other, hidden in SOURCES.items():
            if other != source:
                for name in hidden:
                    expect(page.locator(f"#{name}")).to_be_hidden()
    assert sideways(page) <= 0
    assert "Delphi" not in page.content()


def test_watch_then_another_tree_like_this_then_settings_kept(student) -> None:
    page = student
    page.goto("/practice")
    page.get_by_label("Exercise").select_option("bounds")
    page.locator("#depth").fill("3")
    page.get_by_label("Branching (e.g. 2-3)").fill("2")
    page.locator("summary", has_text="Players and conventions").click()
    page.get_by_label("Children").select_option("rtl")
    page.get_by_role("button", name="Make the exercise").click()
    page.wait_for_url("**/exercises/*")
    tree_drawn(page)
    first = _exercise(page)
    assert first["kind"] == "bounds" and first["conventions"]["order"] == "rtl"

    # The search can be watched before any answer.
    expect(page.locator('[data-role="replay"]')).to_be_hidden()
    page.get_by_role("button", name="Watch the search").click()
    replay_drawn(page)
    page.get_by_role("button", name="Step forward").click()
    expect(page.locator('[data-replay="counter"]')).to_contain_text("Step 1 of")

    # One click: a new tree with the same settings.
    first_url = page.url
    page.get_by_role("button", name="Another tree like this").click()
    expect(page).not_to_have_url(first_url)
    expect(page).to_have_url(re.compile(r"/exercises/\d+"))
    tree_drawn(page)
    second = _exercise(page)
    assert second["id"] != first["id"] and second["seed"] != first["seed"]
    assert (second["kind"], second["conventions"]) == (first["kind"], first["conventions"])
    assert all(len(child) == 2 for child in second["tree"])

    # The next visit starts from the same settings.
    page.goto("/practice")
    expect(page.get_by_label("Exercise")).to_have_value("bounds")
    expect(page.get_by_label("Branching (e.g. 2-3)")).to_have_value("2")
    expect(page.get_by_label("Children")).to_have_value("rtl")
