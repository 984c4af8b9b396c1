"""A term's deadlines in Chromium: a course made in America/New_York, refused forms shown again
as typed with their errors as the fields' descriptions, an accommodations list imported (one bad
row shown, then fixed), a deadline on the day New York's clocks change read by
a student in New York and one in Berlin (their browsers' own zones), a student with an extension
submitting after the class's deadline and not late, and scores held, then released."""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.app_support import enrol
from tests.e2e.e2e_support import INSTRUCTOR, PASSWORD, server_env, sign_in
from tests.instructor_support import add_textbook_slot
from tests.live_server import environment, seeding, serve

NY, BERLIN, ANA = "ny@example.com", "berlin@example.com", "ana@example.com"


@pytest.fixture(scope="module")
def term(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path
) -> Iterator[dict[str, Any]]:
    from grader.services import accounts

    folder = tmp_path_factory.mktemp("term")
    env = server_env(folder)
    with seeding(migrated_template, env):
        accounts.create_user(INSTRUCTOR, PASSWORD, "instructor")
        for email in (NY, BERLIN, ANA):
            accounts.create_user(email, PASSWORD)
    with serve(folder, env) as url:
        yield {"url": url, "env": env}


@contextlib.contextmanager
def _in_app(env: dict[str, str]) -> Iterator[Any]:
    """The app on the server's database, in this process (what the operator's CLI does)."""
    from grader import create_app
    from grader.extensions import db

    with environment(env):
        app = create_app()
        with app.app_context():
            yield app
            db.session.remove()
            db.engine.dispose()


@contextlib.contextmanager
def _browse(browser: Any, url: str, zone: str, refused: tuple[str, ...] = ()) -> Iterator[Any]:
    """A fresh context whose clock is in `zone`; any script error fails the test."""
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, base_url=url, timezone_id=zone
    )
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on(
        "console",
        lambda m: (
            errors.append(m.text)
            if m.type == "error" and not (m.location.get("url", "").endswith(refused))
            else None
        ),
    )
    yield tab
    context.close()
    assert not errors, errors


def _seed_assignments(env: dict[str, str], course_id: int) -> dict[str, int]:
    from grader.models import utcnow
    from grader.services.accounts import user_by_email
    from grader.services.courses import zones
    from grader.services.teaching import editor

    with _in_app(env):
        for email in (NY, BERLIN, ANA):
            enrol(course_id, email)
        teacher = user_by_email(INSTRUCTOR)
        made = {}
        for title, due, hold in (
            # 23:59 on the day New York's clocks go forward (Berlin's go three weeks later).
            ("Week 10: the clocks change", zones.parse("2027-03-14 23:59", "America/New_York"), 1),
            ("Homework 4", utcnow() - dt.timedelta(hours=2), 0),  # its class deadline passed
        ):
            assignment = editor.create_assignment(
                teacher,
                course_id,
                editor.AssignmentInput(
                    title=title,
                    due_at=due,
                    hold_scores=bool(hold),
                    scores_release_at=zones.parse("2027-03-16 09:00", "America/New_York")
                    if hold
                    else None,
                ),
            )
            add_textbook_slot(teacher, assignment.id, "Prune the textbook tree", attempts_allowed=3)
            made[title] = assignment.id
    return made


def _shot(page: Any, screenshots: Path, name: str) -> None:
    page.screenshot(path=str(screenshots / f"term-{name}.png"), full_page=True)


def _answer_textbook(page: Any) -> None:
    expect(page.locator('[data-role="tree"] .node').first).to_be_visible()
    for path in ("1.1", "1.2"):
        page.locator(f'[data-role="tree"] .node[data-path="{path}"]').click()
    page.get_by_label("Value of the root A").fill("3")
    page.get_by_role("button", name="Submit").click()


def test_a_term_in_new_york(browser, term, screenshots) -> None:
    url, env = term["url"], term["env"]
    # 1. The instructor makes a course in America/New_York.
    # The accommodations list with a bad row, a skipped time and a group naming no student come
    # back as a 422 (each shown with its error).
    refused = ("/extensions/import", "/join-code/expire", "/groups")
    with _browse(browser, url, "America/New_York", refused=refused) as page:
        sign_in(page, INSTRUCTOR)
        page.goto("/instructor/")
        page.get_by_label("Course name").fill("Search 201")
        page.get_by_label(re.compile("^Time zone")).fill("America/New_York")
        page.get_by_role("button", name="Create course").click()
        zone_card = page.locator('[data-role="timezone"]')
        expect(zone_card).to_contain_text("Dates are typed and shown in America/New_York")
        course_id = int(re.search(r"/courses/(\d+)", page.url).group(1))
        _shot(page, screenshots, "course-in-new-york")
        made = _seed_assignments(env, course_id)

        # 1b. A refused form comes back as typed, its error the field's description, the field
        # focused: a join code expiring at a time New York's clocks skip, a group with a ghost.
        expiry = page.get_by_label(re.compile(r"^Expires at \(America/New_York\)"))
        expiry.fill("2027-03-14T02:30")
        page.get_by_role("button", name="Set expiry").click()
        expiry = page.get_by_label(re.compile(r"^Expires at \(America/New_York\)"))
        expect(expiry).to_have_accessible_description(
            re.compile("2027-03-14 02:30 does not exist in America/New_York")
        )
        expect(expiry).to_have_value("2027-03-14T02:30")
        expect(expiry).to_be_focused()
        page.goto(f"/instructor/courses/{course_id}/roster")
        page.get_by_text("Name a group of students").click()
        page.get_by_label("Group name").fill("Extra time")
        page.get_by_label("Its students' e-mails").fill(f"{ANA}\nghost@example.com")
        page.get_by_role("button", name="Save the group").click()
        emails = page.get_by_label("Its students' e-mails")
        expect(emails).to_be_visible()  # its <details> open
        expect(emails).to_have_accessible_description(
            re.compile("ghost@example.com is not a student of this course")
        )
        expect(emails).to_have_value(f"{ANA}\nghost@example.com")
        expect(page.get_by_label("Group name")).to_have_value("Extra time")
        _shot(page, screenshots, "group-refused")

        # 2. An accommodations list: a bad row is named beside the list, which keeps what was
        # typed, and nothing is applied.
        page.goto(f"/instructor/assignments/{made['Homework 4']}#extensions")
        box = page.get_by_label(re.compile("^Accommodations as CSV"))
        typed = "email,days or date,extra attempts\nana@example.com,3,1\nghost@example.com,2\n"
        box.fill(typed)
        page.get_by_role("button", name="Import").click()
        box = page.get_by_label(re.compile("^Accommodations as CSV"))
        expect(box).to_have_accessible_description(
            re.compile("line 3: ghost@example.com is not a student of this course")
        )
        expect(box).to_have_value(typed)
        expect(page.locator('[data-role="no-extensions"]')).to_be_visible()
        _shot(page, screenshots, "accommodations-bad-row")
        page.get_by_label(re.compile("^Accommodations as CSV")).fill(
            "email,days or date,extra attempts\nana@example.com,3,1\n"
        )
        page.get_by_role("button", name="Import").click()
        table = page.locator('[data-role="extensions"]')
        expect(table).to_contain_text("ana@example.com")
        expect(table).to_contain_text("(America/New_York)")
        _shot(page, screenshots, "accommodations-applied")

    # 3. The deadline on the day New York's clocks change, in New York and in Berlin.
    words = "Sun 14 Mar 2027, 23:59 EDT (America/New_York)"
    with _browse(browser, url, "America/New_York") as page:
        sign_in(page, NY)
        page.goto("/dashboard")
        due = page.locator('[data-role="due"]', has_text="23:59 EDT").first
        expect(due).to_contain_text(words)
        expect(due.locator(".local-time")).to_have_count(0)  # the course's zone is theirs
        _shot(page, screenshots, "deadline-in-new-york")
    with _browse(browser, url, "Europe/Berlin") as page:
        sign_in(page, BERLIN)
        page.goto("/dashboard")
        due = page.locator('[data-role="due"]', has_text="23:59 EDT").first
        expect(due).to_contain_text(words)
        # Berlin is still on CET that night: 03:59 UTC is 04:59 there, on the Monday.
        expect(due.locator(".local-time")).to_have_text(
            re.compile(r"your time: Mon 15 Mar 2027, 04:59 (CET|GMT\+1), Europe/Berlin")
        )
        _shot(page, screenshots, "deadline-in-berlin")

    # 4. A student with an extension submits after the class's deadline, and is not late.
    with _browse(browser, url, "America/New_York") as page:
        sign_in(page, ANA)
        page.goto(f"/assignments/{made['Homework 4']}")
        expect(page.locator('[data-role="due"]')).to_contain_text("Your due date:")
        expect(page.locator('[data-role="due"]')).to_contain_text("extended")
        page.get_by_role("link", name="Prune the textbook tree").click()
        expect(page.locator('[data-role="due"]')).to_contain_text("Your due date")
        _answer_textbook(page)
        expect(page.locator('[data-role="score"]')).to_contain_text("Score: 1.00")
        expect(page.locator('[data-role="scoring"]')).not_to_contain_text("Late")
        _shot(page, screenshots, "extension-not-late")
    # Without one, the class's deadline holds.
    with _browse(browser, url, "America/New_York", refused=("/attempts",)) as page:
        sign_in(page, NY)
        page.goto(f"/assignments/{made['Homework 4']}/slots/0")
        _answer_textbook(page)
        expect(page.get_by_text(re.compile("your due date .* has passed"))).to_be_visible()

    # 5. Scores held, then released.
    with _browse(browser, url, "America/New_York") as page:
        sign_in(page, NY)
        page.goto(f"/assignments/{made['Week 10: the clocks change']}/slots/0")
        _answer_textbook(page)
        held = page.locator('[data-role="held"]')
        expect(held).to_have_text(
            "Submitted; your score is released on Tue 16 Mar 2027, 09:00 EDT (America/New_York)."
        )
        expect(page.locator('[data-role="score"]')).to_have_count(0)
        _shot(page, screenshots, "score-held")
        with _in_app(env):  # the release date comes
            import sqlalchemy as sa

            from grader.extensions import db
            from grader.models import Assignment, utcnow

            db.session.execute(
                sa.update(Assignment)
                .where(Assignment.id == made["Week 10: the clocks change"])
                .values(scores_release_at=utcnow() - dt.timedelta(seconds=1))
            )
            db.session.commit()
        page.goto(f"/assignments/{made['Week 10: the clocks change']}")
        expect(page.get_by_role("cell", name=re.compile("score 100%"))).to_be_visible()
        _shot(page, screenshots, "score-released")
