"""Dates that move by the calendar: a course copied into the next term keeps its deadlines'
wall-clock time in the course's zone across both clock changes (23:59 stays 23:59, a 09:00
release stays 09:00), in zones whose clocks change in spring or autumn of either hemisphere and
in half-hour zones; a time the clocks skip falls forward by the jump (02:30 becomes 03:30), a
time they repeat is the first of the two; the "first due date falls on" option moves every date
by the same days and clock time; the copy form previews the new dates before anything is made.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import Course
from grader.services.courses import copying, zones
from tests.app_support import csrf_from

# zone, the change crossed, the original due date (local wall clock), days moved
CASES = [
    ("America/Chicago", "the issue's case", dt.datetime(2026, 12, 4, 23, 59), 280),
    ("America/Chicago", "spring forward", dt.datetime(2027, 3, 5, 23, 59), 14),
    ("America/Chicago", "fall back", dt.datetime(2027, 10, 29, 23, 59), 14),
    ("Europe/Berlin", "spring forward", dt.datetime(2027, 3, 19, 23, 59), 14),
    ("Europe/Berlin", "fall back", dt.datetime(2027, 10, 22, 23, 59), 14),
    ("Australia/Sydney", "fall back (April)", dt.datetime(2027, 3, 26, 23, 59), 14),
    ("Australia/Sydney", "spring forward (October)", dt.datetime(2027, 9, 24, 23, 59), 14),
    ("Australia/Adelaide", "fall back (April)", dt.datetime(2027, 3, 26, 23, 59), 14),
    ("Australia/Adelaide", "spring forward (October)", dt.datetime(2027, 9, 24, 23, 59), 14),
    ("Asia/Kolkata", "none (half-hour zone)", dt.datetime(2026, 12, 4, 23, 59), 280),
]
RELEASE = dt.time(9, 0)


def course_in(
    app: Any, factory: Any, zone_name: str, *walls: dt.datetime, teacher: str = "teacher"
) -> int:
    """A course in `zone_name`, one assignment per wall-clock due date, released at 09:00
    local four days before it."""
    factory.user(f"{teacher}@example.com", "instructor")
    course_id, _ = factory.course("Term", f"{teacher}@example.com")
    with app.app_context():
        db.session.get(Course, course_id).timezone = zone_name
        db.session.commit()
    for wall in walls:
        release = dt.datetime.combine(wall.date() - dt.timedelta(days=4), RELEASE)
        factory.assignment(
            course_id,
            "standard",
            due_at=zones.to_utc(wall, zone_name),
            release_at=zones.to_utc(release, zone_name),
        )
    return course_id


def shown(moment: dt.datetime, zone_name: str) -> str:
    here = zones.local(moment, zone_name)
    assert here is not None
    return f"{here:%a} {here.day} {here:%b %Y, %H:%M} {here.tzname()}"


def copy_table(app: Any, factory: Any) -> list[tuple[str, str, str, str]]:
    """Each zone and change: the due time before the copy and after it, as a person reads it."""
    rows = []
    for zone_name, change, wall, days in CASES:
        course_id = course_in(app, factory, zone_name, wall, teacher=f"t{len(rows)}")
        with app.app_context():
            copied = copying.copy_course(None, course_id, "Next", shift_days=days)
            [before] = db.session.get(Course, course_id).assignments
            [after] = copied.course.assignments
            rows.append(
                (
                    f"{zone_name}, {change}, +{days} days",
                    shown(before.due_at, zone_name),
                    shown(after.due_at, zone_name),
                    shown(after.release_at, zone_name),
                )
            )
    return rows


def test_a_copy_keeps_the_wall_clock_across_every_change(app, factory):
    rows = copy_table(app, factory)
    print("\n| zone, change | due before | due after | release after |")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    for (what, before, after, release), (_, _, wall, days) in zip(rows, CASES, strict=True):
        assert before.split(", ")[1][:5] == "23:59", what
        assert after.split(", ")[1][:5] == "23:59", (what, after)
        assert release.split(", ")[1][:5] == "09:00", (what, release)
        moved = wall + dt.timedelta(days=days)
        assert after.startswith(f"{moved:%a} {moved.day} {moved:%b %Y}"), (what, after)
    assert rows[0][1:3] == ("Fri 4 Dec 2026, 23:59 CST", "Fri 10 Sep 2027, 23:59 CDT")


@pytest.mark.parametrize(
    ("zone_name", "before", "days", "after"),
    [
        # 02:30 on 14 Mar 2027 does not exist in Chicago: it falls forward by the hour skipped
        ("America/Chicago", dt.datetime(2027, 3, 7, 2, 30), 7, "Sun 14 Mar 2027, 03:30 CDT"),
        # 02:30 on 28 Mar 2027 does not exist in Berlin
        ("Europe/Berlin", dt.datetime(2027, 3, 21, 2, 30), 7, "Sun 28 Mar 2027, 03:30 CEST"),
        # 02:30 on 3 Oct 2027 does not exist in Adelaide (a half-hour zone)
        ("Australia/Adelaide", dt.datetime(2027, 9, 26, 2, 30), 7, "Sun 3 Oct 2027, 03:30 ACDT"),
        # 01:30 on 7 Nov 2027 happens twice in Chicago: the first of the two
        ("America/Chicago", dt.datetime(2027, 10, 31, 1, 30), 7, "Sun 7 Nov 2027, 01:30 CDT"),
    ],
)
def test_a_time_the_clocks_skip_falls_forward_and_one_they_repeat_is_the_first(
    zone_name, before, days, after
):
    stored = zones.to_utc(before, zone_name)
    assert shown(zones.moved(stored, zone_name, dt.timedelta(days=days)), zone_name) == after


def test_the_first_due_date_option_moves_a_term_across_a_change_by_the_calendar(app, factory):
    """A fall term straddling the November change, mapped so its first due date falls on a
    January date: the second deadline, three weeks later, keeps 23:59 too."""
    zone_name = "America/Chicago"
    course_id = course_in(
        app,
        factory,
        zone_name,
        dt.datetime(2026, 10, 23, 23, 59),  # CDT
        dt.datetime(2026, 11, 13, 23, 59),  # CST
    )
    with app.app_context():
        chosen = zones.to_utc(dt.datetime(2027, 1, 22, 23, 59), zone_name)
        copied = copying.copy_course(None, course_id, "Spring", first_due_at=chosen)
        dues = sorted(shown(a.due_at, zone_name) for a in copied.course.assignments)
        assert dues == ["Fri 12 Feb 2027, 23:59 CST", "Fri 22 Jan 2027, 23:59 CST"]
        assert copying.offset_words(copied.offset) == "+91 days"


def test_the_copy_form_previews_the_new_dates_before_anything_is_made(app, factory, client, auth):
    zone_name = "America/Chicago"
    course_id = course_in(app, factory, zone_name, dt.datetime(2026, 12, 4, 23, 59))
    auth.login("teacher@example.com")
    html = client.get(f"/instructor/courses/{course_id}/copy").get_data(as_text=True)
    page = client.post(
        f"/instructor/courses/{course_id}/copy",
        data={
            "csrf_token": csrf_from(html),
            "course-name": "Next term",
            "course-how": "shift",
            "course-shift_days": "280",
            "course-preview": "1",
        },
    )
    text = page.get_data(as_text=True)
    assert page.status_code == 200, text
    assert "Fri 4 Dec 2026, 23:59 CST" in text and "Fri 10 Sep 2027, 23:59 CDT" in text
    assert "Mon 30 Nov 2026, 09:00 CST" in text and "Mon 6 Sep 2027, 09:00 CDT" in text
    # the names and numbers typed are kept for the copy itself
    assert 'value="Next term"' in text and 'value="280"' in text
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Course.id))) == 1
