"""The accommodations list (services/courses/accommodations.py): a CSV applied only when every row
is clean."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from grader.extensions import db
from grader.models import Extension
from grader.services.courses import accommodations, extensions
from tests.instructor_support import ALICE, BOB, TA, TEACHER, make_room, user


def test_an_accommodations_list_is_applied_only_when_clean(app, factory):
    room = make_room(app, factory, due_at=dt.datetime(2026, 12, 5, 4, 59))
    bad = (
        "email,days or date,extra attempts\n"
        "alice@example.com,3,1\nnobody@example.com,2\nbob@example.com,soon\n"
    )
    with app.app_context():
        outcome = accommodations.import_accommodations(user(TEACHER), room.assignment_id, bad)
        assert outcome.applied == 0
        assert outcome.errors[0] == "line 3: nobody@example.com is not a student of this course"
        assert outcome.errors[1].startswith("line 4: 'soon' is not a date")
        assert db.session.scalar(sa.select(sa.func.count(Extension.id))) == 0
        good = "alice@example.com,3,1\nbob@example.com,2026-12-08 23:59\n"
        outcome = accommodations.import_accommodations(user(TEACHER), room.assignment_id, good)
        assert outcome.applied == 2 and not outcome.errors
        rows = {row.who: row for row in extensions.listing(user(TA), room.course_id)}
        assert rows[ALICE].due_at == dt.datetime(2026, 12, 8, 4, 59)
        assert rows[ALICE].extra_attempts == 1
        assert rows[BOB].due_at == dt.datetime(2026, 12, 8, 23, 59)  # the course is in UTC
