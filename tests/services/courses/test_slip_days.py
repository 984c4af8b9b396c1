"""Slip days: a course's budget of late days per student, spent before any penalty in the order
work is submitted, shown to the student and in the gradebook; an extension's days are not late."""

from __future__ import annotations

import datetime as dt

import pytest

from grader.gametree import Tree
from grader.models import utcnow
from grader.services.courses import extensions, slip_days
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


def _second_assignment(app, room, due_at):
    with app.app_context():
        made = editor.create_assignment(
            user(TEACHER),
            room.course_id,
            editor.AssignmentInput(title="Homework 2", due_at=due_at, late_percent_per_day=10),
        )
        editor.add_slot(
            user(TEACHER),
            made.id,
            editor.SlotInput(kind="prune", conventions={}, tree=Tree.from_nested(TEXTBOOK)),
        )
        return made.id


def test_slip_days_are_spent_first_in_order_of_submission(app, factory, client, auth):
    due = utcnow() - dt.timedelta(hours=30)  # work now is 2 days late
    room = make_room(app, factory, due_at=due, late=10)
    second = _second_assignment(app, room, due)
    with app.app_context():
        slip_days.set_slip_days(user(TEACHER), room.course_id, 3)
    first = answer(app, ALICE, room.assignment_id, 0, textbook_key())
    assert (first.days_late, first.slip_days, first.penalty) == (2, 2, 0)
    again = answer(app, ALICE, room.assignment_id, 0, textbook_key())  # the same days, not more
    assert (again.slip_days, again.penalty) == (2, 0)
    later = answer(app, ALICE, second, 0, textbook_key())
    assert (later.days_late, later.slip_days) == (2, 1)  # one day left of three
    assert later.penalty == pytest.approx(0.1)  # the day left over costs its 10 %
    with app.app_context():
        _, book = gradebook.gradebook(user(TEACHER), room.course_id)
        row = next(r for r in book.rows if r.email == ALICE)
        assert row.slip_days == {room.assignment_id: 2, second: 1}
        text, _ = gradebook.gradebook_csv(user(TEACHER), room.course_id)
        header, *lines = text.splitlines()
        assert header.endswith(",slip days used")
        assert next(line for line in lines if line.startswith(ALICE)).endswith(",3")
    auth.login(ALICE)
    page = client.get("/dashboard").get_data(as_text=True)
    assert "Slip days left in Search 101: <strong>0</strong> of 3" in page
    assert "2 slip days used" in page and "1 slip day used" in page
    page = client.get(f"/assignments/{second}").get_data(as_text=True)
    assert "Slip days used on this assignment: 1. Left in Search 101: 0 of 3." in page


def test_an_extensions_days_are_not_slip_days(app, factory):
    due = utcnow() - dt.timedelta(hours=30)
    room = make_room(app, factory, due_at=due, late=10)
    with app.app_context():
        slip_days.set_slip_days(user(TEACHER), room.course_id, 3)
        extensions.grant(
            user(TEACHER),
            room.course_id,
            extensions.ExtensionInput(assignment_id=room.assignment_id, email=BOB, days=1),
        )
    made = answer(app, BOB, room.assignment_id, 0, textbook_key())
    assert (made.days_late, made.slip_days, made.penalty) == (1, 1, 0)  # 1 past his own date


def test_slip_days_let_late_work_in_where_the_class_takes_none(app, factory):
    from grader.services import Conflict

    room = make_room(app, factory, due_at=utcnow() - dt.timedelta(hours=3))  # no late policy
    with pytest.raises(Conflict, match="has passed"):
        answer(app, BOB, room.assignment_id, 0, textbook_key())
    with app.app_context():
        slip_days.set_slip_days(user(TEACHER), room.course_id, 1)
    made = answer(app, ALICE, room.assignment_id, 0, textbook_key())
    assert (made.days_late, made.slip_days, made.penalty) == (1, 1, 0)


def test_a_changed_budget_spends_the_slip_days_again_in_order_of_submission(app, factory):
    import sqlalchemy as sa

    from grader.extensions import db
    from grader.models import Attempt, AuditEntry

    due = utcnow() - dt.timedelta(hours=30)  # work now is 2 days late
    room = make_room(app, factory, due_at=due, late=10)
    second = _second_assignment(app, room, due)
    first = answer(app, ALICE, room.assignment_id, 0, textbook_key()).id  # before `later`
    later = answer(app, ALICE, second, 0, textbook_key()).id

    def lateness() -> list[tuple[int, float]]:
        with app.app_context():
            rows = [db.session.get_one(Attempt, i) for i in (first, later)]
            return [(a.slip_days, round(a.penalty, 6)) for a in rows]

    assert lateness() == [(0, 0.2), (0, 0.2)]  # no budget: each day late costs 10 %
    with app.app_context():
        slip_days.set_slip_days(user(TEACHER), room.course_id, 3)
    assert lateness() == [(2, 0.0), (1, 0.1)]  # the earlier work spends first
    with app.app_context():
        slip_days.set_slip_days(user(TEACHER), room.course_id, 1)
    assert lateness() == [(1, 0.1), (0, 0.2)]  # the days past the new budget cost again
    with app.app_context():
        slip_days.set_slip_days(user(TEACHER), room.course_id, 1)  # no change: no audit row
        logged = db.session.scalars(sa.select(AuditEntry).order_by(AuditEntry.id)).all()
        assert [r.what for r in logged] == [
            "Slip days per student: 0 to 3",
            "Slip days per student: 3 to 1",
        ]
        assert {(d["attempt_id"], d["old"], d["new"]) for d in logged[1].details} == {
            (first, 1.0, 0.9),
            (later, 0.9, 0.8),
        }
        _, book = gradebook.gradebook(user(TEACHER), room.course_id)
        assert next(r for r in book.rows if r.email == ALICE).slip_days == {room.assignment_id: 1}


@pytest.mark.parametrize("given", ["extension", "removal"])
def test_an_extension_hands_the_slip_days_it_frees_to_later_work(app, factory, given):
    """An extension changes which work is late, so the slip days are spent again in the order
    of submission: days it frees on one assignment go to later late work on another, and
    removing it takes them back."""
    from grader.extensions import db
    from grader.models import Attempt

    due = utcnow() - dt.timedelta(hours=30)  # work now is 2 days late
    room = make_room(app, factory, due_at=due, late=10)
    second = _second_assignment(app, room, due)
    with app.app_context():
        slip_days.set_slip_days(user(TEACHER), room.course_id, 2)
    first = answer(app, ALICE, room.assignment_id, 0, textbook_key()).id  # spends both days
    later = answer(app, ALICE, second, 0, textbook_key()).id  # none left: 2 days at 10 %

    def lateness() -> list[tuple[int, int, float]]:
        with app.app_context():
            rows = [db.session.get_one(Attempt, i) for i in (first, later)]
            return [(a.days_late, a.slip_days, round(a.penalty, 6)) for a in rows]

    assert lateness() == [(2, 2, 0.0), (2, 0, 0.2)]
    with app.app_context():
        extension = extensions.grant(
            user(TEACHER),
            room.course_id,
            extensions.ExtensionInput(assignment_id=room.assignment_id, email=ALICE, days=3),
        ).id
    assert lateness() == [(0, 0, 0.0), (2, 2, 0.0)]  # the first is on time; its days move on
    if given == "removal":
        with app.app_context():
            extensions.remove(user(TEACHER), room.course_id, extension)
        assert lateness() == [(2, 2, 0.0), (2, 0, 0.2)]
