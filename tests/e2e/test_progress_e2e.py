"""Adaptive practice in a real headless Chromium: the one-click loop (weak spots, answer, what
the tree was meant to expose, progress) and the progress page's screenshot for the docs."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from grader.gametree import Conventions, Tree, grade, solve
from tests.e2e.e2e_support import LEARNER, open_page, sign_in, tree_drawn

pytestmark = pytest.mark.e2e


def test_weak_spots_loop_and_the_progress_page(browser, live_server, screenshots) -> None:
    with open_page(browser, live_server.url) as page:
        sign_in(page, LEARNER)
        page.get_by_role("link", name="Practice", exact=True).click()
        for round_ in range(3):
            page.get_by_role("button", name="Practise my weak spots").click()
            page.wait_for_url("**/exercises/*")
            tree_drawn(page)
            exercise: dict[str, Any] = page.evaluate(
                "JSON.parse(document.getElementById('exercise-data').textContent)"
            )
            assert exercise["kind"] == "prune" and exercise["practice"]
            expect(page.locator('[data-role="aim"]')).to_be_hidden()  # not before an answer
            tree = Tree.from_nested(exercise["tree"], exercise["players"])
            conventions = Conventions.from_dict(exercise["conventions"])
            value = solve(tree, conventions).value
            # Answered like plain minimax: nothing marked, the right root value.
            expected = grade("prune", tree, conventions, {"pruned": [], "value": value})
            assert expected.diagnosis == "no-pruning"
            page.get_by_label("Value of the root A").fill(str(value))
            page.get_by_role("button", name="Submit").click()
            expect(page.locator('[data-role="diagnosis"]')).to_be_visible()
            aim = page.locator('[data-role="aim"]')
            expect(aim).to_be_visible()
            expect(aim).to_contain_text("made to expose no-pruning")
            page.get_by_role("link", name="Progress", exact=True).click()
            row = page.locator('tr[data-code="no-pruning"]')
            expect(row).to_have_attribute("data-status", "practising")
            times = "once" if round_ == 0 else f"{round_ + 1} times"
            expect(row).to_contain_text(f"matched it {times}")
        for _ in range(3):  # learns: right three times in a row on trees that expose it
            answered = page.url  # from the second on, the button is on an exercise page
            page.get_by_role("button", name="Practise my weak spots").click()
            expect(page).not_to_have_url(answered)
            expect(page).to_have_url(re.compile(r"/exercises/\d+"))
            tree_drawn(page)
            exercise = page.evaluate(
                "JSON.parse(document.getElementById('exercise-data').textContent)"
            )
            tree = Tree.from_nested(exercise["tree"], exercise["players"])
            conventions = Conventions.from_dict(exercise["conventions"])
            result = solve(tree, conventions)
            for path in result.pruned:
                page.locator(f'[data-role="tree"] .node[data-path="{path}"]').click()
            page.get_by_label("Value of the root A").fill(str(result.value))
            page.get_by_role("button", name="Submit").click()
            expect(page.locator('[data-role="score"]')).to_contain_text("Score: 1.00")
            expect(page.locator('[data-role="aim"]')).to_contain_text("no-pruning")
        page.get_by_role("link", name="Progress", exact=True).click()
        expect(page.locator('tr[data-code="no-pruning"]')).to_have_attribute(
            "data-status", "mastered"
        )
        expect(page.locator("svg.chart title").first).to_have_text(
            "Your progress per misconception"
        )
        page.screenshot(path=str(screenshots / "progress.png"), full_page=True)
