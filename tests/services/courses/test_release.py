"""Scores and keys held until a release date, or each student's own due date: graded on arrival,
shown to staff at once, to the student ("submitted; your score is released on ...") at release."""

from __future__ import annotations

import datetime as dt
import io
import json
import zipfile

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import Assignment, utcnow
from grader.services import Invalid
from grader.services.courses import extensions, release
from grader.services.data import export
from grader.services.teaching import editor, gradebook
from tests.instructor_support import ALICE, BOB, TEACHER, answer, make_room, textbook_key, user


def _hold(app, room, release_at=None, due_at=None):
    with app.app_context():
        editor.update_assignment(
            user(TEACHER),
            room.assignment_id,
            editor.AssignmentInput(
                title="Homework 1", due_at=due_at, hold_scores=True, scores_release_at=release_at
            ),
        )


def test_held_until_the_release_then_shown(app, factory, client, auth):
    room = make_room(app, factory)
    release = utcnow() + dt.timedelta(days=2)
    _hold(app, room, release_at=release)
    made = answer(app, ALICE, room.assignment_id, 0, textbook_key())
    assert made.score == 1.0  # graded on arrival
    auth.login(ALICE)
    listed = client.get(f"/api/attempts?exercise_id={made.exercise_id}").get_json()["attempts"]
    assert listed[0]["score"] is None and listed[0]["solution"] is None
    assert listed[0]["held_words"].startswith("Submitted; your score is released on ")
    assert listed[0]["released_at"].endswith("+00:00")
    page = client.get(f"/assignments/{room.assignment_id}").get_data(as_text=True)
    assert "submitted; your score is released on" in page and "score 100" not in page
    with app.app_context():
        data, _ = export.export(None, room.ids[ALICE])
        with data:
            held = json.loads(zipfile.ZipFile(io.BytesIO(data.read())).read("attempts.json"))
        assert held[0]["held"] is True and held[0]["score"] is None
        assert held[0]["released_at"] is not None
        # Staff see everything at once.
        _, book = gradebook.gradebook(user(TEACHER), room.course_id)
        assert next(r for r in book.rows if r.email == ALICE).total == pytest.approx(1.0)
        db.session.execute(
            sa.update(Assignment).values(scores_release_at=utcnow() - dt.timedelta(seconds=1))
        )
        db.session.commit()
    listed = client.get(f"/api/attempts?exercise_id={made.exercise_id}").get_json()["attempts"]
    assert listed[0]["score"] == 1.0 and listed[0]["released_at"] is None


def test_held_until_each_students_own_due_date(app, factory):
    room = make_room(app, factory)
    due = utcnow() - dt.timedelta(hours=1)
    _hold(app, room, due_at=due)
    with app.app_context():
        extensions.grant(
            user(TEACHER),
            room.course_id,
            extensions.ExtensionInput(assignment_id=room.assignment_id, email=ALICE, days=2),
        )
        assignment = db.session.get_one(Assignment, room.assignment_id)
        assert release.held_until(room.ids[BOB], assignment) is None  # Bob's due date passed
        assert release.held_until(room.ids[ALICE], assignment) == due + dt.timedelta(days=2)


def test_holding_until_a_due_date_needs_one(app, factory):
    room = make_room(app, factory)
    with pytest.raises(Invalid, match="need a due date"):
        _hold(app, room)


def test_the_report_form_names_a_held_attempt_without_its_score(app, factory):
    from grader.services.teaching import problem_reports

    room = make_room(app, factory)
    _hold(app, room, release_at=utcnow() + dt.timedelta(days=2))
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    with app.app_context():
        slot = problem_reports.slot_of(user(ALICE), room.assignment_id, 0)
        (held,) = problem_reports.concerning(user(ALICE), slot, None)
        assert "score" not in held.label
        db.session.execute(
            sa.update(Assignment).values(scores_release_at=utcnow() - dt.timedelta(seconds=1))
        )
        db.session.commit()
        (shown,) = problem_reports.concerning(user(ALICE), slot, None)
        assert shown.label.endswith(", score 1)")
