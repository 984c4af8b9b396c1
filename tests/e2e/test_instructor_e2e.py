"""The instructor dashboard in a real headless Chromium: an instructor makes a course and an
assignment in the editor, a student signs up with the join code and solves the variant, and the
instructor reads the gradebook and the misconception chart and downloads the CSV.

The answers come from the reference solver run on the tree the page shows, never from constants.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from grader.gametree import Conventions, Tree, solve
from tests.e2e.e2e_support import INSTRUCTOR, PASSWORD, sign_in, tree_drawn

pytestmark = pytest.mark.e2e

NEW_STUDENT = "newcomer@example.com"


def _shot(page: Any, folder: Any, name: str) -> None:
    page.screenshot(path=str(folder / f"instructor-{name}.png"), full_page=True)


def test_course_assignment_student_gradebook_chart_and_csv(
    page, browser, live_server, screenshots
) -> None:
    # -- the instructor: a course, an assignment and an exercise, through the editor pages
    sign_in(page, INSTRUCTOR)
    page.get_by_role("navigation", name="main").get_by_role("link", name="Staff pages").click()
    page.get_by_label("Course name").fill("Game search, spring")
    page.get_by_role("button", name="Create course").click()
    code = page.locator('[data-role="join-code"]')
    expect(code).to_have_text(re.compile(r"^\s*\S{8}\s*$"))
    join_code = code.inner_text().strip()
    _shot(page, screenshots, "course")
    page.get_by_role("link", name="New assignment").click()
    page.get_by_label("Title").fill("Pruning homework")
    page.get_by_label("Late penalty, percent per day").fill("10")
    page.get_by_role("button", name="Create assignment").click()
    page.get_by_role("link", name="Add an exercise").click()
    page.get_by_label("Title").fill("Prune the tree")
    page.get_by_label("Depth", exact=True).fill("4")
    page.get_by_label("At least this many deep cutoffs").fill("1")
    page.get_by_role("button", name="Preview").click()
    separations = page.locator('[data-role="separations"]')
    expect(separations).to_be_visible()
    # Depth 4 with a deep cutoff: the preview says how often shallow-cutoffs is told apart.
    expect(separations.locator('tr[data-code="shallow-cutoffs"]')).to_be_visible()
    expect(page.locator("#preview-tree .node").first).to_be_visible()
    # The sample is drawn with its key: its pruned subtrees shaded.
    expect(page.locator("#preview-tree .node.shaded")).not_to_have_count(0)
    _shot(page, screenshots, "slot-preview")
    page.get_by_label("Depth", exact=True).fill("3")
    page.get_by_label("At least this many deep cutoffs").fill("0")
    page.get_by_role("button", name="Add exercise").click()
    expect(page.get_by_role("link", name="Prune the tree")).to_be_visible()
    _shot(page, screenshots, "assignment")

    # -- the student: signs up with the join code and answers, wrong (no pruning), then right
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=live_server.url)
    student = context.new_page()
    errors: list[str] = []
    student.on("pageerror", lambda error: errors.append(str(error)))
    student.goto("/signup")
    student.get_by_label("E-mail").fill(NEW_STUDENT)
    student.get_by_label("Password", exact=True).fill(PASSWORD)
    student.get_by_label("Password again").fill(PASSWORD)
    student.get_by_label("Course join code").fill(join_code)
    student.get_by_role("button", name="Sign up").click()
    # Sign-up answers alike for new and known e-mails, so it signs no one in: log in.
    student.wait_for_url("**/login")
    student.get_by_label("E-mail").fill(NEW_STUDENT)
    student.get_by_label("Password").fill(PASSWORD)
    student.get_by_role("button", name="Log in").click()
    student.wait_for_url("**/dashboard")
    student.get_by_role("link", name="Prune the tree").click()
    tree_drawn(student)
    exercise = student.evaluate("JSON.parse(document.getElementById('exercise-data').textContent)")
    tree = Tree.from_nested(exercise["tree"], exercise["players"])
    result = solve(tree, Conventions.from_dict(exercise["conventions"]))
    root = student.get_by_label("Value of the root A")
    root.fill(str(result.value))
    student.get_by_role("button", name="Submit").click()
    expect(student.locator('[data-role="diagnosis"]')).to_be_visible()  # plain minimax
    for path in result.pruned:
        student.locator(f'[data-role="tree"] .node[data-path="{path}"]').click()
    student.get_by_role("button", name="Submit").click()
    expect(student.locator('[data-role="score"]')).to_contain_text("1.00")
    context.close()
    assert not errors, errors

    # -- the instructor: the gradebook row, the misconception chart, the CSV
    page.get_by_role("link", name="Gradebook").click()
    row = page.locator(f'tr[data-email="{NEW_STUDENT}"]')
    expect(row).to_contain_text("1.00")
    _shot(page, screenshots, "gradebook")
    with page.expect_download() as download_info:
        page.locator('[data-role="csv"]').click()
    download = download_info.value
    assert download.suggested_filename.endswith(".csv")
    with open(download.path(), encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(io.StringIO(handle.read())))
    mine = next(r for r in rows if r["email"] == NEW_STUDENT)
    assert mine["name"] == "newcomer"
    assert mine["Pruning homework: 1. Prune the tree (/1)"] == "1.00"
    assert mine["total (/1)"] == "1.00"

    row.get_by_role("link", name=NEW_STUDENT).click()
    expect(page.locator("table.attempts tbody tr")).to_have_count(2)
    page.locator("[data-replay-panel] summary").first.click()
    expect(page.locator('[data-replay-panel] [data-replay="tree"] .node').first).to_be_visible()
    _shot(page, screenshots, "student")

    page.get_by_role("link", name="Misconceptions").click()
    chart = page.locator('[data-role="misconception-chart"] svg[role="img"]')
    expect(chart).to_be_visible()
    expect(chart.locator("title").first).to_have_text(
        "Wrong answers by misconception, whole course"
    )
    expect(chart.locator("desc")).to_contain_text("No pruning: 1")
    _shot(page, screenshots, "misconceptions")

    for name in ("Statistics", "Roster", "Audit log"):
        page.get_by_role("link", name=name, exact=True).click()
        expect(page).to_have_title(re.compile("^" + name + " · "))
        _shot(page, screenshots, name.lower().replace(" ", "-"))


def test_textbook_tree_drawn_in_the_builder(page, live_server, screenshots) -> None:
    sign_in(page, INSTRUCTOR)
    page.goto("/instructor/")
    page.get_by_label("Course name").fill("Builder course")
    page.get_by_role("button", name="Create course").click()
    page.get_by_role("link", name="New assignment").click()
    page.get_by_label("Title").fill("Textbook trees")
    page.get_by_role("button", name="Create assignment").click()
    page.get_by_role("link", name="Add an exercise").click()
    page.get_by_label("Fixed: draw it").check()
    expect(page.locator('[data-source="generate"]')).to_be_hidden()
    # The builder starts from [[0, 0], [0, 0]]: give the root a third child, then leaf values.
    page.get_by_role("button", name="Add a child to root", exact=True).click()
    values = {"root.1.1": 3, "root.1.2": 12, "root.2.1": 2, "root.2.2": 4, "root.3": 14}
    for name, value in values.items():
        page.get_by_label(f"Value of leaf {name}", exact=True).fill(str(value))
        page.get_by_label(f"Value of leaf {name}", exact=True).dispatch_event("change")
    expect(page.locator(".builder-drawing .node")).to_have_count(8)
    _shot(page, screenshots, "builder")
    page.get_by_label("Title").fill("Drawn tree")
    page.get_by_role("button", name="Add exercise").click()
    page.get_by_role("link", name="Drawn tree").click()
    expect(page.locator("#nested")).to_have_value("[[3, 12], [2, 4], 14]")
    page.get_by_role("button", name="Preview").click()
    expect(page.locator('[data-role="key"]')).to_have_text("pruned: H; root value 14")
