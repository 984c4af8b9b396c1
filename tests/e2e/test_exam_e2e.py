"""Paper exams in Chromium: a TA opens printed sheets by their codes, enters a wrong answer for
one student and a right one for another (clicks on the tree, the root's value, Enter), and the
gradebook shows both."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.app_support import enrol
from tests.e2e.e2e_support import PASSWORD, LiveServer, open_page, sign_in
from tests.instructor_support import add_textbook_slot
from tests.live_server import seeding, serve

# make test's workers (--dist loadgroup): one of them runs the module, its fixture made once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("test_exam_e2e")]

TEACHER, TA, ALICE, BOB = (
    "exam-teacher@example.com",
    "exam-ta@example.com",
    "alice@example.com",
    "bob@example.com",
)


def _seed(template: Path, env: dict[str, str], out: Path) -> dict[str, str]:
    from grader.services import accounts
    from grader.services.courses import courses
    from grader.services.paper import printing
    from grader.services.teaching import editor

    with seeding(template, env):
        accounts.create_user(TEACHER, PASSWORD, "instructor")
        for email in (TA, ALICE, BOB):
            accounts.create_user(email, PASSWORD)
        course = courses.create_course("Exams 101", TEACHER)
        enrol(course.id, TA, "ta")
        enrol(course.id, ALICE)
        enrol(course.id, BOB)
        teacher = accounts.user_by_email(TEACHER)
        assignment = editor.create_assignment(
            teacher, course.id, editor.AssignmentInput(title="Midterm")
        )
        add_textbook_slot(teacher, assignment.id, "Prune the tree")
        run, _ = printing.print_to_dir(assignment.id, out)
        codes = {sheet.user.email: sheet.code for sheet in run.sheets}
    return {**codes, "course": str(course.id)}


@pytest.fixture(scope="module")
def exam_server(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path
) -> Iterator[tuple[LiveServer, dict]]:
    folder = tmp_path_factory.mktemp("exam-e2e")
    env = {
        "GRADER_INSTANCE_PATH": str(folder / "instance"),
        "GRADER_DATABASE_URL": f"sqlite:///{folder / 'grader.sqlite3'}",
        "GRADER_SECRET_KEY": "e2e-secret",
    }
    seeded = _seed(migrated_template, env, folder / "printed")
    with serve(folder, env) as url:
        yield LiveServer(url, 0), seeded


def _open(page: Any, code: str) -> None:
    page.goto("/exams/sheets")
    page.get_by_label("Sheet code").fill(f"{code[:5].lower()}-{code[5:].lower()}")
    page.get_by_role("button", name="Open the sheet").click()
    expect(page.locator('[data-role="tree"] .node').first).to_be_visible()


def test_a_ta_enters_a_wrong_and_a_right_sheet_and_the_gradebook_shows_both(
    browser: Any, exam_server: tuple[LiveServer, dict], screenshots: Path
) -> None:
    server, seeded = exam_server
    with open_page(browser, server.url) as page:
        sign_in(page, TA)
        # Alice's sheet: nothing crossed out, the root's value 3: saved with the Save button.
        _open(page, seeded[ALICE])
        expect(page.locator('[data-role="student"]')).to_have_text(ALICE)
        expect(page.locator('[data-role="result"]')).to_be_hidden()  # no key before a save
        page.locator("#root-value").fill("3")
        page.get_by_role("button", name="Save").click()
        score = page.locator('[data-role="score"]')
        expect(score).to_contain_text("Score: ")
        assert "1.00" not in score.inner_text()
        expect(page.locator('[data-role="history"] li')).to_have_count(1)
        page.screenshot(path=str(screenshots / "exam-entry.png"), full_page=True)

        # Bob's sheet, keyboard-fast: a click per crossed-out node, the value, Enter.
        _open(page, seeded[BOB])
        expect(page.locator('[data-role="student"]')).to_have_text(BOB)
        for path in ("1.1", "1.2"):
            page.locator(f'[data-role="tree"] g.node[data-path="{path}"]').click()
        page.locator("#root-value").fill("3")
        page.locator("#root-value").press("Enter")
        # Saved, and the next sheet opened at once (the print run's last: the open page).
        expect(page.locator(".flash")).to_contain_text("score 1.00")

        page.goto(f"/instructor/courses/{seeded['course']}/gradebook")
        expect(page.locator(f'tr[data-email="{BOB}"]')).to_contain_text("1.00")
        alice = page.locator(f'tr[data-email="{ALICE}"]')
        expect(alice).to_be_visible()
        assert "1.00" not in alice.inner_text()
