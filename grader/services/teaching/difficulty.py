"""How hard a class's own trees are: for each tree slot of an assignment, calibration's table and
its spread (``gametree.calibrate``) measured on the graded trees its students were given, not on
the generator's seeds as ``grader tree calibrate`` measures a preset. An instructor sees whether
one student's tree asked more than a classmate's: each answer's mean and standard deviation, the
student whose tree was the farthest from the goal, the share of trees on which a misconception
gives the key, and the spread of the answers to give, the cutoffs, the nodes to mark pruned and
the leaves evaluated."""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlalchemy as sa

from grader.extensions import db
from grader.gametree import KINDS
from grader.gametree.calibrate import Calibration, Row, Spread
from grader.gametree.solver import Conventions
from grader.models import Exercise, User
from grader.services import Conflict
from grader.services.courses.staff import staff_for_assignment
from grader.services.trees.exercises import tree_of

#: The most trees of a slot measured on one page: a course of any size is read in one request,
#: the trees beyond it (in the order students were given them) left out and counted.
MAX_TREES = 2000


@dataclass(frozen=True)
class SlotDifficulty:
    """One tree slot of the class: ``trees`` the graded trees measured (``left_out`` more not,
    past ``MAX_TREES``; ``unreadable`` stored trees that can no longer be read); ``rows`` and
    ``spreads`` as calibration gives them, a tree named by its student's name or address.
    ``calibrates`` False: the kind has neither misconception variants nor blind answers (as
    best-order's order as given), nothing is measured."""

    index: int
    title: str
    kind: str
    calibrates: bool
    trees: int = 0
    left_out: int = 0
    unreadable: int = 0
    rows: list[Row] = field(default_factory=list)
    spreads: list[Spread] = field(default_factory=list)


def _conventions(exercise: Exercise) -> Conventions:
    return Conventions.from_dict(exercise.conventions or {})


def class_difficulty(user: User, assignment_id: int) -> list[SlotDifficulty]:
    """Each tree slot of the assignment measured on its students' graded trees (the instructor
    or an assistant of its course; NotFound, Forbidden otherwise). A fixed (textbook) slot gives
    every student the same tree: its spread is nothing."""
    _, assignment = staff_for_assignment(user, assignment_id)
    found = []
    for slot in assignment.slots:
        if not slot.slot_kind.has_exercise:
            continue
        kind = KINDS[slot.kind]
        if not kind.measured:
            found.append(SlotDifficulty(slot.index, slot.name, slot.kind, False))
            continue
        rows = db.session.execute(
            sa.select(Exercise, User.name, User.email)
            .join(User, User.id == Exercise.owner_id)
            .where(Exercise.slot_id == slot.id, Exercise.variant == 0)
            .order_by(Exercise.id)
            .limit(MAX_TREES + 1)
        ).all()
        total = db.session.scalar(
            sa.select(sa.func.count(Exercise.id)).where(
                Exercise.slot_id == slot.id, Exercise.variant == 0
            )
        )
        table = Calibration(slot.kind, Conventions.from_dict(slot.conventions), f"class:{slot.id}")
        unreadable = 0
        for exercise, name, email in rows[:MAX_TREES]:
            try:  # each under the rules it was given (a slot's may have changed since)
                table.add(tree_of(exercise), name or email, _conventions(exercise))
            except Conflict:
                unreadable += 1
        found.append(
            SlotDifficulty(
                slot.index,
                slot.name,
                slot.kind,
                True,
                trees=table.trees,
                left_out=max(0, (total or 0) - MAX_TREES),
                unreadable=unreadable,
                rows=table.rows(),
                spreads=table.spreads(),
            )
        )
    return found


__all__ = ["MAX_TREES", "SlotDifficulty", "class_difficulty"]
