"""Adaptive practice: a student's standing per misconception, built from their stored graded and
practice attempts (diagnoses, and which misconceptions each answered tree exposes), the next tree
planned by `grader.gametree.adaptive`, and the course-wide view for the course's staff."""

from __future__ import annotations

import datetime as dt
import functools
import json
import random
import secrets
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from flask import current_app

from grader.extensions import db
from grader.gametree import VARIANTS, Conventions, Tree
from grader.gametree.adaptive import (
    MASTERED,
    PRACTISING,
    Practised,
    Standing,
    aim,
    next_practice,
    standings,
)
from grader.gametree.generator import exposing
from grader.models import STUDENT, Assignment, Attempt, Exercise, Membership, Slot, User, utcnow
from grader.services.courses import release
from grader.services.courses.staff import Staff, staff
from grader.services.transactions import writing
from grader.services.trees.exercises import PRACTICE, create_practice, get_exercise

HISTORY = 300  # the latest attempts a standing is built from: bounded work per page
PRUNE_BATCH = 500  # abandoned exercises deleted per transaction: the write lock held briefly
STUCK = 8  # trees answered that expose a misconception still practising: stuck


@functools.lru_cache(maxsize=4096)
def _exposed(kind: str, tree: str, players: str, conventions: str) -> frozenset[str]:
    """The misconceptions a stored tree exposes (keyed by content: exercises never change)."""
    built = Tree.from_dict({"tree": json.loads(tree), "players": json.loads(players)})
    return frozenset(exposing(built, Conventions.from_dict(json.loads(conventions)), kind))


def _history(
    user_ids: list[int], course_id: int | None = None, *, viewer_id: int | None = None
) -> dict[int, list[Practised]]:
    """Each user's latest attempts, oldest first, as the policy sees them: all of them (graded
    and private practice) for the user's own standing; with `course_id`, only those on that
    course's exercises (its graded variants and its slots' practice variants), which is all a
    course's staff may read of a student. Read for `viewer_id`, attempts whose grade is held
    from that viewer (`release.held_work`) are left out until their release."""
    attempts = sa.select(
        Attempt.id,
        sa.func.row_number()
        .over(partition_by=Attempt.user_id, order_by=Attempt.id.desc())
        .label("n"),
    ).where(Attempt.user_id.in_(user_ids))
    if course_id is not None:
        attempts = (
            attempts.join(Exercise, Exercise.id == Attempt.exercise_id)
            .join(Slot, Slot.id == Exercise.slot_id)
            .join(Assignment, Assignment.id == Slot.assignment_id)
            .where(Assignment.course_id == course_id)
        )
    ranked = attempts.subquery()
    rows = db.session.scalars(
        sa.select(Attempt)
        .join(ranked, ranked.c.id == Attempt.id)
        .options(sa.orm.joinedload(Attempt.exercise))
        .order_by(Attempt.id)
        .where(ranked.c.n <= HISTORY)
    )
    found: dict[int, list[Practised]] = {uid: [] for uid in user_ids}
    cache: dict[Any, Any] = {}
    for a in rows:
        if viewer_id is not None and release.held_work(viewer_id, a, cache=cache):
            continue  # right or wrong, and the misconception, are held with the score
        exposed = _exposed(
            a.kind,
            json.dumps(a.exercise.tree),
            json.dumps(a.exercise.players),
            json.dumps(a.conventions, sort_keys=True),
        )
        found[a.user_id].append(Practised(a.kind, a.score >= 1.0, a.diagnosis, exposed))
    return found


@dataclass(frozen=True)
class Progress:
    standings: list[Standing]  # in the misconception library's order
    attempts: int

    def count(self, status: str) -> int:
        return sum(s.status == status for s in self.standings)


def progress(user: User) -> Progress:
    """The user's own standing per misconception."""
    history = _history([user.id], viewer_id=user.id)[user.id]
    return Progress(list(standings(history).values()), len(history))


def practise_weak_spots(user: User) -> Exercise:
    """One click: a practice exercise on the tree the policy plans for the user's history."""
    plan = next_practice(
        _history([user.id], viewer_id=user.id)[user.id], random.Random(secrets.token_hex(8))
    )
    params = plan.params.to_dict()
    conventions = params.pop("conventions")
    return create_practice(user, plan.kind, params=params, conventions=conventions)


def practice_aim(user: User, exercise_id: int) -> str | None:
    """What a weak-spots tree was made to expose, once its owner has answered it (None before,
    and for every other exercise)."""
    exercise = get_exercise(user, exercise_id)
    target = (exercise.params or {}).get("expose") if exercise.slot_id is None else None
    if exercise.owner_id != user.id or target not in VARIANTS:
        return None
    answered = db.session.scalar(
        sa.select(sa.func.count(Attempt.id)).where(
            Attempt.exercise_id == exercise.id, Attempt.user_id == user.id
        )
    )
    return aim(target) if answered else None


@dataclass(frozen=True)
class StudentRow:
    user_id: int
    email: str
    attempts: int
    practising: list[str]
    mastered: int
    stuck: list[str]  # practising codes with STUCK or more exposing trees answered


@dataclass(frozen=True)
class CourseProgress:
    staff: Staff
    holding: dict[str, int]  # students practising each misconception now
    mastered: dict[str, int]
    students: list[StudentRow]

    @property
    def stuck(self) -> list[StudentRow]:
        return [row for row in self.students if row.stuck]


def course_progress(user: User, course_id: int) -> CourseProgress:
    """For the course's staff: who holds each misconception now, and who is stuck, from what
    each student did in this course alone (never their private practice or other courses)."""
    as_staff = staff(user, course_id)
    members = db.session.execute(
        sa.select(User.id, User.email)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.course_id == course_id, Membership.role == STUDENT)
        .order_by(User.email)
    ).all()
    histories = _history([uid for uid, _ in members], course_id, viewer_id=user.id)
    holding = dict.fromkeys(VARIANTS, 0)
    mastered = dict.fromkeys(VARIANTS, 0)
    rows = []
    for user_id, email in members:
        states = standings(histories[user_id])
        practising = [c for c, s in states.items() if s.status == PRACTISING]
        for code in practising:
            holding[code] += 1
        for code, state in states.items():
            mastered[code] += state.status == MASTERED
        stuck = [c for c in practising if states[c].exposing >= STUCK]
        rows.append(
            StudentRow(
                user_id,
                email,
                len(histories[user_id]),
                practising,
                sum(s.status == MASTERED for s in states.values()),
                stuck,
            )
        )
    return CourseProgress(as_staff, holding, mastered, rows)


def prune_abandoned(now: dt.datetime | None = None) -> int:
    """Deletes practice exercises never answered (no attempt) and made more than
    `GRADER_PRACTICE_ABANDONED_DAYS` ago, in batches; the number deleted (the worker's sweep)."""
    days = float(current_app.config["GRADER_PRACTICE_ABANDONED_DAYS"])
    before = (now or utcnow()) - dt.timedelta(days=days)
    abandoned = (
        sa.select(Exercise.id)
        .where(
            PRACTICE,
            Exercise.created_at < before,
            ~sa.exists().where(Attempt.exercise_id == Exercise.id),
        )
        .limit(PRUNE_BATCH)
    )
    deleted = 0
    while ids := list(db.session.scalars(abandoned)):
        with writing() as session:
            # Again under the write lock: an answer may have come since the read.
            result = session.execute(
                sa.delete(Exercise).where(
                    Exercise.id.in_(ids), ~sa.exists().where(Attempt.exercise_id == Exercise.id)
                )
            )
        deleted += int(getattr(result, "rowcount", 0) or 0)
        if len(ids) < PRUNE_BATCH:
            break
    return deleted
