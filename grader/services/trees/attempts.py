"""Attempts: grading an answer and storing it, and who may see which attempt and solution."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.gametree import KINDS, Conventions, Grade, Tree, UngradableAnswer, grade
from grader.models import MAX_ID, Assignment, Attempt, Exercise, Slot, User, iso_utc, utcnow
from grader.services import Conflict, Forbidden, NotFound, Unprocessable, costly, outbox
from grader.services.courses import deadlines, release, zones
from grader.services.courses.courses import check_open, member_slot_ids, taught_course_ids
from grader.services.transactions import writing
from grader.services.trees.exercises import (
    attempt_stats,
    exercise_and_terms,
    solution_visible,
    tree_of,
)


def _check_open(exercise: Exercise, used: int, terms: deadlines.Deadline | None) -> None:
    """Refuses an attempt past the owner's limit or due date (`terms`: theirs on the slot)."""
    allowed = terms.attempts_allowed if terms is not None and not exercise.is_practice else None
    if allowed is not None and used >= allowed:
        raise Conflict(f"no attempts left: {used} of {allowed} used")
    if exercise.slot is not None:
        check_open(exercise.slot.assignment.course)
    if not exercise.is_practice and exercise.slot is not None:
        # The student's own due date, or the end of its late window.
        closed = deadlines.closed(exercise.owner_id, exercise.slot, utcnow(), terms)
        if closed is not None:
            zone = exercise.slot.assignment.course.timezone
            raise Conflict(f"your due date ({zones.words(closed, zone)}) has passed")


_INSERT_ATTEMPT = sa.insert(Attempt)  # built once: every graded attempt runs it
# Built once, asked under the write lock by every graded variant's attempt: the attempts made
# and the best score (the index on (exercise_id, user_id)), and whether the slot is placed in an
# LMS (whose score to send), in one statement.
_STATS_AND_PLACED = sa.select(
    sa.func.count(Attempt.id), sa.func.max(Attempt.score), outbox.SLOT_PLACED.label("placed")
).where(
    Attempt.exercise_id == sa.bindparam("exercise_id"), Attempt.user_id == sa.bindparam("user_id")
)


@dataclass(frozen=True)
class Submitted:
    attempt: Attempt
    solution: dict[str, Any] | None  # present when this attempt earned it
    # The held-score gate's answers for the owner (`release.held_work`'s cache), asked once for
    # the solution and again free for the response (`to_api`).
    gate: dict[Any, Any]


def submit(user: User, exercise_id: int, answer: dict[str, Any]) -> Submitted:
    """Grades the answer and stores the attempt; an ungradable answer stores nothing.

    The attempt is committed before this returns, so the solution returned with it is earned.
    """
    # The owner's terms (their extensions counted), read with the exercise, for every check below.
    exercise, terms = exercise_and_terms(user, exercise_id)
    if exercise.owner_id != user.id:
        raise Forbidden("only the student this exercise was made for can answer it")
    # Graded variants have limits and a due date; practice has neither, so no count is needed.
    limited = not exercise.is_practice
    # From stored facts: a costly attempt is refused (busy, or past the account's share) before
    # its tree is built.
    is_costly = costly.grading_is_costly(exercise.node_count, exercise.dp_size)
    if limited:  # refuse before grading: the due date; the count only where grading is costly
        _check_open(exercise, attempt_stats(exercise)[0] if is_costly else 0, terms)
    conventions = Conventions.from_dict(exercise.conventions)
    try:
        with costly.permit("grading a large tree", is_costly, user.id):
            tree = tree_of(exercise)
            result = grade(exercise.kind, tree, conventions, answer)
    except UngradableAnswer as exc:  # its words are for the student; any other error is ours
        if limited:  # no attempts left is said first, as when it is checked before grading
            _check_open(exercise, attempt_stats(exercise)[0], terms)
        # The answer's shape depends on the stored exercise, which no schema can say: name it.
        raise Unprocessable(f"this is a {exercise.kind} exercise: {exc}", exercise.kind) from exc
    # What the row holds besides the time: made before the write lock, which is held briefly.
    graded: dict[str, Any] = {
        **result.to_dict(),  # Attempt.GRADED
        **{name: getattr(exercise, name) for name in Attempt.FROM_EXERCISE},
        **Attempt.graded_by(exercise.kind),
    }
    gate: dict[Any, Any] = {}
    if limited and exercise.slot is not None:  # in the read transaction, before the write
        release.held_work(user.id, release.Standing(user.id, exercise.slot.assignment), cache=gate)
    with writing() as session:
        # The count that decides, under the write lock: one query, no ORM objects.
        used, best, placed = (
            session.connection()
            .execute(
                _STATS_AND_PLACED,
                {"exercise_id": exercise.id, "user_id": user.id, "slot_id": exercise.slot_id},
            )
            .one()
            if limited
            else (0, None, False)
        )
        _check_open(exercise, used, terms)
        now = utcnow()  # lateness from server time, when the attempt is stored
        late = (
            deadlines.Lateness(0, 0.0, 0)
            if exercise.is_practice or exercise.slot is None
            else deadlines.lateness_for(user.id, exercise.slot, now, terms)
        )
        row: dict[str, Any] = {
            "exercise_id": exercise.id,
            "user_id": user.id,
            "created_at": now,
            "days_late": late.days,
            "penalty": late.penalty,
            "slip_days": late.slip_days,
            "answer": answer,
            **graded,
        }
        # One Core insert (no unit of work); the Attempt returned is a plain copy of the row.
        inserted = session.connection().execute(_INSERT_ATTEMPT, row).inserted_primary_key
        assert inserted is not None  # a single-row INSERT has its key
        if not exercise.is_practice:
            slot_id = exercise.slot_id
            placed_ids = {slot_id} if placed and slot_id is not None else set()
            outbox.passback_after_commit(session, [(user.id, slot_id)], placed_ids)
    attempt = Attempt(id=inserted[0], exercise=exercise, user=user, **row)
    earned = solution_visible(exercise, (used + 1, max(best or 0, result.score)), terms, cache=gate)
    # The reference search (the replay: trace and per-node windows, about 400 bytes a node,
    # 14 KB of a depth-3 tree's 15.6 KB response) is the exercise's, the same for every attempt:
    # it stays out of the response, which carries the key; `GET /api/attempts/{id}` has it.
    return Submitted(
        attempt, solution(exercise, tree, result, with_search=False) if earned else None, gate
    )


def _visible(user: User) -> sa.ColumnElement[bool]:
    in_taught_course = Attempt.exercise_id.in_(
        sa.select(Exercise.id)
        .join(Slot)
        .join(Assignment)
        .where(Assignment.course_id.in_(taught_course_ids(user)))
    )
    own = sa.and_(
        Attempt.user_id == user.id,
        Attempt.exercise_id.in_(
            sa.select(Exercise.id).where(
                sa.or_(Exercise.slot_id.is_(None), Exercise.slot_id.in_(member_slot_ids(user)))
            )
        ),
    )
    return sa.or_(own, in_taught_course)


def get_attempt(user: User, attempt_id: int) -> Attempt:
    attempt = db.session.scalar(
        sa.select(Attempt)
        .where(Attempt.id == attempt_id, _visible(user))
        .options(sa.orm.joinedload(Attempt.exercise))
    )
    if attempt is None:
        raise NotFound("no such attempt")
    return attempt


def list_attempts(
    user: User,
    *,
    exercise_id: int | None = None,
    assignment_id: int | None = None,
    limit: int = 200,
) -> list[Attempt]:
    """Attempts the user may see, newest first: their own, and those of the courses they teach."""
    if any(i is not None and not 0 <= i <= MAX_ID for i in (exercise_id, assignment_id)):
        raise NotFound(
            "no such exercise or assignment"
        )  # no row has an id the database cannot hold
    query = sa.select(Attempt).where(_visible(user))
    if exercise_id is not None:
        query = query.where(Attempt.exercise_id == exercise_id)
    if assignment_id is not None:
        query = query.where(
            Attempt.exercise_id.in_(
                sa.select(Exercise.id).join(Slot).where(Slot.assignment_id == assignment_id)
            )
        )
    query = query.order_by(Attempt.id.desc()).limit(max(1, min(limit, 1000)))
    return list(
        db.session.scalars(
            query.options(
                sa.orm.joinedload(Attempt.user),
                sa.orm.joinedload(Attempt.exercise)
                .joinedload(Exercise.slot)
                .joinedload(Slot.assignment),
            )
        )
    )


@dataclass(frozen=True)
class Shown:
    """An attempt as a listing shows it to a viewer: `held_until` set, its grade (score,
    diagnosis) is held from them until then (`release.held_work`)."""

    attempt: Attempt
    held_until: dt.datetime | None


def shown_attempts(user: User, **query: Any) -> list[Shown]:
    """`list_attempts`, each passed through the release gate for the user."""
    cache: dict[Any, Any] = {}
    return [
        Shown(a, release.held_work(user.id, a, cache=cache)) for a in list_attempts(user, **query)
    ]


def solution(
    exercise: Exercise,
    tree: Tree | None = None,
    graded: Grade | None = None,
    answer: Any = None,
    *,
    with_search: bool = True,
) -> dict[str, Any]:
    """The key in the answer's own shape and the kind's reference search with its trace (plain
    minimax for a minimax exercise; None when not ``with_search``); reuses what grading
    ``graded`` already computed; ``replays``, the kind's searches of the answer beyond the
    reference (``ExerciseKind.answer_replays``: best-order's order searched and the best one)."""
    tree = tree or tree_of(exercise)
    conventions = Conventions.from_dict(exercise.conventions)
    kind = KINDS[exercise.kind]
    if graded is None or graded.search is None:
        search = kind.search(tree, conventions)
        key = kind.key(tree, conventions)
    else:
        search, key = graded.search, graded.key
    data = {"key": key, "search": search.to_dict() if with_search else None}
    replays = graded.replays if graded is not None else None
    if replays is None:
        replays = kind.answer_replays(tree, conventions, answer)
    if replays is not None:
        data["replays"] = replays
    return data


def graded_differences(
    exercise: Exercise, attempt: Attempt, solution: dict[str, Any]
) -> dict[str, Any] | None:
    """Where an answer drawn beside the key differs from it, when the grade says so rather
    than the key node by node (``ExerciseKind.graded_differences``: best-order, whose key is one
    of the best orderings). ``solution`` is ``solution(exercise, answer=attempt.answer)``. None
    for a kind whose key is the one right answer. Where the grade blames one node, the legend
    says how the staff page's two drawings mark it (the core's words name no colour)."""
    found = KINDS[exercise.kind].graded_differences(
        tree_of(exercise),
        Conventions.from_dict(exercise.conventions),
        attempt.answer,
        attempt.first_wrong,
        solution,
    )
    if found is None or "blamed" not in found:
        return found
    legend = f"{found['counts']} The grade blames {found['blamed']} ({BLAMED_MARK}): {found['why']}"
    return {"differ": found["differ"], "legend": legend}


# How the staff page's side-by-side drawings mark a node that differs (tree-view.js's wrong nodes).
BLAMED_MARK = "hatched red and marked ✗ in both trees"


def practice_replay(exercise: Exercise) -> dict[str, Any] | None:
    """The reference search of a free practice exercise (no slot, nothing graded), which may
    be watched before answering; None for an assignment's exercise."""
    return solution(exercise)["search"] if exercise.slot_id is None else None


def visible_solution(exercise: Exercise, answer: Any = None) -> dict[str, Any] | None:
    return solution(exercise, answer=answer) if solution_visible(exercise) else None


def scoring_words(attempt: Attempt, *, named: bool) -> str | None:
    """How the attempt's score came about, in words: the errors its grade counted, each kind's
    nodes named when ``named`` (the reader may see the key), the rule, then the late penalty.
    None for an attempt whose ``scoring`` is null: one a regrade found no longer fitting its
    exercise (`regrade.UNFIT`), or one revision 3f1b2c4d5e6a could not grade again to its
    stored score."""
    if not isinstance(attempt.scoring, dict):
        return None
    labels = tree_of(attempt.exercise).labels() if named else None  # as the page draws them
    words = KINDS[attempt.kind].scoring_words(attempt.scoring, labels)
    if attempt.penalty:
        days = f"{attempt.days_late} day{'' if attempt.days_late == 1 else 's'}"
        words += (
            f" Late by {days}: {attempt.penalty * 100:g}% off, so {attempt.credited:.2f} counts."
        )
    return words


def held_for_owner(
    attempt: Attempt, viewer_id: int | None, cache: dict[Any, Any] | None = None
) -> dt.datetime | None:
    """While the attempt's score is held from its owner (who is the viewer), its release
    moment; None for staff (who see everything) and once released. `cache`: the gate's answers
    the caller already has (`Submitted.gate`)."""
    return release.held_work(viewer_id, attempt, cache=cache)


def to_api(
    attempt: Attempt,
    solution: dict[str, Any] | None = None,
    *,
    viewer_id: int | None = None,
    gate: dict[Any, Any] | None = None,
) -> dict[str, Any]:
    """An attempt as the API shows it to `viewer_id`, with the solution the caller was allowed
    to give; while its score is held from its owner, the grade is left out (`gate`: the
    held-score gate's answers the caller has, `Submitted.gate`)."""
    # The grade's errors are said in words, their nodes named with the key only: the stored
    # facts (`scoring`) name every node the answer got wrong, so they stay out.
    graded = (name for name in Attempt.GRADED if name != "scoring")
    stored = ("exercise_id", "answer", *graded, *Attempt.FROM_EXERCISE)
    shown = {
        "attempt_id": attempt.id,
        "user": attempt.user.email if attempt.user else None,
        **{name: getattr(attempt, name) for name in stored},
        "scoring_words": scoring_words(attempt, named=solution is not None),
        "created_at": iso_utc(attempt.created_at),
        "solution": solution,
        "released_at": None,
        "held_words": None,
        "days_late": attempt.days_late,
        "slip_days": attempt.slip_days,
        "penalty": attempt.penalty,
        "late_words": "",
    }
    held = held_for_owner(attempt, viewer_id, gate)
    slot = attempt.exercise.slot if attempt.exercise is not None else None
    if slot is not None:
        shown["late_words"] = deadlines.spent_words(
            attempt.days_late, attempt.slip_days, attempt.penalty, slot.assignment
        )
    if held is not None and slot is not None:
        zone = slot.assignment.course.timezone
        shown |= {
            **HELD,
            "released_at": zones.iso(held, zone),
            "held_words": release.held_words(held, slot.assignment),
        }
    return shown


# What a held attempt shows of its grade: nothing.
HELD: dict[str, Any] = {
    "score": None,
    "parts": {},
    "feedback": [],
    "diagnosis": None,
    "diagnosis_text": None,
    "first_wrong": None,
    "scoring_words": None,
    "solution": None,
}
