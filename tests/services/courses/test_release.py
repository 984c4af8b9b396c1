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
        bob, alice = room.ids[BOB], room.ids[ALICE]
        assert release.held_work(bob, release.Standing(bob, assignment)) is None  # Bob's is past
        assert release.held_work(alice, release.Standing(alice, assignment)) == due + dt.timedelta(
            days=2
        )
        assert release.held_work(room.ids[TEACHER], release.Standing(alice, assignment)) is None


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


def test_the_gradebook_exports_carry_a_held_sum_with_its_release(
    app, factory, client, auth, runner
):
    """Staff's CSV and JSON (the pages', the API's and `grader gradebook`'s) carry every figure,
    and mark the sums a student cannot see yet with the moment they will, as the page's "held
    until" does."""
    import csv

    from grader.models import Course
    from grader.services.courses import zones

    room = make_room(app, factory)
    due = utcnow() - dt.timedelta(hours=1)
    _hold(app, room, due_at=due)
    with app.app_context():  # Alice's own due date, so her release, is two days later; Bob's passed
        extensions.grant(
            user(TEACHER),
            room.course_id,
            extensions.ExtensionInput(assignment_id=room.assignment_id, email=ALICE, days=2),
        )
        zone = db.session.get_one(Course, room.course_id).timezone
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    when = zones.iso(due + dt.timedelta(days=2), zone)
    auth.login(TEACHER)
    for url in (
        f"/instructor/courses/{room.course_id}/gradebook.csv",
        f"/api/courses/{room.course_id}/gradebook.csv",
    ):
        text = client.get(url).get_data(as_text=True)
        rows = {r["email"]: r for r in csv.DictReader(io.StringIO(text))}
        assert rows[ALICE]["Homework 1: 1. Textbook tree (/1)"] == "1.00"  # staff see it
        assert rows[ALICE]["Homework 1: held until"] == when
        assert rows[BOB]["Homework 1: held until"] == ""
    data = client.get(f"/api/courses/{room.course_id}/gradebook").get_json()
    students = {s["email"]: s for s in data["students"]}
    assert students[ALICE]["assignments"][str(room.assignment_id)] == 1.0
    assert students[ALICE]["held_until"] == {str(room.assignment_id): when}
    assert students[BOB]["held_until"] == {}
    printed = runner.invoke(args=["gradebook", str(room.course_id), "--csv"]).output
    assert f"{ALICE},alice,1.00,,1.00,{when}\n" in printed
    printed = json.loads(runner.invoke(args=["gradebook", str(room.course_id)]).output)
    assert printed["students"] == data["students"]
    with app.app_context():  # the release: no marker left, and no column
        db.session.execute(sa.update(Assignment).values(hold_scores=False, scores_release_at=None))
        db.session.commit()
    text = client.get(f"/api/courses/{room.course_id}/gradebook.csv").get_data(as_text=True)
    assert "held until" not in text
    data = client.get(f"/api/courses/{room.course_id}/gradebook").get_json()
    assert all(s["held_until"] == {} for s in data["students"])
