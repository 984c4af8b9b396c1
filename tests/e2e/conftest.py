"""A real server and a real headless Chromium for the page tests.

The database is a temporary SQLite file brought to the latest schema by the migrations and seeded
through the services (as the CLI does); gunicorn serves the app from it in a subprocess; Playwright
drives Debian's `chromium-headless-shell`. Screenshots go to a temporary folder (or
`$GRADER_E2E_SCREENSHOTS`, a subfolder per pytest-xdist worker).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.app_support import enrol
from tests.e2e.ax_support import AX_CHANCE, AX_TREES
from tests.e2e.chance_support import BOUNDS, STAR1_CUT, seed_chance
from tests.e2e.e2e_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    INSTRUCTOR,
    KEYS,
    LEARNER,
    PASSWORD,
    STUDENT,
    LiveServer,
    open_page,
    server_env,
    sign_in,
    signed_in,
)
from tests.e2e.kinds_support import seed_answer_kinds
from tests.e2e.site_support import Site
from tests.e2e.site_support import seed as seed_site
from tests.e2e.staff_support import seed_staff_course
from tests.e2e.typed_support import TYPED_VALUES
from tests.live_server import from_template, seeding, serve


def _seed(template: Path, env: dict[str, str]) -> tuple[int, dict[str, int], str]:
    """A copy of the migrated `template`, then users, a course, an assignment and practice
    exercises made by the services, and the course of answers of every kind (its drill-down
    page's path is returned last)."""
    from grader.extensions import db
    from grader.gametree import GeneratorParams, generate
    from grader.services import accounts
    from grader.services.courses import courses
    from grader.services.trees import exercises

    with seeding(template, env):
        accounts.create_user(INSTRUCTOR, PASSWORD, "instructor")
        accounts.create_user(STUDENT, PASSWORD)
        course = courses.create_course("Search 101", INSTRUCTOR)
        enrol(course.id, STUDENT)
        accounts.create_user(LEARNER, PASSWORD)
        enrol(course.id, LEARNER)
        assignment = courses.create_assignment(course.id, "standard")
        student = accounts.user_by_email(STUDENT)
        six_levels = generate(GeneratorParams(depth=5, branching=(2, 3), min_cutoffs=2), "e2e-6")
        trees = {
            "three-levels": [[3, 12, 8], [2, 4, 6], [14, 5, 2]],
            "six-levels": six_levels.to_nested(),
        }
        practice = {
            name: exercises.create_practice(student, "prune", tree=nested).id
            for name, nested in trees.items()
        }
        # Depth 5, branching 3: 243 leaves, the size the pages must stay usable at.
        five = generate(GeneratorParams(depth=5, branching=(3, 3), min_cutoffs=2), "e2e-243")
        for kind in ("prune", "bounds", "values"):
            practice[f"243-{kind}"] = exercises.create_practice(
                student, kind, tree=five.to_nested()
            ).id
        # Its own (no other test answers it): the replay is read once, from its attempts.
        practice["replay-once"] = exercises.create_practice(
            student, "prune", tree=trees["three-levels"]
        ).id
        # Its own: the tree's words for assistive technology, in every state.
        for name in ("aria", "aria-keys"):
            practice[name] = exercises.create_practice(
                student, "prune", tree=trees["three-levels"]
            ).id
        # Their own: each kind's tree as Chromium exposes it, untouched by any other test.
        for kind, nested in AX_TREES.items():
            practice[f"ax-{kind}"] = exercises.create_practice(student, kind, tree=nested).id
        practice["ax-chance"] = exercises.create_practice(
            student,
            "values",
            tree=AX_CHANCE.to_nested(),
            players=list(AX_CHANCE.players),
            conventions=BOUNDS,
        ).id
        practice["bounds"] = exercises.create_practice(
            student, "bounds", tree=[[[2, 3], [5, 9]], [[0, 1], [7, 5]]]
        ).id
        practice["leaf-order"] = exercises.create_practice(
            student, "leaf-order", tree=[[[2, 3], [5, 9]], [[0, 1], [7, 5]]]
        ).id
        practice["best-order"] = exercises.create_practice(
            student, "best-order", tree=[[[2, 3], [5, 9]], [[0, 1], [7, 5]]]
        ).id
        practice.update(seed_chance(student))
        # Their own: the colours of every state, measured as drawn (tests/e2e/test_contrast.py).
        practice["contrast"] = exercises.create_practice(
            student, "prune", tree=trees["three-levels"]
        ).id
        practice["contrast-values"] = exercises.create_practice(
            student, "values", tree=trees["three-levels"]
        ).id
        practice["obscured"] = exercises.create_practice(
            student, "prune", tree=trees["six-levels"]
        ).id
        practice["session"] = exercises.create_practice(
            student, "values", tree=trees["three-levels"]
        ).id
        practice["forced"] = exercises.create_practice(
            student, "prune", tree=trees["three-levels"]
        ).id
        # Its own: a node marked and focused on a page no test has submitted (the worker's
        # tests share one server, and test_exercise_page submits "three-levels").
        practice["focus-ring"] = exercises.create_practice(
            student, "prune", tree=trees["three-levels"]
        ).id
        practice["forced-chance"] = exercises.create_practice(
            student,
            "prune",
            tree=STAR1_CUT,
            players=["max", "chance"],
            conventions=BOUNDS,
        ).id
        practice["contrast-chance"] = exercises.create_practice(
            student,
            "prune",
            tree=STAR1_CUT,
            players=["max", "chance"],
            conventions=BOUNDS,
        ).id
        # Typed back as the page prints numbers (−5, 14 / 3, −∞): their own exercises.
        practice["typed-values"] = exercises.create_practice(
            student, "values", tree=TYPED_VALUES
        ).id
        practice["typed-bounds"] = exercises.create_practice(
            student, "bounds", tree=[[[-2, -3], [5, 9]], [[0, 1], [7, 5]]]
        ).id
        assignment_id = assignment.id
        # The keyboard-only runs' own course: every kind, on MAX/MIN and chance trees.
        accounts.create_user(KEYS, PASSWORD)
        accounts.create_user(f"teacher-{KEYS}", PASSWORD, "instructor")
        keys_course = courses.create_course("Keyboard 101", f"teacher-{KEYS}")
        enrol(keys_course.id, KEYS)
        for preset in ("standard", "challenge", "intro", "expectimax"):
            courses.create_assignment(keys_course.id, preset)
        drill_down, examples = seed_answer_kinds(INSTRUCTOR)
        practice.update({f"example {title}": id_ for title, id_ in examples.items()})
        seed_staff_course()
        db.engine.dispose()  # checkpoints the WAL before the server opens the file
    return assignment_id, practice, drill_down


@pytest.fixture(scope="session")
def seeded_course(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> tuple[Path, tuple[int, dict[str, int], str]]:
    """`_seed`'s database and what it returned, made once per run: the first pytest-xdist worker
    to ask seeds it, under a lock, in the folder every worker of the run shares (the parent of
    each one's own base folder, gw0, gw1, ...); the others wait and read it. The database holds
    nothing of the worker that made it (no port, path or secret: the servers' settings come from
    their own environment), so each worker's server runs on a copy of it."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "e2e-course"
    shared.mkdir(exist_ok=True)
    made = shared / "seeded.json"
    with (shared / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not made.exists():
            seeded = _seed(request.getfixturevalue("migrated_template"), server_env(shared))
            (shared / "seeded.tmp").write_text(json.dumps(seeded))
            (shared / "seeded.tmp").rename(made)
    assignment_id, practice, drill_down = json.loads(made.read_text())
    return shared / "grader.sqlite3", (assignment_id, practice, drill_down)


@pytest.fixture(scope="session")
def live_server(
    tmp_path_factory: pytest.TempPathFactory,
    seeded_course: tuple[Path, tuple[int, dict[str, int], str]],
) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("e2e")
    env = server_env(folder)
    database, (assignment_id, practice, drill_down) = seeded_course
    from_template(database, env)
    with serve(folder, env) as url:
        yield LiveServer(url, assignment_id, practice, drill_down)


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory, migrated_template: Path) -> Iterator[Site]:
    """The site the page sweeps visit (tests/e2e/site_support.py), engines graded."""
    folder = tmp_path_factory.mktemp("site")
    env = server_env(folder)
    seeded = seed_site(migrated_template, env)
    with serve(folder, env) as url:
        seeded.url = url
        yield seeded


@pytest.fixture(scope="session")
def driver() -> Iterator[Any]:
    """Playwright's one driver of the worker: a test that needs a browser of its own (other
    flags) launches it here, since a second `sync_playwright()` in a process refuses to start."""
    if not Path(CHROMIUM).exists():
        # Fail, never skip: `make test` installs it, so its absence is a broken setup.
        pytest.fail(f"{CHROMIUM} is missing (scripts/system-deps.sh installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(driver: Any) -> Iterator[Any]:
    chromium = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    yield chromium
    chromium.close()


@pytest.fixture
def page(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    with open_page(browser, live_server.url) as tab:
        yield tab


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wanted = os.environ.get("GRADER_E2E_SCREENSHOTS")
    if wanted:
        # Under pytest-xdist each worker clears and fills its own subfolder (gw0, gw1, ...).
        folder = Path(wanted) / os.environ.get("PYTEST_XDIST_WORKER", "")
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        return folder
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="session")
def student_cookies(browser: Any, live_server: LiveServer) -> list[dict[str, Any]]:
    """The student's session cookies, from one sign-in through the login form: the tests that
    start signed in take them instead of signing in again (each in a fresh context)."""
    with open_page(browser, live_server.url) as tab:
        sign_in(tab)
        cookies: list[dict[str, Any]] = tab.context.cookies()
    return cookies


@pytest.fixture
def student(page: Any, student_cookies: list[dict[str, Any]]) -> Any:
    """The page, signed in as the student (`student_cookies`), on the student's landing page."""
    signed_in(page, student_cookies).goto("/")
    return page
