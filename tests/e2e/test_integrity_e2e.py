"""The academic-integrity pages in a real headless Chromium, served by gunicorn with a real
`grader worker`: the instructor asks for each check, follows its progress, reads the ranked
pairs, a pair side by side, and the answers that fit a classmate's tree drawn on both trees;
axe finds nothing serious on them. The screenshots (1280 px wide) are the docs' own
(scripts/screenshots.sh copies them to docs/screenshots/)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.app_support import enrol
from tests.e2e.accessibility import axe_violations
from tests.e2e.e2e_support import INSTRUCTOR, PASSWORD, open_page, sign_in
from tests.harness._helpers import TINY
from tests.instructor_support import add_slot
from tests.live_server import seeding, serve
from tests.services.integrity_support import DISGUISES, ORIGINAL, ROOT

# make test's workers (--dist loadgroup): one of them runs the module, its fixture made once.
pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.xdist_group("test_integrity_e2e")]

STUDENTS = {
    "ana@example.com": lambda: ORIGINAL.read_text(),
    "ben@example.com": lambda: DISGUISES["renamed"](ORIGINAL.read_text()),
    "cleo@example.com": lambda: DISGUISES["reordered"](ORIGINAL.read_text()),
    "dev@example.com": lambda: DISGUISES["recommented"](ORIGINAL.read_text()),
    "eli@example.com": lambda: (ROOT / "tests" / "checkers" / "_independent.py").read_text(),
    "fay@example.com": lambda: (ROOT / "exercises/checkers/template/engine.py").read_text(),
}


def _seed(template: Path, env: dict[str, str]) -> dict[str, int]:
    """A course whose students handed in engines (three disguised copies of Ana's) and answered
    their own trees, Ben with the key of Ana's."""
    from grader.extensions import db
    from grader.gametree import KINDS, Conventions, Tree
    from grader.services import accounts
    from grader.services.courses import courses
    from grader.services.engines import submissions
    from grader.services.teaching import editor
    from grader.services.trees import attempts, exercises

    with seeding(template, env):
        teacher = accounts.create_user(INSTRUCTOR, PASSWORD, "instructor")
        course = courses.create_course("Game search, spring", INSTRUCTOR)
        assignment = editor.create_assignment(
            teacher, course.id, editor.AssignmentInput(title="Homework 3")
        )
        add_slot(
            teacher,
            assignment.id,
            "values",
            "Values of a binary tree",
            params={"depth": 3, "branching": [2, 2]},
        )
        engine = submissions.add_engine_slot(assignment.id, suite="quick").index
        db.session.expire_all()
        keys = {}
        for email, work in STUDENTS.items():
            student = accounts.create_user(email, PASSWORD)
            enrol(course.id, email)
            submissions.upload(student, assignment.id, engine, work().encode(), "engine.py")
            exercise = exercises.slot_exercise(student, assignment.id, 0)
            tree = Tree.from_dict({"tree": exercise.tree, "players": exercise.players})
            keys[email] = (
                exercise.id,
                KINDS["values"].key(tree, Conventions.from_dict(exercise.conventions)),
            )
            attempts.submit(student, exercise.id, keys[email][1])
        ben = accounts.user_by_email("ben@example.com")
        attempts.submit(ben, keys["ben@example.com"][0], keys["ana@example.com"][1])
        seeded = {"assignment": assignment.id, "engine": engine}
    return seeded


@pytest.fixture(scope="module")
def site(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path
) -> Iterator[tuple[str, dict[str, int]]]:
    folder = tmp_path_factory.mktemp("integrity-e2e")
    env = {
        "GRADER_INSTANCE_PATH": str(folder / "instance"),
        "GRADER_DATABASE_URL": f"sqlite:///{folder / 'grader.sqlite3'}",
        "GRADER_SECRET_KEY": "e2e-secret",
        "GRADER_ENGINE_SUITE": str(TINY),  # the uploads are graded first, quickly
        "GRADER_UPLOAD_RATE": "20/600",
    }
    seeded = _seed(migrated_template, env)
    with serve(folder, env, worker=True) as url:
        yield url, seeded


def _no_serious_violations(page: Any) -> None:
    found = axe_violations(page)
    assert not found, found


def test_the_instructor_runs_both_checks_and_reads_them(browser, site, screenshots: Path) -> None:
    url, seeded = site
    with open_page(browser, url, bypass_csp=True) as page:  # axe is injected
        sign_in(page, INSTRUCTOR)
        similarity = (
            f"/instructor/assignments/{seeded['assignment']}/slots/{seeded['engine']}/similarity"
        )
        page.goto(similarity)
        expect(
            page.get_by_text("Nothing is decided automatically: no score changes.")
        ).to_be_visible()
        # The worker's sweep asks for the course's answers check as it starts (the seeded answers
        # are newer than any check), and a course runs one check at a time: while that check is
        # under way the page refuses, naming it, and the instructor asks again, as a person would.
        busy = page.get_by_text("a course runs one integrity check at a time")
        for _ in range(120):
            page.get_by_role("button", name="Compare the engines").click()
            page.wait_for_load_state()
            if not busy.count():
                break
            page.wait_for_timeout(1000)
        # The page follows the worker, then shows the pairs (the uploads are graded first).
        rows = page.locator('[data-role="pairs"] tbody tr[data-a]')
        expect(rows.first).to_be_visible(timeout=180_000)
        top = {rows.nth(i).get_attribute("data-a") for i in range(3)} | {
            rows.nth(i).get_attribute("data-b") for i in range(3)
        }
        assert "ana@example.com" in top
        assert "fay@example.com" not in page.locator('[data-role="pairs"]').inner_text()
        _no_serious_violations(page)
        page.screenshot(path=str(screenshots / "integrity-similarity.png"), full_page=True)

        page.get_by_role("link", name="side by side").first.click()
        expect(page.locator('[data-role="aligned"] pre[data-match]').first).to_be_visible()
        expect(
            page.get_by_text("Nothing is decided automatically: no score changes.")
        ).to_be_visible()
        _no_serious_violations(page)
        page.screenshot(path=str(screenshots / "integrity-pair.png"))

        answers = f"/instructor/assignments/{seeded['assignment']}/answers-matching"
        page.goto(answers)
        # The worker's sweep may have asked for the check by itself already (answers graded
        # since the last one): the button then says "Check again"; either asks for a new one.
        page.get_by_role("button", name=re.compile(r"^Check (the answers|again)$")).click()
        flag = page.locator('[data-role="flag"]')
        expect(flag).to_have_count(1, timeout=120_000)
        assert flag.get_attribute("data-copier") == "ben@example.com"
        assert flag.get_attribute("data-source") == "ana@example.com"
        for side in ("0", "1"):
            expect(flag.locator(f'[data-side="{side}"] .node').first).to_be_visible()
        # Ben's answer is Ana's key: nothing differs on Ana's tree, much on his own.
        expect(flag.locator('[data-side="1"]')).to_have_attribute("data-differ", "0")
        assert int(flag.locator('[data-side="0"]').get_attribute("data-differ")) >= 3
        _no_serious_violations(page)
        page.screenshot(path=str(screenshots / "integrity-answers.png"), full_page=True)
