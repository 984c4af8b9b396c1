"""A student's deadlines as an iCalendar feed behind a secret URL of their own, which a reset
replaces; read by icalendar (a parser no one here wrote)."""

from __future__ import annotations

import datetime as dt
import re

import icalendar

from grader.services.courses import courses, extensions
from tests.app_support import csrf_from
from tests.instructor_support import ALICE, BOB, TEACHER, make_room, user


def _feed_url(client) -> str:
    page = client.get("/dashboard").get_data(as_text=True)
    url = re.search(r'value="(http[^"]+\.ics)" data-role="calendar-url"', page)
    assert url, page
    return url.group(1).split("localhost", 1)[1]


def test_the_feed_holds_the_students_own_deadlines_and_parses(app, client, auth, factory):
    room = make_room(app, factory, due_at=dt.datetime(2026, 11, 2, 4, 59))
    with app.app_context():
        courses.set_timezone(room.course_id, "America/New_York")
        extensions.grant(
            user(TEACHER),
            room.course_id,
            extensions.ExtensionInput(
                assignment_id=room.assignment_id, email=ALICE, slot_index=1, days=2
            ),
        )
    auth.login(ALICE)
    url = _feed_url(client)
    response = client.get(url)
    assert response.status_code == 200 and response.mimetype == "text/calendar"
    assert b"\r\n" in response.data and all(
        len(line) <= 75 for line in response.data.split(b"\r\n")
    )
    parsed = icalendar.Calendar.from_ical(response.data)
    events = {str(e["SUMMARY"]): e for e in parsed.walk("VEVENT")}
    assert set(events) == {
        "Due: Homework 1 (Search 101)",
        "Due: Homework 1: Values (Search 101)",
    }
    whole = events["Due: Homework 1 (Search 101)"]
    assert whole.decoded("DTSTART") == dt.datetime(2026, 11, 2, 4, 59, tzinfo=dt.UTC)
    assert str(whole["DESCRIPTION"]) == "Due Sun 1 Nov 2026, 23:59 EST (America/New_York)"
    mine = events["Due: Homework 1: Values (Search 101)"]
    assert mine.decoded("DTSTART") == dt.datetime(2026, 11, 4, 4, 59, tzinfo=dt.UTC)
    assert "(your extension)" in str(mine["DESCRIPTION"])
    # A reset: the old address stops working, the new one works.
    token = csrf_from(client.get("/dashboard").get_data(as_text=True))
    client.post("/calendar/reset", data={"csrf_token": token})
    new_url = _feed_url(client)
    assert new_url != url
    assert client.get(url).status_code == 404
    assert client.get(new_url).status_code == 200
    auth.logout()
    # Another student's feed is not reached by changing the account number.
    auth.login(BOB)
    bobs = _feed_url(client)
    other = re.sub(r"/calendar/\d+/", f"/calendar/{room.ids[ALICE]}/", bobs)
    assert client.get(other).status_code == 404
    bob_events = icalendar.Calendar.from_ical(client.get(bobs).data).walk("VEVENT")
    assert [str(e["SUMMARY"]) for e in bob_events] == ["Due: Homework 1 (Search 101)"]
