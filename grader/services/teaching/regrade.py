"""Regrades: a slot's attempts graded again against its exercises as they now are (conventions,
fixed tree) and their lateness recomputed from the due date and late policy as they now are.

Policy: by default no credited score goes down, so an attempt whose new credited score
(score × (1 − penalty)) would be lower keeps its old grading whole; `allow_lower` takes the new one
anyway. Every regrade writes one entry in the course's audit log (`audit_log.record`: who,
when, what changed, how many attempts, old and new credited score of each attempt that changed
or was kept), in the same transaction.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from grader.gametree import Conventions, Tree, grade
from grader.models import Attempt, AuditEntry, Exercise, Slot, User, utcnow
from grader.services import outbox
from grader.services.courses import audit_log, deadlines
from grader.services.courses.staff import staff_for_slot
from grader.services.transactions import writing

EPSILON = 1e-9


def _describe_slot(slot: Slot) -> str:
    return f"{slot.assignment.title}, exercise {slot.index + 1} ({slot.name})"


def regrade_slot_in(
    session: Session,
    slot: Slot,
    actor_id: int | None,
    changes: dict[str, Any],
    *,
    allow_lower: bool = False,
) -> AuditEntry | None:
    """Regrades every attempt of `slot` inside the caller's transaction; None if it has none."""
    rows = list(
        session.execute(
            sa.select(Attempt, Exercise)
            .join(Exercise, Attempt.exercise_id == Exercise.id)
            .where(Exercise.slot_id == slot.id)
            .order_by(Attempt.id)
        )
    )
    if not rows:
        return None
    now = utcnow()
    details: list[dict[str, Any]] = []
    changed = 0
    trees: dict[int, Tree] = {}
    for attempt, exercise in rows:
        tree = trees.get(exercise.id)
        if tree is None:
            tree = trees[exercise.id] = Tree.from_dict(
                {"tree": exercise.tree, "players": exercise.players}
            )
        try:
            result = grade(
                exercise.kind, tree, Conventions.from_dict(exercise.conventions), attempt.answer
            )
        except ValueError:  # the answer no longer fits the exercise (a node that is gone)
            result = None
        late = (
            deadlines.Lateness(0, 0.0, 0)
            if exercise.variant
            else deadlines.lateness_for(attempt.user_id, slot, attempt.created_at)
        )
        days, penalty = late.days, late.penalty
        new_score = result.score if result else 0.0
        old_credited = attempt.credited
        new_credited = new_score * (1.0 - penalty)
        same = abs(new_score - attempt.score) < EPSILON and abs(penalty - attempt.penalty) < EPSILON
        if same and result is not None:
            attempt.slip_days = late.slip_days
            _apply(attempt, exercise, result, new_score, days, penalty, None)
            continue
        kept = new_credited < old_credited - EPSILON and not allow_lower
        details.append(
            {
                "attempt_id": attempt.id,
                "user_id": attempt.user_id,
                "old": round(old_credited, 6),
                "new": round(new_credited, 6),
                "kept": kept,
            }
        )
        if kept:
            continue  # the old grading stands whole: score, feedback and what it was graded on
        changed += 1
        attempt.slip_days = late.slip_days
        _apply(attempt, exercise, result, new_score, days, penalty, now)
    entry = audit_log.record(
        session,
        slot.assignment.course_id,
        actor_id,
        _describe_slot(slot),
        changes,
        details,
        slot.id,
        allow_lower=allow_lower,
        attempts_total=len(rows),
        attempts_changed=changed,
        created_at=now,
    )
    outbox.passback_after_commit(
        session, [(d["user_id"], slot.id) for d in details if not d["kept"]]
    )
    return entry


# The grade of an answer that no longer fits its exercise (a node that is gone).
UNFIT: dict[str, Any] = {
    "score": 0.0,
    "parts": {},
    "feedback": ["This answer no longer fits the exercise as it now is."],
    "diagnosis": None,
    "diagnosis_text": None,
    "first_wrong": None,
    "scoring": None,
}


def _apply(
    attempt: Attempt,
    exercise: Exercise,
    result: Any,
    score: float,
    days: int,
    penalty: float,
    when: Any,
) -> None:
    graded = UNFIT if result is None else result.to_dict()
    for name in Attempt.GRADED:
        setattr(attempt, name, graded[name])
    attempt.score = score
    attempt.days_late = days
    attempt.penalty = penalty
    attempt.conventions = exercise.conventions
    for name, value in Attempt.graded_by(exercise.kind).items():
        setattr(attempt, name, value)
    if when is not None:
        attempt.regraded_at = when


def regrade_slot(
    user: User,
    assignment_id: int,
    index: int,
    *,
    allow_lower: bool = False,
    reason: str = "manual regrade",
) -> AuditEntry | None:
    """Regrades a slot as it now is (instructors only): after an edit, or to recompute lateness."""
    _, found = staff_for_slot(user, assignment_id, index, change=True)
    with writing() as session:
        slot = session.get_one(Slot, found.id)
        return regrade_slot_in(session, slot, user.id, {"reason": reason}, allow_lower=allow_lower)


__all__ = ["regrade_slot", "regrade_slot_in"]
