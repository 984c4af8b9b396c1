"""Extensions (services/courses/extensions.py): granted, refused with the reason, removed with an
audit entry and the lateness recomputed; N days are calendar days in the course's zone."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import Attempt, AuditEntry, Extension, utcnow
from grader.services import Forbidden, Invalid
from grader.services.courses import courses, extensions
from tests.instructor_support import ALICE, TA, TEACHER, answer, make_room, textbook_key, user
from tests.services.courses.extension_support import grant


def test_removing_an_extension_is_audited_and_recomputes_lateness(app, factory):
    room = make_room(app, factory, due_at=utcnow() - dt.timedelta(hours=30), late=10)
    made = grant(app, room, email=ALICE, days=5)
    attempt = answer(app, ALICE, room.assignment_id, 0, textbook_key())
    assert attempt.penalty == 0
    with app.app_context():
        with pytest.raises(Forbidden):
            extensions.remove(user(TA), room.course_id, made)
        text, assignment_id = extensions.remove(user(TEACHER), room.course_id, made)
        assert "alice@example.com" in text and assignment_id == room.assignment_id
        assert db.session.get(Attempt, attempt.id).penalty == pytest.approx(0.2)
        whats = [
            log.what for log in db.session.scalars(sa.select(AuditEntry).order_by(AuditEntry.id))
        ]
        assert whats == [
            "Extension for alice@example.com: Homework 1",
            "Extension removed for alice@example.com: Homework 1",
        ]


def test_refusals_say_why_and_store_nothing(app, factory):
    room = make_room(app, factory, due_at=utcnow())
    with app.app_context():
        teacher = user(TEACHER)
        for kw, words in (
            ({"email": "nobody@example.com", "days": 1}, "not a student of this course"),
            ({"email": TA, "days": 1}, "not a student"),  # a TA is not given extensions
            ({"email": ALICE}, "needs a due date, days"),
            ({"email": ALICE, "days": 0}, "between 1 and 366"),
            ({"email": ALICE, "due_at": utcnow() - dt.timedelta(days=1)}, "later than"),
            ({"email": ALICE, "group": "x", "days": 1}, r"one student .* or one group"),
            ({"group": "nobody", "days": 1}, "no group called"),
            ({"email": ALICE, "days": 1, "slot_index": 9}, "no exercise 10"),
        ):
            with pytest.raises(Invalid, match=words):
                extensions.grant(
                    teacher,
                    room.course_id,
                    extensions.ExtensionInput(assignment_id=room.assignment_id, **kw),
                )
        assert db.session.scalar(sa.select(sa.func.count(Extension.id))) == 0


def test_days_are_calendar_days_in_the_courses_zone_across_a_clock_change(app, factory):
    # 23:59 EDT on Saturday 31 October; three days later is 23:59 EST on Tuesday 3 November.
    room = make_room(app, factory, due_at=dt.datetime(2026, 11, 1, 3, 59))
    with app.app_context():
        courses.set_timezone(room.course_id, "America/New_York")
    grant(app, room, email=ALICE, days=3)
    with app.app_context():
        (row,) = extensions.listing(user(TEACHER), room.course_id)
        assert row.due_at == dt.datetime(2026, 11, 4, 4, 59)


def test_days_that_land_on_a_time_the_clocks_skip_fall_forward_by_the_jump(app, factory):
    # 02:30 EST on Sunday 1 March 2026; a week later 02:30 does not exist in New York (the
    # clocks jump from 02:00 to 03:00): the extension ends at 03:30 EDT, as a copy's dates do.
    room = make_room(app, factory, due_at=dt.datetime(2026, 3, 1, 7, 30))
    with app.app_context():
        courses.set_timezone(room.course_id, "America/New_York")
    grant(app, room, email=ALICE, days=7)
    with app.app_context():
        (row,) = extensions.listing(user(TEACHER), room.course_id)
        assert row.due_at == dt.datetime(2026, 3, 8, 7, 30)  # 03:30 EDT
