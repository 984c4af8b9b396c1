"""A course for the dashboard tests, made through the services: an instructor, a TA, two students
and an outsider; one assignment with a fixed textbook tree (answers known in advance) and a
generated slot."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.gametree import KINDS, Conventions, Tree
from grader.models import User

TEXTBOOK = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]  # AIMA's: root 3, C's last two leaves pruned
TEACHER, TA, ALICE, BOB, OUTSIDER = (
    "teacher@example.com",
    "ta@example.com",
    "alice@example.com",
    "bob@example.com",
    "outsider@example.com",
)


@dataclass
class Room:
    course_id: int
    join_code: str
    assignment_id: int
    ids: dict[str, int]


def user(email: str) -> User:
    return db.session.scalar(sa.select(User).where(User.email == email))


def textbook_key(kind: str = "prune", conventions: dict[str, str] | None = None) -> dict[str, Any]:
    return KINDS[kind].key(Tree.from_nested(TEXTBOOK), Conventions.from_dict(conventions or {}))


def slot_preview(**changes: str) -> dict[str, str]:
    """The slot editor's form asking for a preview of a generated prune slot (depth 3, branching
    2-3, values -9..9, a cutoff, the default conventions), with ``changes`` made to it."""
    return {
        "kind": "prune",
        "source": "generate",
        "depth": "3",
        "branching": "2-3",
        "values": "-9..9",
        "min_cutoffs": "1",
        "ties": "prune",
        "values_rule": "soft",
        "order": "ltr",
        "action": "preview",
        **changes,
    }


def add_textbook_slot(
    teacher: User, assignment_id: int, title: str, *, attempts_allowed: int | None = None
) -> Any:
    """A prune slot on the textbook tree, default conventions, added through the editor."""
    from grader.services.teaching import editor

    return editor.add_slot(
        teacher,
        assignment_id,
        editor.SlotInput(
            kind="prune",
            conventions={},
            tree=Tree.from_nested(TEXTBOOK),
            title=title,
            attempts_allowed=attempts_allowed,
        ),
    )


def make_room(
    app: Any,
    factory: Any,
    *,
    due_at: dt.datetime | None = None,
    late: float | None = None,
    policy: str = "best",
) -> Room:
    from grader.services.teaching import editor

    for email, role in (
        (TEACHER, "instructor"),
        (TA, "student"),
        (ALICE, "student"),
        (BOB, "student"),
        (OUTSIDER, "student"),
    ):
        factory.user(email, role)
    course_id, join_code = factory.course("Search 101", TEACHER)
    factory.member(course_id, TA, "ta")
    factory.member(course_id, ALICE, "student")
    factory.member(course_id, BOB, "student")
    other_id, _ = factory.course("Another course")
    factory.member(other_id, OUTSIDER, "student")
    with app.app_context():
        teacher = user(TEACHER)
        assignment = editor.create_assignment(
            teacher,
            course_id,
            editor.AssignmentInput(
                title="Homework 1", due_at=due_at, late_percent_per_day=late, score_policy=policy
            ),
        )
        add_textbook_slot(teacher, assignment.id, "Textbook tree")
        editor.add_slot(
            teacher,
            assignment.id,
            editor.SlotInput(
                kind="values",
                conventions={},
                params={"depth": 3, "min_cutoffs": 1},
                title="Values",
                attempts_allowed=None,
            ),
        )
        ids = {email: user(email).id for email in (TEACHER, TA, ALICE, BOB, OUTSIDER)}
        return Room(course_id, join_code, assignment.id, ids)


def answer(app: Any, email: str, assignment_id: int, index: int, reply: dict[str, Any]) -> Any:
    """The student opens the slot and submits `reply`; returns the stored attempt."""
    from grader.services.trees import attempts, exercises

    with app.app_context():
        student = user(email)
        exercise = exercises.slot_exercise(student, assignment_id, index)
        return attempts.submit(student, exercise.id, reply).attempt


def wrong_prune(diagnosed: str | None = "no-pruning") -> dict[str, Any]:
    """A wrong answer to the textbook tree: nothing pruned is plain minimax (no-pruning)."""
    return {"pruned": [], "value": 3}
