"""Paper answers entered: a TA or instructor opens a printed sheet by its code and types what is
written on it; the same grader grades it, and it is stored as the student's attempt "on paper,
entered by <TA>", every change kept in the attempt's history (an anonymous sheet is tied to its
student at its first save). The key of a sheet is shown only once its answer is saved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.gametree import KINDS, Conventions, Tree, grade
from grader.models import (
    STUDENT,
    Attempt,
    ExamItem,
    ExamSheet,
    Exercise,
    Membership,
    User,
    iso_utc,
    utcnow,
)
from grader.services import Conflict, Invalid, NotFound, Unprocessable, outbox
from grader.services.courses import zones
from grader.services.courses.courses import check_open
from grader.services.courses.staff import staff
from grader.services.paper.codes import read_code, shown_code
from grader.services.paper.printing import course_students
from grader.services.transactions import writing
from grader.services.trees.attempts import solution
from grader.services.trees.exercises import store_graded_variant, tree_of


def find_sheet(user: User, code: str) -> ExamSheet:
    """A sheet of a course ``user`` teaches or assists (TAs enter answers too); NotFound for
    any other code, so a code reveals nothing of another course."""
    sheet = db.session.scalar(sa.select(ExamSheet).where(ExamSheet.code == read_code(code)))
    if sheet is None:
        raise NotFound(f"no exam sheet has the code {code.strip()[:40]!r}")
    try:
        staff(user, sheet.print_run.assignment.course_id)
    except Exception as exc:  # Forbidden or NotFound: the same answer, no sheet here
        raise NotFound(f"no exam sheet has the code {code.strip()[:40]!r}") from exc
    return sheet


@dataclass(frozen=True)
class Entry:
    """One question of a sheet as the entry page shows it."""

    sheet: ExamSheet
    item: ExamItem
    exercise: dict[str, Any]  # what the tree view needs (the page's exercise JSON)
    attempt: Attempt | None  # the answer entered so far, if any
    version: int  # entries so far: a save names the version it saw
    solution: dict[str, Any] | None  # the key: only once the answer has been saved
    students: list[tuple[int, str]] = field(default_factory=list)  # an untied sheet's choice
    next_url: tuple[str, int] | None = None  # the next question: (sheet code, slot index)


def _item(sheet: ExamSheet, slot_index: int) -> ExamItem:
    item = next((i for i in sheet.items if i.slot_index == slot_index), None)
    if item is None:
        raise NotFound("this sheet has no such question")
    return item


def _version(attempt: Attempt | None) -> int:
    return len(attempt.history or []) if attempt is not None else 0


def open_item(user: User, code: str, slot_index: int) -> Entry:
    sheet = find_sheet(user, code)
    item = _item(sheet, slot_index)
    attempt = db.session.get(Attempt, item.attempt_id) if item.attempt_id is not None else None
    tree = Tree.from_dict(item.tree)
    slot = item.slot
    conventions = Conventions.from_dict(slot.conventions)
    kind = KINDS[slot.kind]
    exercise = {
        "id": item.exercise_id or 0,
        "kind": slot.kind,
        "prompt": kind.prompt,
        "tree": item.tree["tree"],
        "players": item.tree["players"],
        "labels": tree.labels(),
        "conventions": slot.conventions,
        "conventions_text": kind.conventions_words(conventions, tree),
        "practice": False,
        "attempts_allowed": None,
        "attempts_used": 0,
        "replay_allowed": False,
        "solution_when": "once this sheet's answer is saved",
    }
    key = None
    if attempt is not None:
        key = {"key": kind.key(tree, conventions), "search": None}
    students = []
    if sheet.user_id is None:
        students = [(s.id, s.email) for s in course_students(sheet.print_run.assignment.course_id)]
    return Entry(
        sheet, item, exercise, attempt, _version(attempt), key, students, _next(sheet, item)
    )


def _next(sheet: ExamSheet, item: ExamItem) -> tuple[str, int] | None:
    later = [i for i in sheet.items if i.slot_index > item.slot_index]
    if later:
        return sheet.code, later[0].slot_index
    following = db.session.scalar(
        sa.select(ExamSheet)
        .where(ExamSheet.print_id == sheet.print_id, ExamSheet.number > sheet.number)
        .order_by(ExamSheet.number)
        .limit(1)
    )
    if following is None or not following.items:
        return None
    return following.code, following.items[0].slot_index


def save_entry(
    user: User,
    code: str,
    slot_index: int,
    answer: dict[str, Any],
    *,
    version: int,
    confirm: bool = False,
    student_id: int | None = None,
) -> tuple[Attempt, dict[str, Any]]:
    """Grades what is written on a sheet and stores it as the student's attempt on paper.

    ``version`` is the number of entries the page showed: a save over an entry made since
    (another TA's) is refused and says whose it is; a change of a saved answer needs
    ``confirm``. An anonymous sheet is tied to ``student_id`` at its first save, its trees
    then becoming the student's graded variants. Returns the attempt and the key."""
    sheet = find_sheet(user, code)
    item = _item(sheet, slot_index)
    slot = item.slot
    check_open(slot.assignment.course)
    zone = slot.assignment.course.timezone
    tree = Tree.from_dict(item.tree)
    conventions = Conventions.from_dict(slot.conventions)
    try:
        graded = grade(slot.kind, tree, conventions, answer)
    except ValueError as exc:
        raise Unprocessable(f"this is a {slot.kind} exercise: {exc}", slot.kind) from exc
    with writing() as session:
        session.refresh(sheet)
        session.refresh(item)
        if sheet.user_id is None:
            _tie(session, sheet, student_id)
        elif student_id is not None and student_id != sheet.user_id:
            raise Conflict("this sheet belongs to another student already")
        student = sheet.user
        assert student is not None and item.exercise_id is not None
        attempt = session.get(Attempt, item.attempt_id) if item.attempt_id is not None else None
        seen = _version(attempt)
        if version != seen:
            raise Conflict(
                _changed_words(attempt, "since you opened this sheet", zone) + " Reload it."
            )
        if attempt is not None and attempt.answer == answer:
            return attempt, _key(item, tree, graded)
        if attempt is not None and not confirm:
            raise Conflict(
                _changed_words(attempt, "already", zone)
                + " Tick “Replace the saved answer” to change it."
            )
        now = utcnow()
        entry = {
            "answer": answer,
            "score": graded.score,
            "entered_by": user.email,
            "entered_at": iso_utc(now),
        }
        fields = {
            "answer": answer,
            **graded.to_dict(),  # Attempt.GRADED
            **Attempt.graded_by(slot.kind),
            "entered_by_id": user.id,
        }
        if attempt is None:
            exercise = session.get(Exercise, item.exercise_id)
            assert exercise is not None
            attempt = Attempt(
                exercise_id=exercise.id,
                user_id=student.id,
                **{name: getattr(exercise, name) for name in Attempt.FROM_EXERCISE},
                created_at=now,
                history=[entry],
                **fields,
            )
            session.add(attempt)
            session.flush()
            item.attempt_id = attempt.id
        else:
            for name, value in fields.items():
                setattr(attempt, name, value)
            attempt.history = [*(attempt.history or []), entry]
        outbox.passback_after_commit(session, [(student.id, slot.id)])
    return attempt, _key(item, tree, graded)


def _key(item: ExamItem, tree: Tree, graded: Any) -> dict[str, Any]:
    exercise = item.exercise
    assert exercise is not None
    return solution(exercise, tree_of(exercise), graded, with_search=False)


def history_lines(attempt: Attempt | None, zone: str) -> list[str]:
    """Each entry of an answer on paper as the staff read it: when (in the course's zone,
    named), who, the score."""
    return [
        f"{zones.words(zones.stored(e['entered_at']), zone)}: {e['entered_by']}, "
        f"score {e['score']:.2f}"
        for e in (attempt.history or [] if attempt is not None else [])
    ]


def _changed_words(attempt: Attempt | None, when: str, zone: str) -> str:
    if attempt is None or not attempt.history:
        return f"This sheet's answer was removed {when}."
    last = attempt.history[-1]
    kind = KINDS[attempt.kind]
    tree = tree_of(attempt.exercise)
    words = kind.describe(last["answer"], tree.labels())
    return (
        f"{last['entered_by']} saved an answer to this question {when} "
        f"({zones.words(zones.stored(last['entered_at']), zone)}: {words}; "
        f"score {last['score']:.2f})."
    )


def _tie(session: Session, sheet: ExamSheet, student_id: int | None) -> None:
    """An anonymous sheet becomes ``student_id``'s: its trees their graded variants."""
    if student_id is None:
        raise Invalid("choose the student this sheet belongs to before saving its first answer")
    course_id = sheet.print_run.assignment.course_id
    role = session.scalar(
        sa.select(Membership.role).where(
            Membership.course_id == course_id, Membership.user_id == student_id
        )
    )
    if role != STUDENT:
        raise Invalid("the sheet's student must be a student of this course")
    taken = session.scalar(
        sa.select(ExamSheet.code).where(
            ExamSheet.print_id == sheet.print_id, ExamSheet.user_id == student_id
        )
    )
    if taken is not None:
        raise Conflict(f"this student's sheet is {shown_code(taken)} already")
    student = session.get(User, student_id)
    assert student is not None
    for item in sheet.items:
        item.exercise = store_graded_variant(
            session,
            item.slot,
            student,
            Tree.from_dict(item.tree),
            seed=item.seed,
            params=item.params,
        )
    sheet.user = student
