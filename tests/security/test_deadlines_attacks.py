"""Attacks on a term's deadlines: another student's calendar feed, a time zone that is a path,
a TA or student granting extensions, hostile rows in an accommodations list, another course's
extension."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import Extension
from grader.services import Forbidden, Invalid, NotFound
from grader.services.courses import accommodations, calendar, courses, extensions
from tests.app_support import csrf_from
from tests.instructor_support import ALICE, BOB, OUTSIDER, TA, TEACHER, make_room, user


def test_a_calendar_feed_is_read_only_with_its_own_secret(app, client, factory):
    room = make_room(app, factory, due_at=dt.datetime(2026, 12, 5, 4, 59))
    with app.app_context():
        alice_token = calendar.feed_token(user(ALICE))
        bob_token = calendar.feed_token(user(BOB))
    alice, bob = room.ids[ALICE], room.ids[BOB]
    assert client.get(f"/calendar/{alice}/{alice_token}.ics").status_code == 200
    # the secret with its last character changed (a hex secret ends in "0" one time in 16)
    near = alice_token[:-1] + ("1" if alice_token.endswith("0") else "0")
    for path in (
        f"/calendar/{alice}/{bob_token}.ics",  # another account's secret
        f"/calendar/{bob}/{alice_token}.ics",
        f"/calendar/{alice}/{near}.ics",
        f"/calendar/{alice}/.ics",
        f"/calendar/{alice}/{'a' * 5000}.ics",
        "/calendar/99999/0.ics",
    ):
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert b"BEGIN:VCALENDAR" not in answer.data


@pytest.mark.parametrize(
    "name",
    [
        "../../../../etc/passwd",
        "/etc/localtime",
        "America/../../etc/passwd",
        "Europe/Berlin\x00",
        "Local",
    ],
)
def test_a_time_zone_is_an_iana_name_never_a_path(app, factory, name):
    room = make_room(app, factory)
    with app.app_context():
        with pytest.raises(Invalid, match="not an IANA time zone"):
            courses.set_timezone(room.course_id, name, by=user(TEACHER))
        with pytest.raises(Invalid):
            courses.create_course("Other", timezone=name)


def test_only_the_courses_instructors_grant_or_remove_extensions(app, factory, client, auth):
    room = make_room(app, factory, due_at=dt.datetime(2026, 12, 5, 4, 59))
    data = extensions.ExtensionInput(assignment_id=room.assignment_id, email=ALICE, days=5)
    with app.app_context():
        for who in (TA, ALICE, OUTSIDER):
            with pytest.raises((Forbidden, NotFound)):
                extensions.grant(user(who), room.course_id, data)
        made = extensions.grant(user(TEACHER), room.course_id, data).id
        for who in (TA, ALICE, OUTSIDER):
            with pytest.raises((Forbidden, NotFound)):
                extensions.remove(user(who), room.course_id, made)
        # An instructor of another course cannot reach this course's extension by its id.
        other = courses.create_course("Theirs", TEACHER).id
        with pytest.raises(NotFound):
            extensions.remove(user(TEACHER), other, made)
    auth.login(ALICE)
    page = client.get("/dashboard").get_data(as_text=True)
    refused = client.post(
        f"/instructor/assignments/{room.assignment_id}/extensions",
        data={"csrf_token": csrf_from(page), "email": ALICE, "days": "30"},
    )
    assert refused.status_code in (403, 404)
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Extension.id))) == 1


def test_hostile_accommodation_rows_are_refused_escaped_and_bounded(app, factory, client, auth):
    room = make_room(app, factory, due_at=dt.datetime(2026, 12, 5, 4, 59))
    hostile = (
        "<script>alert(1)</script>@example.com,3\n"
        '=HYPERLINK("http://evil"),2\n'
        "alice@example.com,99999\n"
        "bob@example.com,2026-13-45 25:99\n"
        "bob@example.com,1,1,extra\n"
    )
    auth.login(TEACHER)
    page = client.get(f"/instructor/assignments/{room.assignment_id}").get_data(as_text=True)
    shown = client.post(
        f"/instructor/assignments/{room.assignment_id}/extensions/import",
        data={"csrf_token": csrf_from(page), "csv_text": hostile},
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "<script>alert(1)" not in shown and "&lt;script&gt;" in shown
    for line in range(1, 6):
        assert f"line {line}:" in shown
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Extension.id))) == 0
        too_many = "alice@example.com,1\n" * (accommodations.MAX_IMPORT_ROWS + 1)
        with pytest.raises(Invalid, match="at most"):
            accommodations.import_accommodations(user(TEACHER), room.assignment_id, too_many)


def test_guessing_calendar_secrets_is_throttled_by_address(app, client, factory):
    room = make_room(app, factory, due_at=dt.datetime(2026, 12, 5, 4, 59))
    app.config["GRADER_LOGIN_LIMIT_ADDRESS"] = "3 per 15 minutes"
    with app.app_context():
        token = calendar.feed_token(user(ALICE))
    alice = room.ids[ALICE]
    # Right secrets do not count: the owner's calendar program reads it as often as it likes.
    for _ in range(4):
        assert client.get(f"/calendar/{alice}/{token}.ics").status_code == 200
    guesses = [client.get(f"/calendar/{alice}/{n:032x}.ics").status_code for n in range(4)]
    assert guesses == [404, 404, 404, 429]
    # Once throttled, this address reads no feed, the right secret included.
    refused = client.get(f"/calendar/{alice}/{token}.ics")
    assert refused.status_code == 429 and refused.headers["Retry-After"]
    assert b"BEGIN:VCALENDAR" not in refused.data


def test_one_feed_is_read_a_bounded_number_of_times(app, client, factory):
    room = make_room(app, factory, due_at=dt.datetime(2026, 12, 5, 4, 59))
    app.config["GRADER_CALENDAR_LIMIT"] = "3 per hour"
    with app.app_context():
        alice_token = calendar.feed_token(user(ALICE))
        bob_token = calendar.feed_token(user(BOB))
    alice, bob = room.ids[ALICE], room.ids[BOB]
    reads = [client.get(f"/calendar/{alice}/{alice_token}.ics").status_code for _ in range(4)]
    assert reads == [200, 200, 200, 429]
    # Another account's feed has its own count.
    assert client.get(f"/calendar/{bob}/{bob_token}.ics").status_code == 200
