"""Words that are true, in a real Chromium at 1280 and 390 px: the exercise page says how a
score came about after an answer; the progress page draws no bar for a misconception the
student's answers never showed; the editor's drop-downs show their whole choice; no student
page's text names an API path.

Each test here has its own server and database (the session's seeded students are the other
tests'): a course, the standard assignment and a student who gave plain minimax's answer once
(no-pruning seen: practising), then answered AIMA's Figure 5.5 tree right (every misconception
that tree exposes one right answer in a row since, the others not seen)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.app_support import enrol
from tests.e2e.accessibility import sideways
from tests.e2e.e2e_support import PASSWORD, open_page, sign_in, tree_drawn
from tests.live_server import seeding, serve

# make test's workers (--dist loadgroup): one of them runs the module, its fixture made once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("test_words_e2e")]

STUDENT = "words@example.com"
ANSWERING = "answering@example.com"  # answers on the exercise page, keeping STUDENT's history
INSTRUCTOR = "words-prof@example.com"
AIMA = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]  # root 3; C's second and third leaves pruned
WIDTHS = (1280, 390)


@dataclass
class Site:
    url: str
    assignment_id: int
    practice_id: int  # a prune exercise on AIMA's tree, not yet answered


def _seed(template: Path, env: dict[str, str]) -> tuple[int, int]:
    from grader.services import accounts
    from grader.services.courses import courses
    from grader.services.trees import attempts, exercises

    with seeding(template, env):
        accounts.create_user(INSTRUCTOR, PASSWORD, "instructor")
        student = accounts.create_user(STUDENT, PASSWORD)
        course = courses.create_course("Search 101", INSTRUCTOR)
        enrol(course.id, STUDENT)
        assignment = courses.create_assignment(course.id, "standard")
        minimax = exercises.create_practice(student, "prune", tree=[[3, 5], [2, 9]])
        attempts.submit(student, minimax.id, {"pruned": [], "value": 3})  # plain minimax
        right = exercises.create_practice(student, "prune", tree=AIMA)
        attempts.submit(student, right.id, {"pruned": ["1.1", "1.2"], "value": 3})
        answering = accounts.create_user(ANSWERING, PASSWORD)
        fresh = exercises.create_practice(answering, "prune", tree=AIMA)
        ids = assignment.id, fresh.id
    return ids


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, migrated_template: Path) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("words")
    env = {
        "GRADER_INSTANCE_PATH": str(folder / "instance"),
        "GRADER_DATABASE_URL": f"sqlite:///{folder / 'grader.sqlite3'}",
        "GRADER_SECRET_KEY": "e2e-secret",
    }
    assignment_id, practice_id = _seed(migrated_template, env)
    with serve(folder, env) as url:
        yield Site(url, assignment_id, practice_id)


def test_the_exercise_page_says_how_the_score_came_about(browser, site) -> None:
    with open_page(browser, site.url) as page:
        sign_in(page, ANSWERING)
        page.goto(f"/exercises/{site.practice_id}")
        tree_drawn(page)
        # Nothing marked, the root's value wrong: I and J unmarked and the value, 3 errors.
        page.get_by_label("Value of the root A").fill("2")
        page.get_by_role("button", name="Submit").click()
        expect(page.locator('[data-role="score"]')).to_contain_text("Score: 0.10")
        scoring = page.locator('[data-role="scoring"]')
        expect(scoring).to_have_text(
            "How it was scored: 3 errors: 2 missing marks at I and J (pruned, not marked); "
            "1 wrong root value. Score 0.10, by the rule: no error 1, 1 error 0.80, "
            "2 errors 0.50, 3 errors 0.10, 4 or more 0."
        )
        assert "/api/" not in page.locator("body").inner_text()


def _bars(page: Any) -> dict[str, float]:
    """Each row of the progress chart: its label -> its bar's drawn width (no bar: absent)."""
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('svg.chart rect')]
             .map(r => [r.querySelector('title').textContent.split(':')[0],
                        r.getBoundingClientRect().width]))"""
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_the_progress_page_draws_no_bar_for_what_was_not_seen(
    browser, site, screenshots, width
) -> None:
    with open_page(browser, site.url) as page:
        sign_in(page, STUDENT)
        page.set_viewport_size({"width": width, "height": 900})
        page.goto("/progress")
        expect(page.locator('tr[data-code="no-pruning"]')).to_have_attribute(
            "data-status", "practising"
        )
        not_seen = page.locator('tr[data-status="not seen"]')
        expect(not_seen.first).to_be_visible()
        statuses = page.eval_on_selector_all(
            "tr[data-status]", "rows => rows.map(r => [r.dataset.code, r.dataset.status])"
        )
        bars = _bars(page)
        names = page.eval_on_selector_all(
            "tr[data-status] th .code-words", "cells => cells.map(c => c.textContent)"
        )
        for (code, status), name in zip(statuses, names, strict=True):
            if status == "not seen":
                assert name not in bars, (code, bars)  # no bar, however many right in a row
            else:
                assert name in bars, (code, bars)
        assert bars["No pruning"] > 0  # practising, one right answer in a row since
        expect(page.locator('tr[data-code="players-swapped"]')).to_contain_text(
            "1 of 3 right in a row"
        )
        # The words on hover: the misconception's code.
        expect(page.locator('tr[data-code="no-pruning"] th .code-words')).to_have_attribute(
            "title", "no-pruning"
        )
        assert sideways(page) <= 0
        page.screenshot(path=str(screenshots / f"progress-{width}.png"), full_page=True)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_editors_drop_downs_show_their_whole_choice(browser, site, width) -> None:
    with open_page(browser, site.url) as page:
        sign_in(page, INSTRUCTOR)
        page.set_viewport_size({"width": width, "height": 900})
        for path in [
            f"/instructor/assignments/{site.assignment_id}/slots/0",
            f"/instructor/assignments/{site.assignment_id}",
            "/practice",
        ]:
            page.goto(path)
            expect(page.locator("select").first).to_be_attached()
            # Each shown drop-down against the width it takes when nothing constrains it: the
            # width at which its longest choice shows whole.
            cut = page.evaluate(
                """() => [...document.querySelectorAll('select')]
                  .filter(s => s.offsetWidth > 0)
                  .map(s => {
                    const free = s.cloneNode(true);
                    free.style.cssText = 'position:absolute;visibility:hidden;width:auto;max-width:none';
                    document.body.append(free);
                    const needed = free.getBoundingClientRect().width;
                    free.remove();
                    return [s.name, s.getBoundingClientRect().width, needed];
                  })
                  .filter(([, shown, needed]) => shown + 0.5 < needed)"""
            )
            assert not cut, f"{path} at {width} px: {cut}"
        page.goto(f"/instructor/assignments/{site.assignment_id}")
        expect(page.locator('[data-role="visibility"]')).to_contain_text("Visible to students")
        page.locator('[data-role="add-engine"] summary').click()
        expect(page.get_by_label("Graded with the suite")).to_be_visible()
