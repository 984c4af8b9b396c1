"""Student pages speak to students: no API path (`GET /api/...`) and no operator's or
instructor's command (`grader tree calibrate`, `grader course add`) in what a page shows. Those
belong on the staff's pages, the API's own document and the docs.

The one exception is the engine assignment's kit: its slot page and handouts name the commands
of the package a student installs to test an engine (`grader checkers ...`, `grader engine
check`), which the assignment asks them to run; they may appear there and nowhere else.

Every student page is found by following the links of a student's pages from the dashboard (one
page per route pattern), as the accessibility sweep does in a browser; the scripts' own strings
are read too, since the exercise and engine pages write text from them."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from flask import Flask

from grader import cli
from grader.gametree import KINDS, Conventions, Tree

STATIC = Path(__file__).resolve().parents[2] / "grader" / "web" / "static"
TESTS = Path(__file__).resolve().parents[1]
# Downloads and actions, not pages.
SKIP = re.compile(r"\.(csv|test|py|zip|json)$|/api/|/static/|/logout|/download$|/starter$")
API_PATH = re.compile(r"/api\b")
# The kit's commands, which the engine assignment asks students to run.
KIT = re.compile(r"\bgrader (checkers [a-z]+|engine check)\b")
KIT_PAGES = re.compile(r"/assignments/\d+/slots/\d+/engine(/[a-z]+)?$")


def _commands(app: Flask) -> re.Pattern[str]:
    """`grader` followed by any of the command's groups or commands, read off the CLI itself
    (the groups of `main` and those `init_app` adds to an app)."""
    cli.init_app(app)
    names = "|".join(sorted({*cli.main.commands, *app.cli.commands}))
    return re.compile(rf"\bgrader ({names})\b")


class _Text(HTMLParser):
    """What a page shows: its text outside scripts and styles (attributes are not shown)."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.links: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in ("script", "style"):
            self._hidden += 1
        if tag == "a":
            found = dict(attrs)
            if found.get("href") and "download" not in found:
                self.links.append(found["href"])

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.text.append(data)


def _pattern(path: str) -> str:
    """One page per route pattern; an assignment's slots each (an engine slot's link is the
    same pattern as an exercise's, and leads to its own page)."""
    return path if path.startswith("/assignments/") else re.sub(r"\d+", "N", path)


@pytest.fixture
def student_site(app, factory, auth):
    """A course with the standard assignment and an engine slot; the student has answered, made
    a practice exercise and uploaded an engine (waiting for a worker)."""
    from grader.services import accounts
    from grader.services.engines import submissions
    from grader.services.trees import attempts, exercises

    room = factory.classroom()
    with app.app_context():
        slot = submissions.add_engine_slot(room["assignment_id"], suite="quick")
        student = accounts.user_by_email("student@example.com")
        first = exercises.slot_exercise(student, room["assignment_id"], 0)
        attempts.submit(student, first.id, {"pruned": [], "value": 0})
        practice = exercises.create_practice(student, "leaf-order", tree=[[3, 12], [8, 2]])
        tree = Tree.from_nested([[3, 12], [8, 2]])
        attempts.submit(student, practice.id, KINDS["leaf-order"].key(tree, Conventions()))
        engine = (TESTS / "harness" / "engines" / "correct.py").read_bytes()
        submissions.upload(student, room["assignment_id"], slot.index, engine, "engine.py")
    auth.login("student@example.com")
    return room


def test_no_student_page_shows_an_api_path_or_a_staff_command(app, client, student_site):
    commands = _commands(app)
    queue = ["/dashboard", "/practice", "/practice/game", "/progress", "/attempts", "/account"]
    seen: set[str] = set()
    visited: list[str] = []
    found: list[str] = []
    while queue and len(visited) < 60:
        path = queue.pop(0)
        if _pattern(path) in seen:
            continue
        seen.add(_pattern(path))
        response = client.get(path, follow_redirects=True)
        path = response.request.path
        if response.status_code != 200 or "text/html" not in response.content_type:
            continue
        visited.append(path)
        page = _Text()
        page.feed(response.get_data(as_text=True))
        text = " ".join(" ".join(page.text).split())
        if API_PATH.search(text):
            found.append(f"{path}: an API path: …{text[API_PATH.search(text).start() - 40 :][:90]}")
        for match in commands.finditer(text):
            if KIT.match(text, match.start()) and KIT_PAGES.search(path):
                continue
            found.append(f"{path}: a command: …{text[match.start() - 40 :][:90]}")
        for href in page.links:
            parts = urlsplit(href)
            if parts.netloc or SKIP.search(parts.path) or not parts.path.startswith("/"):
                continue
            if parts.path.startswith("/instructor"):
                continue
            queue.append(parts.path)
    # The crawl reached the student's pages: dashboard, assignment, exercise, practice, a tree
    # from a game, progress, attempts, account, the engine slot, its handouts and the results.
    patterns = {re.sub(r"\d+", "N", p) for p in visited}
    for expected in [
        "/dashboard",
        "/assignments/N",
        "/exercises/N",
        "/practice",
        "/practice/game",
        "/progress",
        "/attempts",
        "/account",
        "/assignments/N/slots/N/engine",
        "/assignments/N/slots/N/engine/assignment",
        "/assignments/N/slots/N/engine/rules",
        "/engines/N",
    ]:
        assert expected in patterns, (expected, sorted(patterns))
    assert not found, "\n".join(found)


def test_the_pages_scripts_write_no_api_path_or_command(app) -> None:
    """The scripts take every URL from the page (data attributes, the API's own links): no
    string they could put on a page names an API path or a `grader` command."""
    commands = _commands(app)
    literal = re.compile(r"""(["'`])((?:\\.|(?!\1).)*)\1""")
    for script in sorted(STATIC.rglob("*.js")):
        for number, line in enumerate(script.read_text().splitlines(), 1):
            if line.lstrip().startswith(("//", "*", "/*", "import ")):
                continue
            for _, text in literal.findall(line):
                assert not API_PATH.search(text), f"{script.name}:{number}: {text}"
                assert not commands.search(text), f"{script.name}:{number}: {text}"
