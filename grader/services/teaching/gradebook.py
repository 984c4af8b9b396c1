"""The gradebook: students by assignments, each slot's graded variant scored by its assignment's
policy (best or last attempt) after the late penalty; a student's attempts for the drill-down;
CSV and JSON.

A slot is worth one point: its score is the credited score (score × (1 − penalty)) of the best
attempt, or of the last one, on the student's graded variant (practice variants never count).
An assignment's points are the sum over its slots; the total is the sum over assignments.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.models import (
    STUDENT,
    Assignment,
    Attempt,
    Exercise,
    Membership,
    Slot,
    User,
)
from grader.services import NotFound
from grader.services.courses import deadlines, release, zones
from grader.services.courses.courses import course_assignments
from grader.services.courses.staff import Staff, staff
from grader.services.exports import csv_cell
from grader.services.teaching.scores import GradedAttempt, counted_attempts, slot_state
from grader.services.trees.attempts import graded_differences, scoring_words, solution


def students(course_id: int) -> list[User]:
    return list(
        db.session.scalars(
            sa.select(User)
            .join(Membership)
            .where(Membership.course_id == course_id, Membership.role == STUDENT)
            .order_by(User.email)
        )
    )


@dataclass(frozen=True)
class Column:
    id: int
    title: str
    policy: str
    late_percent_per_day: float | None
    slots: list[tuple[int, int, str]]  # (slot id, index, title)

    @property
    def points(self) -> int:
        return len(self.slots)

    @property
    def header(self) -> str:
        return f"{self.title} (/{self.points})"

    def item_headers(self) -> list[tuple[int, str]]:
        """(slot id, header) per exercise or engine slot, each worth 1 point."""
        return [
            (slot_id, f"{self.title}: {index + 1}. {title} (/1)")
            for slot_id, index, title in self.slots
        ]


@dataclass
class Row:
    user_id: int
    email: str
    name: str
    slot_scores: dict[int, float | None] = field(default_factory=dict)
    scores: dict[int, float | None] = field(default_factory=dict)  # assignment id -> points
    late_days: dict[int, int] = field(default_factory=dict)  # assignment id -> most days late
    slip_days: dict[int, int] = field(default_factory=dict)  # assignment id -> slip days used
    # assignment id -> when the student sees their scores on it, while they are held from them
    held_until: dict[int, dt.datetime] = field(default_factory=dict)

    @property
    def slip_days_used(self) -> int:
        return sum(self.slip_days.values())

    @property
    def total(self) -> float:
        return sum(v for v in self.scores.values() if v is not None)


@dataclass(frozen=True)
class Gradebook:
    course_id: int
    course: str
    columns: list[Column]
    rows: list[Row]
    slip_budget: int = 0  # the course's slip days a student; 0: none given
    timezone: str = "UTC"  # the course's, in which the exports write when a held sum is shown

    @property
    def counts_slip_days(self) -> bool:
        """Whether the course gives slip days, or some student spent one under an earlier
        budget: only then has the CSV its "slip days used" column."""
        return self.slip_budget > 0 or any(r.slip_days_used for r in self.rows)

    @property
    def held_columns(self) -> list[Column]:
        """The assignments whose sum some student cannot see yet: each gets a "held until"
        column in the CSV, as the page marks the sum."""
        return [c for c in self.columns if any(c.id in r.held_until for r in self.rows)]

    def held_when(self, row: Row, column_id: int) -> str | None:
        """When the student sees their scores on the assignment, while held from them: ISO 8601
        in the course's zone (its offset written)."""
        return zones.iso(row.held_until.get(column_id), self.timezone)

    @property
    def max_total(self) -> int:
        return sum(c.points for c in self.columns)

    def to_dict(self) -> dict[str, Any]:
        return {
            "course_id": self.course_id,
            "course": self.course,
            "assignments": [
                {
                    "id": c.id,
                    "title": c.title,
                    "points": c.points,
                    "score_policy": c.policy,
                    "late_percent_per_day": c.late_percent_per_day,
                    "slots": [{"id": s, "index": i, "title": t} for s, i, t in c.slots],
                }
                for c in self.columns
            ],
            "students": [
                {
                    "user_id": r.user_id,
                    "email": r.email,
                    "name": r.name,
                    "assignments": {str(c.id): _round(r.scores.get(c.id)) for c in self.columns},
                    "slots": {str(k): _round(v) for k, v in r.slot_scores.items()},
                    "total": _round(r.total),
                    "slip_days_used": {str(k): v for k, v in r.slip_days.items()},
                    "held_until": {str(k): self.held_when(r, k) for k in r.held_until},
                }
                for r in self.rows
            ],
            "max_total": self.max_total,
        }

    def to_csv(self) -> str:
        """One column per item (exercise or engine slot), as LMS gradebook imports expect, then
        the total, then the slip days used where the course counts them, then, per assignment
        whose sum some student cannot see yet, when each student sees it ("held until", as the
        page marks it; empty once shown); assignment subtotals are left out so that an import
        counts nothing twice."""
        items = [item for c in self.columns for item in c.item_headers()]
        held = self.held_columns
        out = io.StringIO()
        writer = csv.writer(out, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
        writer.writerow(
            [
                "email",
                "name",
                *[csv_cell(header) for _, header in items],
                f"total (/{self.max_total})",
                *(["slip days used"] if self.counts_slip_days else []),
                *[csv_cell(f"{c.title}: held until") for c in held],
            ]
        )
        for r in self.rows:
            writer.writerow(
                [
                    csv_cell(r.email),
                    csv_cell(r.name),
                    *[_fmt(r.slot_scores.get(slot_id)) for slot_id, _ in items],
                    _fmt(r.total),
                    *([str(r.slip_days_used)] if self.counts_slip_days else []),
                    *[self.held_when(r, c.id) or "" for c in held],
                ]
            )
        return out.getvalue()


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def display_name(user: User, roster_name: str | None = None) -> str:
    """The course roster's name for the person, else the account's, else the e-mail's user."""
    return roster_name or user.name or user.email.split("@", 1)[0]


def build(course_id: int) -> Gradebook:
    """The gradebook of a course (no permission check: callers check first)."""
    from grader.models import Course

    course = db.session.get_one(Course, course_id)
    assignments = course_assignments(course_id)
    columns = [
        Column(
            a.id,
            a.title,
            a.score_policy,
            a.late_percent_per_day,
            [(s.id, s.index, s.name) for s in a.slots],
        )
        for a in assignments
    ]
    by_key: dict[tuple[int, int], list[GradedAttempt]] = defaultdict(list)
    for attempt in counted_attempts(course_id):
        by_key[(attempt.user_id, attempt.slot_id)].append(attempt)
    names = dict(
        db.session.execute(
            sa.select(Membership.user_id, Membership.name).where(Membership.course_id == course_id)
        ).all()
    )
    slips = deadlines.slip_days_used(course_id)
    rows = []
    for student in students(course_id):
        row = Row(student.id, student.email, display_name(student, names.get(student.id)))
        row.slip_days = {a: d for (u, a), d in slips.items() if u == student.id}
        for assignment in assignments:  # what the student cannot see yet, as the gate says
            standing = release.Standing(student.id, assignment)
            if (until := release.held_work(student.id, standing)) is not None:
                row.held_until[assignment.id] = until
        for column in columns:
            points: float | None = None
            for slot_id, _, _ in column.slots:
                found = by_key.get((student.id, slot_id), [])
                value = slot_state(found, column.policy).score
                row.slot_scores[slot_id] = value
                if value is not None:
                    points = (points or 0.0) + value
                    row.late_days[column.id] = max(
                        row.late_days.get(column.id, 0), *(a.days_late for a in found)
                    )
            row.scores[column.id] = points
        rows.append(row)
    return Gradebook(course_id, course.name, columns, rows, course.slip_days, course.timezone)


def gradebook(user: User, course_id: int) -> tuple[Staff, Gradebook]:
    as_staff = staff(user, course_id)
    return as_staff, build(course_id)


def gradebook_csv(user: User, course_id: int) -> tuple[str, str]:
    """The CSV text and a file name."""
    as_staff, book = gradebook(user, course_id)
    return book.to_csv(), f"gradebook-course-{as_staff.course.id}.csv"


# -- the drill-down ---------------------------------------------------------------------------


@dataclass(frozen=True)
class AttemptView:
    attempt: Attempt
    counted: bool  # the attempt the policy counts
    scoring_words: str | None = None  # how its score came about, nodes named (staff see keys)


@dataclass(frozen=True)
class SlotView:
    slot: Slot
    exercise: Exercise | None
    attempts: list[AttemptView]
    score: float | None
    solution: dict[str, Any] | None  # key and reference search (staff always see them)
    uploads: int = 0  # an engine slot's graded uploads (its attempts are submissions)
    shown: Attempt | None = None  # the attempt drawn beside the key: the one that counts
    # Where the shown attempt and the key differ as the grade, not the key node by node, says
    # (best-order; `graded_differences`), else None.
    differences: dict[str, Any] | None = None


def student_attempts(
    user: User, course_id: int, student_id: int
) -> tuple[Staff, User, list[tuple[Assignment, list[SlotView]]]]:
    """One student's graded variants and attempts, assignment by assignment, with the keys."""
    as_staff = staff(user, course_id)
    student = db.session.get(User, student_id)
    member = db.session.scalar(
        sa.select(Membership.id).where(
            Membership.course_id == course_id, Membership.user_id == student_id
        )
    )
    has_attempts = db.session.scalar(
        sa.select(sa.func.count(Exercise.id))
        .join(Slot)
        .join(Assignment)
        .where(Assignment.course_id == course_id, Exercise.owner_id == student_id)
    )
    if student is None or (member is None and not has_attempts):
        raise NotFound("no such student in this course")
    exercises = {
        e.slot_id: e
        for e in db.session.scalars(
            sa.select(Exercise)
            .join(Slot)
            .join(Assignment)
            .where(
                Assignment.course_id == course_id,
                Exercise.owner_id == student_id,
                Exercise.variant == 0,
            )
        )
    }
    attempts_by_exercise: dict[int, list[Attempt]] = defaultdict(list)
    if exercises:
        for attempt in db.session.scalars(
            sa.select(Attempt)
            .where(
                Attempt.exercise_id.in_([e.id for e in exercises.values()]),
                Attempt.user_id == student_id,
            )
            .order_by(Attempt.id)
        ):
            attempts_by_exercise[attempt.exercise_id].append(attempt)
    counted: dict[int, list[GradedAttempt]] = defaultdict(list)
    for graded in counted_attempts(course_id, user_id=student_id):
        counted[graded.slot_id].append(graded)
    result = []
    for assignment in course_assignments(course_id):
        views = []
        for slot in assignment.slots:
            state = slot_state(counted.get(slot.id, []), assignment.score_policy)
            exercise = exercises.get(slot.id)
            made = attempts_by_exercise.get(exercise.id, []) if exercise else []
            credited = [a.credited for a in made]
            if not made:
                shown = None
            elif assignment.score_policy == "last":
                shown = made[-1]
            else:
                shown = made[credited.index(max(credited))]
            data = differences = None
            if exercise is not None and shown is not None:
                data = solution(exercise, answer=shown.answer)
                differences = graded_differences(exercise, shown, data)
            views.append(
                SlotView(
                    slot,
                    exercise,
                    [AttemptView(a, a is shown, scoring_words(a, named=True)) for a in made],
                    state.score,
                    data,
                    0 if slot.slot_kind.has_exercise else state.attempts,
                    shown,
                    differences,
                )
            )
        result.append((assignment, views))
    return as_staff, student, result
