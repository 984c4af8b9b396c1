"""Answers that belong to another student's tree.

Every student answers their own seeded variant of a slot, so an answer that is wrong on the
student's own tree but right on a classmate's is strong evidence of copying: the answer was
made for the other tree. For each graded attempt with three errors or more on its own tree,
the check grades the same answer against the key of each classmate's variant of the slot; it
flags the pair when the answer is exact or one error away on one classmate's tree, fits no
other classmate's tree as well (an answer that fits several trees alike, as a small tree's
pruning can, points at no one), and that classmate had submitted before the attempt (their
key could have been seen). An answer that cannot be graded on the other tree (a path that
tree lacks) is simply not a match there.

Errors are the kinds' own (gametree.kinds: score = 1 - e/5 - e(e-1)/20, so 0.8 is one error,
0.1 three, 0 four or more). Skipped, with the reason on the page: best-order slots (scored by
the leaves an order evaluates, not by errors) and fixed textbook trees (everyone has the same
tree). It runs as a queue job (`checks`), off the submission path: grading an attempt does not
wait for it or pay for it. The worker's sweep asks for it by itself (`due`) once an assignment
has graded answers newer than its last check, at most every AUTO_EVERY; an instructor can ask
at any time. Nothing here changes a score.
"""

# Whole: one check, its request to its report, over the same variants.

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import aliased

from grader.extensions import db
from grader.gametree import KINDS, Conventions, Tree, grade
from grader.gametree.kinds import error_score
from grader.models import (
    ANSWERS_CHECK,
    QUEUED,
    RUNNING,
    STUDENT,
    Assignment,
    Attempt,
    Exercise,
    IntegrityCheck,
    Membership,
    Slot,
    User,
    iso_utc,
    utcnow,
)
from grader.services import NotFound
from grader.services.courses.staff import Staff, staff_for_assignment
from grader.services.integrity import checks
from grader.services.trees.exercises import tree_of

Progress = Callable[[dict[str, Any]], None]

MANY = 3  # errors on the student's own tree from which an answer is looked at
NEAR = 1  # at most this many errors on the classmate's tree: the answer is theirs


def errors(score: float) -> int:
    """The errors a kind's score stands for (4: four or more)."""
    return next(e for e in range(5) if error_score(e) <= score + 1e-9)


def why_skipped(slot: Slot) -> str | None:
    """Why a slot cannot be checked, or None when it is."""
    if not slot.slot_kind.has_exercise:
        return "an engine slot: see its similarity page"
    if not KINDS[slot.kind].counts_errors:
        return f"{slot.kind} answers are not scored by counting errors"
    if slot.tree is not None:
        return "a fixed tree: every student has the same one"
    return None


def _staff(user: User, assignment_id: int, *, change: bool = False) -> tuple[Staff, Assignment]:
    who, assignment = staff_for_assignment(user, assignment_id)
    checks.integrity_staff(user, who.course.id, change=change)
    return who, assignment


def request_check(user: User | None, assignment_id: int, *, wake: bool = True) -> IntegrityCheck:
    """Ask for the assignment's answers check (instructors; `user` None: the command line)."""
    if user is not None:
        _staff(user, assignment_id, change=True)
    elif db.session.get(Assignment, assignment_id) is None:
        raise NotFound(f"no assignment {assignment_id}")
    return checks.request(ANSWERS_CHECK, assignment_id, None, {}, user, wake=wake)


AUTO_EVERY = dt.timedelta(minutes=10)  # the sweep's own checks of an assignment, at most this often


def due(now: dt.datetime | None = None) -> list[int]:
    """The assignments whose graded answers are newer than their last answers check, that check
    (if any) at least AUTO_EVERY old: the worker's sweep asks for their check, so every graded
    answer is also scored against the classmates' trees, in the queue, never on the submission
    path (which neither waits for it nor enqueues anything). An assignment whose course has
    another check queued or running waits for it (a course runs one check at a time)."""
    now = now or utcnow()
    own, other = aliased(Assignment), aliased(Assignment)
    busy = (
        sa.select(IntegrityCheck.id)
        .join(other, other.id == IntegrityCheck.assignment_id)
        .where(
            other.course_id == own.course_id,
            IntegrityCheck.status.in_([QUEUED, RUNNING]),
            ~sa.and_(IntegrityCheck.kind == ANSWERS_CHECK, IntegrityCheck.assignment_id == own.id),
        )
    )
    last_check = (
        sa.select(IntegrityCheck.assignment_id, sa.func.max(IntegrityCheck.created_at).label("at"))
        .where(IntegrityCheck.kind == ANSWERS_CHECK)
        .group_by(IntegrityCheck.assignment_id)
        .subquery()
    )
    last_answer = (
        sa.select(Slot.assignment_id, sa.func.max(Attempt.created_at).label("at"))
        .join(Exercise, Exercise.slot_id == Slot.id)
        .join(Attempt, Attempt.exercise_id == Exercise.id)
        .where(Exercise.variant == 0, Slot.tree.is_(None))
        .group_by(Slot.assignment_id)
        .subquery()
    )
    return list(
        db.session.scalars(
            sa.select(last_answer.c.assignment_id)
            .join(own, own.id == last_answer.c.assignment_id)
            .outerjoin(last_check, last_check.c.assignment_id == last_answer.c.assignment_id)
            .where(
                ~busy.exists(),
                sa.or_(
                    last_check.c.at.is_(None),
                    sa.and_(
                        last_answer.c.at > last_check.c.at,
                        last_check.c.at <= now - AUTO_EVERY,
                    ),
                ),
            )
            .order_by(last_answer.c.assignment_id)
        )
    )


def latest_check(user: User, assignment_id: int) -> IntegrityCheck | None:
    """The assignment's last answers check, for the staff who may see it (the page polls it)."""
    _staff(user, assignment_id)
    return checks.latest(ANSWERS_CHECK, assignment_id, None)


# -- the job --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Variant:
    exercise: Exercise
    first_at: Any  # the owner's first attempt on it (a datetime), None: none yet


def _variants(slot: Slot, students: sa.Select) -> dict[int, _Variant]:
    """The students' graded variants of the slot, by owner, with their first attempt's time."""
    first = (
        sa.select(Attempt.exercise_id, sa.func.min(Attempt.created_at).label("first_at"))
        .group_by(Attempt.exercise_id)
        .subquery()
    )
    rows = db.session.execute(
        sa.select(Exercise, first.c.first_at)
        .outerjoin(first, first.c.exercise_id == Exercise.id)
        .where(
            Exercise.slot_id == slot.id,
            Exercise.variant == 0,
            Exercise.owner_id.in_(students),
        )
        .order_by(Exercise.owner_id)
    )
    return {exercise.owner_id: _Variant(exercise, first_at) for exercise, first_at in rows}


def _suspects(variants: dict[int, _Variant]) -> list[Attempt]:
    """The graded attempts with MANY errors or more on their own tree, oldest first."""
    ids = [v.exercise.id for v in variants.values()]
    if not ids:
        return []
    return [
        a
        for a in db.session.scalars(
            sa.select(Attempt)
            .where(Attempt.exercise_id.in_(ids))
            .order_by(Attempt.created_at, Attempt.id)
        )
        if errors(a.score) >= MANY
    ]


def _errors_on(variant: _Variant, answer: Any) -> int | None:
    """The answer's errors on another tree; None when it cannot be graded there."""
    exercise = variant.exercise
    try:
        tree = tree_of(exercise)
        graded = grade(exercise.kind, tree, Conventions.from_dict(exercise.conventions), answer)
    except ValueError:  # UngradableAnswer: a path this tree lacks, a part of another shape
        return None
    return errors(graded.score)


def compute(check: IntegrityCheck, progress: Progress) -> dict[str, Any]:
    """The flags (slot, who answered, whose tree it fits, the attempts) and what was checked."""
    assignment = db.session.get_one(Assignment, check.assignment_id)
    students = sa.select(Membership.user_id).where(
        Membership.course_id == assignment.course_id, Membership.role == STUDENT
    )
    slots, work = [], []
    for slot in assignment.slots:
        why = why_skipped(slot)
        slots.append({"slot": slot.id, "index": slot.index, "skipped": why})
        if why is None:
            variants = _variants(slot, students)
            work.append((slot, variants, _suspects(variants)))
    total = sum(len(suspects) for _, _, suspects in work)
    done = 0
    progress({"phase": "answers", "done": 0, "total": total})
    flags: dict[tuple[int, int, int], dict[str, Any]] = {}
    compared = 0
    for slot, variants, suspects in work:
        for attempt in suspects:
            fits: dict[int, int] = {}  # classmate -> the answer's errors on their tree
            for owner, variant in variants.items():
                if owner == attempt.user_id:
                    continue
                compared += 1
                there = _errors_on(variant, attempt.answer)
                if there is not None and there <= NEAR:
                    fits[owner] = there
            done += 1
            progress({"phase": "answers", "done": done, "total": total})
            if not fits:
                continue
            best = min(fits.values())
            leaders = [owner for owner, there in fits.items() if there == best]
            source = variants[leaders[0]]
            seen = source.first_at is not None and source.first_at < attempt.created_at
            if len(leaders) > 1 or not seen:
                continue  # it fits several trees as well (says nothing), or a key not yet seen
            key = (slot.id, attempt.user_id, leaders[0])
            flag = flags.setdefault(
                key,
                {
                    "slot": slot.id,
                    "index": slot.index,
                    "copier": attempt.user_id,
                    "source": leaders[0],
                    "attempts": [],
                    "own_errors": errors(attempt.score),
                    "errors_there": best,
                    "source_first_at": iso_utc(source.first_at),
                },
            )
            flag["attempts"].append(attempt.id)
            flag["errors_there"] = min(flag["errors_there"], best)
    return {
        "flags": sorted(flags.values(), key=lambda f: (f["index"], f["copier"], f["source"])),
        "slots": slots,
        "suspects": total,
        "compared": compared,
    }


# -- what the staff read ----------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One student's tree, drawn with the flagged answer and that tree's key."""

    user: User
    exercise: Exercise
    key: dict[str, Any]
    labels: dict[str, str]


@dataclass(frozen=True)
class Flag:
    slot: Slot
    attempt: Attempt  # the first attempt flagged
    attempts: int  # how many of the copier's attempts fit the classmate's tree
    own_errors: int
    errors_there: int
    copier: Side
    source: Side
    source_first_at: Any  # when the classmate first submitted (a datetime)

    def drawing(self) -> dict[str, Any]:
        """What the page's script draws: both trees, the answer, each tree's key."""
        return {
            "kind": self.slot.kind,
            "answer": self.attempt.answer,
            "sides": [
                {
                    "tree": side.exercise.tree,
                    "players": side.exercise.players,
                    "key": side.key,
                }
                for side in (self.copier, self.source)
            ],
        }


@dataclass
class AnswersReport:
    staff: Staff
    assignment: Assignment
    check: IntegrityCheck | None
    flags: list[Flag] = field(default_factory=list)
    skipped: list[tuple[Slot, str]] = field(default_factory=list)

    @property
    def result(self) -> dict[str, Any]:
        return (self.check.result or {}) if self.check is not None else {}


def _side(user: User, exercise: Exercise) -> Side:
    tree: Tree = tree_of(exercise)
    key = KINDS[exercise.kind].key(tree, Conventions.from_dict(exercise.conventions))
    return Side(user, exercise, key, tree.labels())


def report(user: User, assignment_id: int) -> AnswersReport:
    """The assignment's last answers check for its staff, each flag with both trees."""
    who, assignment = _staff(user, assignment_id)
    check = checks.latest(ANSWERS_CHECK, assignment_id, None)
    found = AnswersReport(who, assignment, check)
    slots = {s.id: s for s in assignment.slots}
    found.skipped = [(s, why) for s in assignment.slots if (why := why_skipped(s)) is not None]
    for raw in found.result.get("flags", []):
        slot = slots.get(raw["slot"])
        attempts = list(
            db.session.scalars(
                sa.select(Attempt)
                .where(Attempt.id.in_(raw["attempts"]))
                .order_by(Attempt.created_at, Attempt.id)
            )
        )
        variants = {
            e.owner_id: e
            for e in db.session.scalars(
                sa.select(Exercise).where(
                    Exercise.slot_id == raw["slot"],
                    Exercise.variant == 0,
                    Exercise.owner_id.in_([raw["copier"], raw["source"]]),
                )
            )
        }
        if slot is None or not attempts or len(variants) < 2:
            continue  # deleted since the check
        source_first = db.session.scalar(
            sa.select(sa.func.min(Attempt.created_at)).where(
                Attempt.exercise_id == variants[raw["source"]].id
            )
        )
        people = {
            u.id: u
            for u in db.session.scalars(
                sa.select(User).where(User.id.in_([raw["copier"], raw["source"]]))
            )
        }
        found.flags.append(
            Flag(
                slot,
                attempts[0],
                len(attempts),
                raw["own_errors"],
                raw["errors_there"],
                _side(people[raw["copier"]], variants[raw["copier"]]),
                _side(people[raw["source"]], variants[raw["source"]]),
                source_first,
            )
        )
    return found


def flags_for_command(check: IntegrityCheck) -> list[dict[str, Any]]:
    """The check's flags as the command line prints them."""
    found = []
    for raw in (check.result or {}).get("flags", []):
        people = dict(
            db.session.execute(
                sa.select(User.id, User.email).where(User.id.in_([raw["copier"], raw["source"]]))
            ).all()
        )
        times = list(
            db.session.scalars(
                sa.select(Attempt.created_at)
                .where(Attempt.id.in_(raw["attempts"]))
                .order_by(Attempt.created_at)
            )
        )
        found.append(
            {
                "exercise": raw["index"] + 1,
                "student": people.get(raw["copier"]),
                "matches_tree_of": people.get(raw["source"]),
                "errors_on_own_tree": raw["own_errors"],
                "errors_on_their_tree": raw["errors_there"],
                "attempts": raw["attempts"],
                "first_attempt_at": iso_utc(times[0]) if times else None,
                "their_first_attempt_at": raw.get("source_first_at"),
            }
        )
    return found


__all__ = [
    "AnswersReport",
    "Flag",
    "compute",
    "errors",
    "flags_for_command",
    "latest_check",
    "report",
    "request_check",
    "why_skipped",
]
