"""The work of a graded submission, bounded (issue 51): the SQL statements one answer sent
through the API issues, counted rather than timed, so a change that loads the course again, asks
the held-score gate twice, reads the slip days once per check or adds an N+1 fails here. The
hot path's figure (`bench.load`, docs/benchmarks.md) moves with the machine; these counts do not.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.models import utcnow
from grader.services.courses import extensions, slip_days
from grader.services.teaching import editor
from tests.app_support import bearer
from tests.instructor_support import ALICE, TEACHER, make_room, textbook_key, user

# A graded variant's answer, statement by statement: the read transaction (the token's user;
# the exercise with its slot, assignment and course, its owner's membership and whether an
# extension applies to them), then the write lock (the attempts made, best score and LMS
# placement; the attempt's row).
PLAIN = [
    "BEGIN",
    "SELECT user",
    "SELECT exercise",
    "BEGIN IMMEDIATE",
    "SELECT count",
    "INSERT INTO attempt",
]


def _named(statement: str) -> str:
    """A statement by its verb and table: `SELECT exercise.id, ...` is the exercise's load,
    `SELECT count(attempt.id) ...` the count, `INSERT INTO attempt ...` the row."""
    verb, *rest = statement.split()
    if verb == "SELECT":
        return f"SELECT {rest[0].split('.')[0].split('(')[0]}"
    return " ".join([verb, *rest[:2]] if verb == "INSERT" else [verb, *rest[:1]])


def _answer(
    app: Any, client: Any, headers: dict[str, str], assignment_id: int, answer: Any
) -> tuple[list[str], dict[str, Any]]:
    """The statements one answer to the assignment's first slot issues, and its response."""
    exercise = client.get(
        f"/api/assignments/{assignment_id}/slots/0/exercise", headers=headers
    ).get_json()
    seen: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        seen.append(_named(statement))

    with app.app_context():
        engine = db.engine
    sa.event.listen(engine, "before_cursor_execute", count)
    try:
        response = client.post(
            exercise["urls"]["attempts"], headers=headers, json={"answer": answer}
        )
    finally:
        sa.event.remove(engine, "before_cursor_execute", count)
    assert response.status_code == 201, response.get_json()
    return seen, response.get_json()


def test_a_graded_answer_issues_the_fewest_statements(app, client, factory):
    room = make_room(app, factory)
    alice = bearer(factory.token(ALICE))
    assert _answer(app, client, alice, room.assignment_id, textbook_key())[0] == PLAIN
    # No statement per earlier attempt: the fifth answer does the first's work.
    for _ in range(3):
        _answer(app, client, alice, room.assignment_id, {"pruned": [], "value": 3})
    assert _answer(app, client, alice, room.assignment_id, textbook_key())[0] == PLAIN


def test_every_rule_at_once_adds_only_its_own_reads(app, client, factory):
    """Late by a day past an extension, with slip days to spend and held scores: each rule reads
    what it needs once (the slip days used; the gate's extensions), never again per check."""
    room = make_room(app, factory, due_at=utcnow() - dt.timedelta(hours=30), late=10)
    with app.app_context():
        teacher = user(TEACHER)
        editor.update_assignment(
            teacher,
            room.assignment_id,
            editor.AssignmentInput(
                title="Homework 1",
                due_at=utcnow() - dt.timedelta(hours=30),
                late_percent_per_day=10,
                hold_scores=True,
            ),
        )
        slip_days.set_slip_days(teacher, room.course_id, 3)
        extensions.grant(
            teacher,
            room.course_id,
            extensions.ExtensionInput(assignment_id=room.assignment_id, email=ALICE, days=1),
        )
    alice = bearer(factory.token(ALICE))
    wrong = {"pruned": [], "value": 3}
    made, shown = _answer(app, client, alice, room.assignment_id, wrong)
    assert (shown["days_late"], shown["slip_days"], shown["penalty"]) == (1, 1, 0)
    expected = [
        *PLAIN[:3],
        "SELECT extension",  # her extension applies: its terms
        # The held-score gate, asked once for the solution and the response: the student's
        # extensions on the assignment and its slots (their own due dates).
        "SELECT extension",
        "SELECT slot",
        *PLAIN[3:5],
        # Under the write lock, the slip days this late answer spends (those used on other
        # assignments), read once: the checks before it know it is taken without them.
        "SELECT attempt",
        "SELECT submission",
        PLAIN[5],
    ]
    assert made == expected
    for _ in range(3):
        assert _answer(app, client, alice, room.assignment_id, wrong)[0] == made


def test_a_held_answer_asks_the_gate_once_and_its_response_holds_the_grade(app, client, factory):
    due = utcnow() + dt.timedelta(days=2)
    room = make_room(app, factory, due_at=due)
    with app.app_context():
        editor.update_assignment(
            user(TEACHER),
            room.assignment_id,
            editor.AssignmentInput(title="Homework 1", due_at=due, hold_scores=True),
        )
    alice = bearer(factory.token(ALICE))
    made, shown = _answer(app, client, alice, room.assignment_id, textbook_key())
    assert made == [*PLAIN[:3], "SELECT extension", "SELECT slot", *PLAIN[3:]]
    assert shown["score"] is None and shown["solution"] is None
    assert shown["held_words"].startswith("Submitted; your score is released on ")
