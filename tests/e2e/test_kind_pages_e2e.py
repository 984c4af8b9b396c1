"""Each registered kind's exercise page in a real headless Chromium, on the kind's own examples
(`ExerciseKind.examples`, seeded by tests/e2e/kinds_support.py as practice exercises answered by
`KINDS_PRACTICE`): no list of kinds here, so a kind added (a plugin's too, `make
test-kind-plugin`) is drawn by its own page module with its own styles. Reloaded, the page
restores the latest attempt and draws its grade: the score the grader gave, and at the replay's
end the best line the solver kept (`SearchResult.best_line`), read by the replay, not recomputed.
A script error on the page fails the test (`open_page`)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from grader.gametree import KINDS, Conventions
from tests.e2e.e2e_support import LiveServer, open_page, sign_in, tree_drawn
from tests.e2e.kinds_support import KINDS_PRACTICE, Case, answer_cases

pytestmark = pytest.mark.e2e


def _best_line(case: Case) -> str:
    """The line the replay shows first, in labels: the reference search's, or (a kind that
    replays the answer's own order) that search's, each node's best child as the solver kept it."""
    kind = KINDS[case.kind]
    labels = case.tree.labels()
    replays = kind.answer_replays(case.tree, Conventions(), case.answer)
    if replays is None:
        line = kind.search(case.tree, Conventions()).best_line()
    else:  # the answer's order searched, its paths those of the tree as drawn
        nodes, line = replays["yours"]["nodes"], [""]
        while "best" in nodes[line[-1]]:
            line.append(nodes[line[-1]]["best"])
    return " → ".join(labels[p] for p in line)


@pytest.mark.parametrize("case", answer_cases(), ids=lambda case: case.title)
def test_each_kinds_page_restores_its_example_and_draws_its_grade(
    browser: Any, live_server: LiveServer, case: Case
) -> None:
    graded = KINDS[case.kind].grade(case.tree, Conventions(), case.answer)
    exercise = live_server.practice[f"example {case.title}"]
    with open_page(browser, live_server.url) as page:
        sign_in(page, KINDS_PRACTICE)
        page.goto(f"/exercises/{exercise}")
        tree_drawn(page)
        expect(page.locator('[data-role="score"]')).to_contain_text(f"Score: {graded.score:.2f}")
        # The kind's styles, where it has any, linked once by its page module's loader.
        root = page.locator("[data-kind-module]").first
        styles = root.get_attribute("data-kind-styles")
        if styles:
            expect(page.locator(f'link[rel="stylesheet"][href="{styles}"]')).to_have_count(1)
        page.locator('[data-replay="end"]').click()
        expect(page.locator('[data-replay="caption"]')).to_contain_text(
            f"Best line: {_best_line(case)}."
        )
