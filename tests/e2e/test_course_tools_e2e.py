"""The term's course tools in Chromium: a TA (a student account with a course role) finds the
staff pages from the header; a student reports a problem from an exercise's page, a staff member
answers it from the course's inbox, and the student reads the answer there; the instructor copies
the course into the next term with its dates shifted. Screenshots of each page."""

from __future__ import annotations

import datetime as dt

import pytest
from playwright.sync_api import expect

from tests.app_support import enrol
from tests.e2e.e2e_support import INSTRUCTOR, PASSWORD, STUDENT, open_page, sign_in, tree_drawn
from tests.live_server import seeding, serve

pytestmark = pytest.mark.e2e
TA = "ta@example.com"
DUE = dt.datetime(2031, 9, 15, 23, 59)


@pytest.fixture
def course(tmp_path, migrated_template):
    from grader.services import accounts
    from grader.services.courses import courses

    env = {
        "GRADER_INSTANCE_PATH": str(tmp_path / "instance"),
        "GRADER_DATABASE_URL": f"sqlite:///{tmp_path / 'grader.sqlite3'}",
        "GRADER_SECRET_KEY": "course-tools-e2e",
    }
    with seeding(migrated_template, env):
        accounts.create_user(INSTRUCTOR, PASSWORD, "instructor")
        accounts.create_user(STUDENT, PASSWORD)
        accounts.create_user(TA, PASSWORD)
        made = courses.create_course("Search 101", INSTRUCTOR)
        enrol(made.id, STUDENT)
        enrol(made.id, TA, "ta")
        assignment = courses.create_assignment(made.id, "standard", due_at=DUE)
        ids = (made.id, assignment.id)
    with serve(tmp_path, env) as url:
        yield url, *ids


def test_a_problem_reported_answered_and_the_course_copied(browser, course, screenshots):
    url, course_id, assignment_id = course
    with open_page(browser, url) as page:
        sign_in(page, STUDENT)
        page.goto(f"/assignments/{assignment_id}/slots/0")
        tree_drawn(page)
        page.get_by_role("link", name="Report a problem").click()
        page.get_by_label("What is the problem?").fill("Is leaf 4 really pruned? <b>Sure?</b>")
        page.screenshot(path=str(screenshots / "report-a-problem.png"), full_page=True)
        page.get_by_role("button", name="Send the report").click()
        expect(page.get_by_role("status").first).to_contain_text("went to the course's staff")
    with open_page(browser, url) as page:
        sign_in(page, TA)  # a student account with a TA role in this course
        page.get_by_role("link", name="Staff pages", exact=True).first.click()
        page.get_by_role("link", name="Search 101").click()
        expect(page.locator('[data-role="course-role"]')).to_have_text("Search 101: you are a TA")
        page.get_by_role("link", name="Problem reports").click()
        expect(page.get_by_role("heading", name="Open (1)")).to_be_visible()
        expect(page.locator("blockquote").first).to_have_text(
            "Is leaf 4 really pruned? <b>Sure?</b>"
        )
        page.get_by_label("Your answer").fill("Yes: beta <= alpha after leaf 3.")
        page.screenshot(path=str(screenshots / "problem-reports-inbox.png"), full_page=True)
        page.get_by_role("button", name="Answer", exact=True).click()
        expect(page.get_by_role("heading", name="Answered (1)")).to_be_visible()
    with open_page(browser, url) as page:
        sign_in(page, STUDENT)
        page.goto(f"/assignments/{assignment_id}/slots/0")
        answer = page.locator('[data-role="report-answer"]')
        expect(answer).to_have_text("Yes: beta <= alpha after leaf 3.")
    with open_page(browser, url) as page:
        sign_in(page, INSTRUCTOR)
        page.goto(f"/instructor/courses/{course_id}")
        page.get_by_role("link", name="Copy this course into the next term", exact=False).click()
        page.get_by_label("The new course's name").fill("Search 101, spring")
        page.get_by_label("by a number of days").check()
        page.get_by_label("Days (negative: earlier)").fill("140")
        page.screenshot(path=str(screenshots / "copy-course.png"), full_page=True)
        page.get_by_role("button", name="Copy the course").click()
        expect(page.get_by_role("heading", name="Search 101, spring")).to_be_visible()
        expect(page.get_by_role("status").first).to_contain_text("dates moved by +140 days")
        moved = DUE + dt.timedelta(days=140)
        shown = f"{moved:%a} {moved.day} {moved:%b %Y, %H:%M} UTC"  # the course's zone: UTC
        expect(page.get_by_role("cell", name=shown, exact=True)).to_be_visible()
