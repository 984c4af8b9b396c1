"""The site every page sweep visits (tests/e2e/test_accessibility.py):
a course seeded through the services with something on every page, and the sweep itself, which
finds the pages by following each role's links (one page per route pattern: /exercises/1
stands for /exercises/N), so a new page is checked as soon as a link leads to it.

The seed grades two engine uploads in the real sandbox, in-process through the worker's own job
(`grader.jobs.grade`), on the slot's quick suite: the tie-rule engine of issue 24 (its results
page has failed tests to group and passed ones to fold) and an engine that crashes at import;
both opted in, so a tournament of the two is started (its games stay queued: no worker runs).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.app_support import enrol
from tests.e2e.e2e_support import PASSWORD, Traffic, sign_in
from tests.jobs.engine_support import engine_bytes, zip_bytes
from tests.live_server import seeding

TESTS = Path(__file__).resolve().parents[1]
ENGINE = TESTS / "harness" / "engines" / "correct.py"
STUDENT = "ada@example.com"
RIVAL = "bob@example.com"  # the second engine of the tournament
TA = "ta@example.com"
INSTRUCTOR = "prof@example.com"
ROLES = {"student": STUDENT, "ta": TA, "instructor": INSTRUCTOR}
WIDTHS = (1280, 390)
# Downloads and actions, not pages.
SKIP = re.compile(r"\.(csv|test|py|zip|json)$|/api/|/static/|/logout")


@dataclass
class Site:
    url: str
    off_label: str = ""  # the node where the seeded bounds answer differs from the key
    tie_strict: int = 0  # the graded submission of the tie-rule engine
    tournament: int = 0


def tie_strict_zip() -> bytes:
    """The engine whose only bug is the tie rule (it imports the correct engine's code)."""
    return zip_bytes({"engine.py": engine_bytes("tie_strict"), "correct.py": engine_bytes()})


def seed(template: Path, env: dict[str, str]) -> Site:
    """Users, a course with graded attempts, engines graded in the sandbox and a tournament;
    the Site without its URL (the server starts after)."""
    from grader import jobs
    from grader.extensions import db
    from grader.gametree import KINDS, Conventions, Tree
    from grader.models import DONE, Submission
    from grader.services import accounts
    from grader.services.courses import courses, roster
    from grader.services.engines import submissions, tournaments
    from grader.services.trees import attempts, exercises

    with seeding(template, env):
        accounts.create_user(INSTRUCTOR, PASSWORD, "instructor")
        accounts.create_user(STUDENT, PASSWORD)
        accounts.create_user(RIVAL, PASSWORD)
        accounts.create_user(TA, PASSWORD)
        course = courses.create_course("Search 101", INSTRUCTOR)
        enrol(course.id, STUDENT)
        enrol(course.id, RIVAL)
        enrol(course.id, TA, "ta")
        # Invitations not yet accepted: a roster row "invite pending", and another course's
        # invitation on the student's dashboard.
        roster.add_member(None, course.id, "invited@example.com")
        roster.add_member(None, courses.create_course("Search 201").id, STUDENT)
        assignment = courses.create_assignment(course.id, "standard")
        slot = submissions.add_engine_slot(assignment.id, suite="quick")
        student = accounts.user_by_email(STUDENT)
        # A graded attempt (the gradebook, statistics and the student's detail show it),
        # a practice exercise and an engine upload waiting for a worker.
        first = exercises.slot_exercise(student, assignment.id, 0)
        attempts.submit(student, first.id, {"pruned": [], "value": 0})
        # A bounds answer off at one node only: the detail must make that node stand out.
        challenge = courses.create_assignment(course.id, "challenge")
        bounds = exercises.slot_exercise(student, challenge.id, 1)
        tree = Tree.from_nested(bounds.tree, bounds.players)
        key = KINDS["bounds"].key(tree, Conventions.from_dict(bounds.conventions))["bounds"]
        off = max(key, key=len)  # the deepest internal node the key gives bounds for
        alpha, beta = key[off]
        wrong = {**key, off: [alpha - 2 if isinstance(alpha, int) else -99, beta]}
        attempts.submit(student, bounds.id, {"bounds": wrong})
        practice = exercises.create_practice(
            student, "bounds", tree=[[[2, 3], [5, 9]], [[0, 1], [7, 5]]]
        )
        attempts.submit(student, practice.id, {"bounds": {"": [0, 1]}})
        db.session.expire_all()  # the assignment was loaded before its engine slot
        graded = submissions.upload(
            student, assignment.id, slot.index, tie_strict_zip(), "engine.zip", tournament=True
        ).id
        rival = accounts.user_by_email(RIVAL)
        crash = engine_bytes("crash_at_import")
        other = submissions.upload(
            rival, assignment.id, slot.index, crash, "engine.py", tournament=True
        ).id
        for submission_id in (graded, other):
            for _ in range(2):  # the first verdict's run, then the rest's (none if it crashed)
                outcome = jobs.grade_submission_job(submission_id, "e2e-seed")
                assert outcome in ("done", "not claimed"), outcome
            assert db.session.get(Submission, submission_id).status == DONE
        submissions.upload(student, assignment.id, slot.index, ENGINE.read_bytes(), "engine.py")
        teacher = accounts.user_by_email(INSTRUCTOR)
        tournament = tournaments.start(teacher, assignment.id, slot.index).id
        return Site("", tree.labels()[off], graded, tournament)


def pattern(path: str) -> str:
    return re.sub(r"\d+", "N", path)


def links(page: Any, origin: str) -> list[str]:
    hrefs = page.eval_on_selector_all("a[href]:not([download])", "links => links.map(a => a.href)")
    out = []
    for href in hrefs:
        parts = urlsplit(href)
        if f"{parts.scheme}://{parts.netloc}" != origin or SKIP.search(parts.path):
            continue
        out.append(parts.path + (f"?{parts.query}" if parts.query else ""))
    return out


def start_pages(page: Any, who: str) -> list[str]:
    """Signs `who` in (a role of ROLES, or "anonymous"); the pages a sweep starts from."""
    if who == "anonymous":
        return ["/login", "/signup", "/no-such-page"]
    sign_in(page, ROLES[who])
    start = [urlsplit(page.url).path, "/practice", "/attempts"]
    if who != "student":
        start.append("/instructor/")
    return start


def open_at(page: Any, traffic: Traffic, path: str, width: int) -> bool:
    """The page at that width, loaded and its requests settled; False for a file (not a
    page). The window is resized first only when it is not at that width already."""
    if page.viewport_size != {"width": width, "height": 900}:
        page.set_viewport_size({"width": width, "height": 900})
    response = page.goto(path)
    assert response is not None
    if "text/html" not in (response.headers.get("content-type") or ""):
        return False
    traffic.settle()
    return True


def sweep(
    tabs: dict[int, Any],
    origin: str,
    start: list[str],
    check: Callable[[Any, str, int], list[str]],
    limit: int = 40,
) -> tuple[list[str], list[str]]:
    """Visits start and the pages their links lead to (one per route pattern), running `check`
    on each at every width of WIDTHS, in that width's own tab of one browser context (so no
    page is laid out again at the other width before it is left); the links followed are the
    page's at the last width. The pages visited and the problems found."""
    seen: set[str] = set()
    queue = list(start)
    visited: list[str] = []
    problems: list[str] = []
    while queue and len(visited) < limit:
        path = queue.pop(0)
        if pattern(path) in seen:
            continue
        seen.add(pattern(path))
        visited.append(path)
        for width in WIDTHS:
            problems += check(tabs[width], path, width)
        queue += [link for link in links(tabs[WIDTHS[-1]], origin) if pattern(link) not in seen]
    return visited, problems
