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
# the exercise with its slot, assignment and course, and its owner's membership; the owner's
# extensions on the slot), then the write lock (the attempts made, best score and LMS
# placement; the attempt's row).
PLAIN = [
    "BEGIN",
    "SELECT user",
    "SELECT exercise",
    "SELECT extension",
    "BEGIN IMMEDIATE",
    "SELECT count",
    "INSERT INTO attempt",
]


def _statements(app: Any, client: Any, headers: dict[str, str], answer: Any) -> list[str]:
    """Each statement one graded answer issues, by its verb and table."""
    return _answer(app, client, headers, answer)[0]


def _answer(
    app: Any, client: Any, headers: dict[str, str], answer: Any
) -> tuple[list[str], dict[str, Any]]:
    """The statements one graded answer issues (by verb and table) and its response."""
    exercise = client.get(
        f"/api/assignments/{_assignment(app)}/slots/0/exercise", headers=headers
    ).get_json()
    seen: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        words = statement.split()
        seen.append(" ".join(words[:3] if words[0] == "INSERT" else words[:2]).rstrip(","))

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
    return _named(seen), response.get_json()


def _named(seen: list[str]) -> list[str]:
    """`SELECT exercise.id, ...` is the exercise's load, `SELECT count(attempt.id)` the count."""
    named = []
    for statement in seen:
        first, _, rest = statement.partition(" ")
        table = rest.split(".")[0].split("(")[0] if first == "SELECT" else rest
        named.append(f"{first} {table}".strip())
    return named


def _assignment(app: Any) -> int:
    from grader.models import Assignment

    with app.app_context():
        return db.session.scalar(sa.select(sa.func.min(Assignment.id)))


def test_a_graded_answer_issues_the_fewest_statements(app, client, factory):
    room = make_room(app, factory)
    alice = bearer(factory.token(ALICE))
    first = _statements(app, client, alice, textbook_key())
    assert first == PLAIN
    # No statement per earlier attempt: the fifth answer does the first's work.
    for _ in range(3):
        _statements(app, client, alice, {"pruned": [], "value": 3})
    assert _statements(app, client, alice, textbook_key()) == PLAIN
    assert room.assignment_id == _assignment(app)


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
    made, shown = _answer(app, client, alice, wrong)
    assert (shown["days_late"], shown["slip_days"], shown["penalty"]) == (1, 1, 0)
    assert made == [
        *PLAIN[:4],
        # The held-score gate, asked once for the solution and the response: the student's
        # extensions on the assignment and its slots (their own due dates).
        "SELECT extension",
        "SELECT slot",
        *PLAIN[4:6],
        # Under the write lock, the slip days this late answer spends (used on other
        # assignments), read once; the checks before it know the answer is taken without them.
        "SELECT attempt",
        "SELECT submission",
        PLAIN[6],
    ]
    for _ in range(3):
        assert _statements(app, client, alice, wrong) == made


def test_a_held_answer_asks_the_gate_once_and_its_response_holds_the_grade(
    app, client, factory
):
    due = utcnow() + dt.timedelta(days=2)
    room = make_room(app, factory, due_at=due)
    with app.app_context():
        editor.update_assignment(
            user(TEACHER),
            room.assignment_id,
            editor.AssignmentInput(title="Homework 1", due_at=due, hold_scores=True),
        )
    made, shown = _answer(app, client, bearer(factory.token(ALICE)), textbook_key())
    assert made == [*PLAIN[:4], "SELECT extension", "SELECT slot", *PLAIN[4:]]
    assert shown["score"] is None and shown["solution"] is None
    assert shown["held_words"].startswith("Submitted; your score is released on ")
