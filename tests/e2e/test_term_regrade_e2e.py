"""A term regrade in a real headless Chromium, served by gunicorn with a real `grader worker`
(issue 54): the instructor asks for a regrade of the assignment after a suite fix, the worker
computes its preview at low priority, the page shows the histogram of changes (with its table)
and each student's old and new score with what changed; axe finds nothing serious; keeping the
higher applies it. The screenshot (1280 px wide) is the docs' own (scripts/screenshots.sh copies
it to docs/images/regrade-preview.png)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.app_support import enrol
from tests.e2e.accessibility import axe_violations
from tests.e2e.e2e_support import INSTRUCTOR, PASSWORD, open_page, sign_in
from tests.live_server import seeding, serve
from tests.services.term_regrade_support import (
    PERFT,
    group_of,
    stored_rich,
    suite_version,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.xdist_group("test_term_regrade_e2e")]

STUDENTS = [
    "ana@example.com",
    "ben@example.com",
    "cleo@example.com",
    "dev@example.com",
    "eli@example.com",
    "fay@example.com",
    "gus@example.com",
    "hal@example.com",
    "ida@example.com",
]


def _seed(template: Path, env: dict[str, str], suite_file: Path) -> dict[str, int]:
    """A course whose students' uploads were graded with the suite as it was (their results
    stored as the worker stores them: a third fail perft, a third one move-generation test),
    and who each answered the textbook tree; then the suite is fixed (perft's 3 points made 1)
    and two students' attempts are left as an older prune rule graded them (a quarter lower)."""
    import sqlalchemy as sa

    from grader.extensions import db
    from grader.models import Attempt
    from grader.services import accounts
    from grader.services.courses import courses
    from grader.services.engines import leases, submissions
    from grader.services.teaching import editor
    from grader.services.trees import attempts, exercises
    from tests.instructor_support import add_textbook_slot, textbook_key
    from tests.jobs.engine_support import engine_bytes

    with seeding(template, env):
        teacher = accounts.create_user(INSTRUCTOR, PASSWORD, "instructor")
        course = courses.create_course("Game search, spring", INSTRUCTOR)
        assignment = editor.create_assignment(
            teacher, course.id, editor.AssignmentInput(title="Homework 3")
        )
        engine = submissions.add_engine_slot(
            assignment.id, suite=str(suite_file), title="Checkers engine"
        )
        add_textbook_slot(teacher, assignment.id, "Textbook tree")
        index = engine.index
        for i, email in enumerate(STUDENTS):
            student = accounts.create_user(email, PASSWORD)
            enrol(course.id, email)
            upload = submissions.upload(
                student, assignment.id, index, engine_bytes("correct"), "engine.py"
            )
            leases.claim_submission(upload.id, "seed")
            rich = stored_rich(suite_file, group_of(i))
            total = sum(t["score"] for t in rich["tests"])
            most = sum(t["max_score"] for t in rich["tests"])
            leases.write_result(
                upload.id,
                "seed",
                score=total,
                max_score=most,
                gradescope={"score": total, "tests": rich["tests"]},
                rich=rich,
                suite_version=suite_version(suite_file),
            )
            exercise = exercises.slot_exercise(student, assignment.id, 1)
            attempts.submit(student, exercise.id, textbook_key())
        for email in STUDENTS[:2]:  # graded by an older rule that scored a quarter lower
            user_id = accounts.user_by_email(email).id
            db.session.execute(
                sa.update(Attempt)
                .where(Attempt.user_id == user_id)
                .values(score=0.75, parts={"pruned": 0.5, "value": 0.25}, rule_version="0")
            )
        db.session.commit()
        seeded = {"course": course.id, "assignment": assignment.id}
    definition = json.loads(suite_file.read_text())
    for group in definition["groups"]:
        if group["kind"] == "perft":
            group["points"] = 1
    suite_file.write_text(json.dumps(definition))
    return seeded


@pytest.fixture(scope="module")
def site(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path
) -> Iterator[tuple[str, dict[str, int]]]:
    from grader import data

    folder = tmp_path_factory.mktemp("regrade-e2e")
    suite_file = folder / "suite" / "course.json"
    suite_file.parent.mkdir()
    definition = json.loads((data.suite_dir() / "quick.json").read_text())
    definition["positions"] = str(data.suite_dir() / "positions.json")
    suite_file.write_text(json.dumps(definition))
    env = {
        "GRADER_INSTANCE_PATH": str(folder / "instance"),
        "GRADER_DATABASE_URL": f"sqlite:///{folder / 'grader.sqlite3'}",
        "GRADER_SECRET_KEY": "e2e-secret",
        "GRADER_UPLOAD_RATE": "20/600",
    }
    seeded = _seed(migrated_template, env, suite_file)
    with serve(folder, env, worker=True) as url:
        yield url, seeded


def test_the_instructor_previews_a_regrade_and_keeps_the_higher(
    browser: Any, site: tuple[str, dict[str, int]], screenshots: Path
) -> None:
    url, seeded = site
    with open_page(browser, url, bypass_csp=True) as page:  # axe is injected
        sign_in(page, INSTRUCTOR)
        page.goto(f"/instructor/courses/{seeded['course']}/regrades")
        page.get_by_label("What to regrade").select_option(f"a{seeded['assignment']}")
        page.get_by_label("Why the grading changed").fill(
            "the suite's perft test was worth 3 points instead of 1"
        )
        page.get_by_role("button", name="Compute the preview").click()
        expect(page.get_by_role("heading", name="Regrade 1: “Homework 3”")).to_be_visible()
        table = page.locator('[data-role="regrade-students"]')
        for _ in range(120):  # the worker computes it at low priority; a person reloads
            if table.count():
                break
            page.wait_for_timeout(1000)
            page.reload()
        expect(table).to_be_visible()
        changed = {i for i in range(len(STUDENTS)) if group_of(i) != "same"}
        moved = len(changed) + 2  # and Ana's and Ben's attempts, graded by the older rule
        expect(table.locator("tbody tr")).to_have_count(moved)
        expect(page.locator('[data-role="regrade-summary"]')).to_contain_text(
            f"{moved} scores of {len(set(range(2)) | changed)} students change"
        )
        expect(page.get_by_text(f"{PERFT}: 3 of 3 is now 1 of 1").first).to_be_visible()
        expect(page.locator('svg.chart[role="img"]')).to_be_visible()
        found = axe_violations(page)
        assert not found, found
        page.screenshot(path=str(screenshots / "regrade-preview.png"), full_page=True)
        page.get_by_label("Keep the higher").check()
        page.get_by_role("button", name="Apply").click()
        expect(page.locator('[data-role="regrade-choice"]')).to_contain_text(
            "keep the higher score"
        )
        kept = sum(group_of(i) == "down" for i in range(len(STUDENTS)))
        expect(page.get_by_text(f"{kept} kept")).to_be_visible()
