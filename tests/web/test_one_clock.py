"""One clock: every page a student, a TA and an instructor reach from their dashboards in a
course (crawled by following links, no list of pages kept here) prints its times in the course's
zone, named: in a course in America/Chicago and one in Asia/Kolkata, no time in another zone, no
raw UTC time and no "UTC"."""

from __future__ import annotations

import datetime as dt
import re
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urldefrag, urlsplit

import pytest

from grader.extensions import db
from grader.models import Course
from tests.instructor_support import ALICE, TA, TEACHER, answer, make_room, textbook_key, user
from tests.jobs.engine_support import TIMING_RICH

ZONES = {"America/Chicago": {"CST", "CDT"}, "Asia/Kolkata": {"IST"}}
ROLES = {"student": ALICE, "ta": TA, "instructor": TEACHER}
CAROL = "carol@example.com"  # invited, not yet in: the invite page
# A GET that changes something or leaves the course's pages: never followed.
SKIP = re.compile(r"/logout|/admin|/static/|/api/|/lti/|/docs|mailto:|^https?://")
MAX_PAGES = 400

# A moment as a person reads it: a date, a time of day, then what follows: a zone's letters or
# an offset ("2026-12-04 23:59", "Fri 4 Dec 2026, 23:59 CST", "2026-12-04T23:59:00-06:00").
DATE = r"(?:\d{4}-\d{2}-\d{2}[ T]|\d{1,2} [A-Z][a-z]{2} \d{4},? )"
CLOCK = re.compile(
    DATE + r"\d{1,2}:\d{2}(?::\d{2})?(?:\s*(?P<zone>[A-Z][A-Za-z]{1,4}\b|[+-]\d{2}:?\d{2}|Z\b))?"
)
# Text that shows how to type a date, not a time it tells: examples in code and form fields.
EXAMPLES = ("script", "style", "template", "code", "kbd", "textarea", "pre")


class Text(HTMLParser):
    """A page's text as a person reads it (no attributes, scripts or styles) and its links."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.links: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in EXAMPLES:
            self._hidden += 1
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.links.append(href)

    def handle_endtag(self, tag: str) -> None:
        if tag in EXAMPLES:
            self._hidden = max(0, self._hidden - 1)

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def wrong_times(text: str, allowed: set[str]) -> list[str]:
    """Each time in `text` not in the course's zone: another zone's letters, "UTC", an offset
    of UTC, or no zone at all."""
    found, spans = [], []
    for match in CLOCK.finditer(text):
        spans.append(match.span())
        zone = match.group("zone")
        if zone in allowed or (zone and zone[0] in "+-" and zone not in ("+00:00", "+0000")):
            continue
        found.append(text[max(0, match.start() - 30) : match.end() + 5].replace("\n", " "))
    found += [
        text[max(0, m.start() - 30) : m.end() + 5].replace("\n", " ")
        for m in re.finditer(r"\bUTC\b", text)
        if not any(start <= m.start() < end for start, end in spans)
    ]
    return found


def graded_upload(app: Any, assignment_id: int) -> int:
    """Alice's engine upload in an engine slot of the assignment (its scores not held), graded
    with a stored result, and the slot's tournament: the slot's pages (the staff's lists its
    tournaments with when each was made), the upload's page and its result's."""
    from grader.models import Tournament
    from grader.services.engines import leases, submissions
    from tests.jobs.engine_support import engine_bytes

    with app.app_context():
        slot = submissions.add_engine_slot(assignment_id, suite="quick")
        db.session.add(Tournament(slot_id=slot.id, params={}))
        db.session.commit()
        index = slot.index
        upload = submissions.upload(
            user(ALICE), assignment_id, index, engine_bytes("correct"), "engine.py"
        ).id
        assert leases.claim_submission(upload, "w1") is not None
        assert leases.write_result(
            upload, "w1", score=3.0, max_score=5.0, gradescope={"score": 3.0}, rich=TIMING_RICH
        )
    return upload


def answer_on_paper(app: Any, room: Any) -> str:
    """A printed sheet of Alice's with an answer entered by the TA: its entry page's address,
    which the staff open by typing the sheet's code (no link leads there)."""
    from grader.services.paper import entry
    from tests.services.paper.paper_support import sheets_made, textbook_item

    code, index = textbook_item(app, sheets_made(app, room), ALICE)
    with app.app_context():
        entry.save_entry(user(TA), code, index, textbook_key(), version=0)
    return f"/exams/sheets/{code}/{index}"


def term(app: Any, factory: Any, zone_name: str) -> Any:
    """A course in `zone_name` with something to show at every kind of time: a due date, an
    attempt, a problem report and its answer, an extension (the audit log), a pending invite,
    an engine upload and its result, an answer entered from paper."""
    from grader.services.courses import extensions, invites, roster
    from grader.services.teaching import problem_reports

    room = make_room(app, factory, due_at=dt.datetime(2026, 12, 5, 5, 59))
    with app.app_context():
        db.session.get(Course, room.course_id).timezone = zone_name
        db.session.commit()
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    with app.app_context():
        roster.add_member(None, room.course_id, CAROL, "student")
        room.ids["invite"] = invites.pending_links(room.course_id)[0].token  # type: ignore[assignment]
        problem_reports.report(user(ALICE), room.assignment_id, 0, "The tree looks odd to me.")
        extensions.grant(
            user(TEACHER),
            room.course_id,
            extensions.ExtensionInput(assignment_id=room.assignment_id, email=ALICE, days=2),
        )
    room.ids["upload"] = graded_upload(app, room.assignment_id)
    room.ids["paper"] = answer_on_paper(app, room)  # type: ignore[assignment]
    return room


def crawl(client: Any, *start: str) -> dict[str, str]:
    """Every page reachable from the dashboard by links, and by the redirects a link answers
    with (an engine slot's link leads to its upload page): its address and its text."""
    seen: dict[str, str] = {}
    queue = list(start or ["/dashboard"])
    while queue and len(seen) < MAX_PAGES:
        url = queue.pop(0)
        if url in seen:
            continue
        response = client.get(url)
        response.close()  # a download (a handout) is a file the response holds open
        seen[url] = ""
        kind = response.mimetype
        if response.status_code in (301, 302, 303, 307, 308):
            links = [response.headers.get("Location", "")]
        elif response.status_code != 200 or kind not in ("text/html", "text/csv", "text/calendar"):
            continue
        elif kind != "text/html":
            seen[url] = response.get_data(as_text=True)
            continue
        else:
            page = Text()
            page.feed(response.get_data(as_text=True))
            seen[url] = " ".join(page.parts)
            links = page.links
        for href in links:
            href = urldefrag(href)[0]
            parts = urlsplit(href)
            if not href or parts.netloc or SKIP.search(href) or not href.startswith("/"):
                continue
            if href not in seen and href not in queue:
                queue.append(href)
    return seen


def clock_figures(app: Any, factory: Any, client: Any, auth: Any, zone_name: str) -> dict:
    room = term(app, factory, zone_name)
    figures = {}
    invite = f"/invite/{room.ids['invite']}"
    text = crawl(client, invite)[invite]
    assert "carol@example.com" in text or "Invitation" in text
    figures["invited (no account yet)"] = (
        1,
        len(found := wrong_times(text, ZONES[zone_name])),
        {invite: found} if found else {},
    )
    for role, email in ROLES.items():
        auth.login(email)
        # The staff also open an answer entered from paper (by its sheet's code).
        pages = crawl(client, "/dashboard", *([room.ids["paper"]] if role != "student" else []))
        if role != "student":
            assert pages.get(room.ids["paper"]), role
        # The upload's page with its result was read, by its owner and the staff alike.
        assert pages.get(f"/engines/{room.ids['upload']}"), role
        wrong = {
            url: found
            for url, text in pages.items()
            if (found := wrong_times(text, ZONES[zone_name]))
        }
        figures[role] = (len(pages), sum(len(found) for found in wrong.values()), wrong)
        auth.logout()
    return figures


@pytest.mark.parametrize("zone_name", list(ZONES))
def test_every_page_each_role_reaches_prints_the_courses_clock(
    app, factory, client, auth, zone_name
):
    figures = clock_figures(app, factory, client, auth, zone_name)
    for role, (pages, count, wrong) in figures.items():
        print(f"\n{zone_name} {role}: {pages} pages, {count} times in the wrong zone")
        for url, found in wrong.items():
            print(f"  {url}: {found[:3]}")
    for role, (pages, _, _) in figures.items():
        assert pages > 10 or role.startswith("invited"), (
            role,
            pages,
        )  # the crawl reached the course's pages
    assert {role: wrong for role, (_, _, wrong) in figures.items() if wrong} == {}
