"""A student's own deadlines (services/courses/deadlines.py): one student's or one group's due date,
attempts and penalty, read everywhere a due date or a limit counts."""

from __future__ import annotations

import datetime as dt

import pytest

from grader.extensions import db
from grader.gametree import Tree
from grader.models import Assignment, Attempt, utcnow
from grader.services import Conflict
from grader.services.courses import courses, deadlines
from grader.services.teaching import editor, gradebook
from tests.instructor_support import (
    ALICE,
    BOB,
    TEACHER,
    TEXTBOOK,
    answer,
    make_room,
    textbook_key,
    user,
)
from tests.services.courses.extension_support import grant


def test_an_extension_moves_one_students_due_date_and_nobody_elses(app, factory):
    due = utcnow() - dt.timedelta(hours=2)
    room = make_room(app, factory, due_at=due)  # no late policy: nothing after the due date
    grant(app, room, email=ALICE, days=2)
    late = answer(app, ALICE, room.assignment_id, 0, textbook_key())
    assert late.days_late == 0 and late.penalty == 0 and late.score == 1
    with pytest.raises(Conflict, match=r"your due date .* has passed"):
        answer(app, BOB, room.assignment_id, 0, textbook_key())
    with app.app_context():
        slot = db.session.get_one(Assignment, room.assignment_id).slots[0]
        assert deadlines.due_for(room.ids[ALICE], slot) == due + dt.timedelta(days=2)
        assert deadlines.due_for(room.ids[BOB], slot) == due


def test_extra_attempts_and_a_waived_penalty(app, factory):
    room = make_room(app, factory, due_at=utcnow() - dt.timedelta(hours=30), late=10)
    with app.app_context():
        editor.update_slot(
            user(TEACHER),
            room.assignment_id,
            0,
            editor.SlotInput(
                kind="prune",
                conventions={},
                tree=Tree.from_nested(TEXTBOOK),
                attempts_allowed=1,
            ),
        )
    first = answer(app, ALICE, room.assignment_id, 0, textbook_key())
    assert first.days_late == 2 and first.penalty == pytest.approx(0.2)
    with pytest.raises(Conflict, match="no attempts left: 1 of 1"):
        answer(app, ALICE, room.assignment_id, 0, textbook_key())
    grant(app, room, email=ALICE, slot_index=0, extra_attempts=2, waive_penalty=True)
    with app.app_context():
        # Granting recomputed the stored lateness: the penalty is gone from the gradebook too.
        assert db.session.get(Attempt, first.id).penalty == 0
        _, book = gradebook.gradebook(user(TEACHER), room.course_id)
        row = next(r for r in book.rows if r.email == ALICE)
        assert row.total == pytest.approx(1.0)
    second = answer(app, ALICE, room.assignment_id, 0, textbook_key())
    assert second.penalty == 0
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    with pytest.raises(Conflict, match="no attempts left: 3 of 3"):
        answer(app, ALICE, room.assignment_id, 0, textbook_key())


def test_the_api_gives_the_students_own_due_date_with_its_offset(app, factory, client, auth):
    room = make_room(app, factory, due_at=dt.datetime(2026, 12, 5, 4, 59))
    with app.app_context():
        courses.set_timezone(room.course_id, "America/New_York")
    grant(app, room, email=ALICE, days=2)
    auth.login(ALICE)
    mine = client.get(f"/api/assignments/{room.assignment_id}").get_json()
    assert mine["due_at"] == "2026-12-06T23:59:00-05:00"
    assert mine["timezone"] == "America/New_York"
    assert mine["slots"][0]["due_at"] == "2026-12-06T23:59:00-05:00"
    auth.logout()
    auth.login(BOB)
    theirs = client.get(f"/api/assignments/{room.assignment_id}").get_json()
    assert theirs["due_at"] == "2026-12-04T23:59:00-05:00"
    page = client.get(f"/assignments/{room.assignment_id}").get_data(as_text=True)
    assert "Due <time" in page and "Fri 4 Dec 2026, 23:59 EST (America/New_York)" in page
    auth.logout()
    auth.login(ALICE)
    page = client.get(f"/assignments/{room.assignment_id}").get_data(as_text=True)
    assert "Your due date: <time" in page and "Sun 6 Dec 2026, 23:59 EST" in page


def test_the_export_holds_the_students_own_deadlines(app, factory):
    import io
    import json
    import zipfile

    from grader.services.data import export

    room = make_room(app, factory, due_at=dt.datetime(2026, 12, 5, 4, 59))
    grant(app, room, email=ALICE, slot_index=1, days=1, extra_attempts=2)
    with app.app_context():
        data, _ = export.export(None, room.ids[ALICE])
        with data:
            held = json.loads(zipfile.ZipFile(io.BytesIO(data.read())).read("deadlines.json"))
    (homework,) = held
    assert homework["your_due_at"] == homework["class_due_at"] == "2026-12-05T04:59:00+00:00"
    first, second = homework["slots"]
    assert first["your_due_at"] == "2026-12-05T04:59:00+00:00"
    assert second["your_due_at"] == "2026-12-06T04:59:00+00:00"
    assert second["attempts_allowed"] is None  # unlimited stays unlimited


def test_an_engine_slot_takes_a_students_extension_too(app, factory):
    from grader.models import Submission
    from grader.services.engines import submissions

    engine = b"def legal_moves(fen):\n    return []\n"
    room = make_room(app, factory, due_at=utcnow() - dt.timedelta(hours=2))
    with app.app_context():
        index = submissions.add_engine_slot(room.assignment_id, suite="quick").index
    grant(app, room, email=ALICE, slot_index=index, days=1)
    with app.app_context():
        made = submissions.upload(user(ALICE), room.assignment_id, index, engine, "engine.py")
        stored = db.session.get_one(Submission, made.id)
        assert (stored.days_late, stored.penalty) == (0, 0)
        with pytest.raises(Conflict, match="your due date"):
            submissions.upload(user(BOB), room.assignment_id, index, engine, "engine.py")
