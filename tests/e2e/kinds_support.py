"""The answer-vs-key cases of the instructor's drill-down, each kind's own examples
(`ExerciseKind.examples`: a small tree with an answer wrong at nodes known by construction, one
right everywhere, and any other the kind brings). tests/e2e/conftest.py seeds them as one
assignment answered by one student (a slot a case, in `KINDS` order);
tests/e2e/test_answer_kinds_e2e.py checks how the page draws each. A kind's legend (best-order's
leaf counts) comes from its grade's drill-down (`graded_differences`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from grader.gametree import KINDS, Conventions, Tree

KINDS_STUDENT = "kinds@example.com"  # answers every slot of the kinds' assignment, nothing else
KINDS_PRACTICE = "kinds-practice@example.com"  # answers each case as a practice exercise


@dataclasses.dataclass(frozen=True)
class Case:
    kind: str
    tree: Tree
    key: dict[str, Any]  # the reference key, as the page gets it
    answer: dict[str, Any]  # what the student submitted
    wrong_at: frozenset[str]  # the paths drawn as differing from the key
    name: str  # "wrong", "right", or another the kind names ("another best")

    @property
    def title(self) -> str:
        return f"{self.kind}: {self.name} answer"

    @property
    def legend(self) -> str | None:
        """The drill-down's legend where the kind's grade says where an answer differs
        (best-order's leaf counts, and the node its grade blames); None for a kind whose key is
        the one right answer (its legend names the nodes that differ)."""
        kind = KINDS[self.kind]
        graded = kind.grade(self.tree, Conventions(), self.answer)
        solution: dict[str, Any] = {"key": self.key}
        replays = kind.answer_replays(self.tree, Conventions(), self.answer)
        if replays is not None:
            solution["replays"] = replays
        found = kind.graded_differences(
            self.tree, Conventions(), self.answer, graded.first_wrong, solution
        )
        if found is None:
            return None
        if "blamed" in found:
            return (
                f"{found['counts']} The grade blames {found['blamed']} "
                f"(hatched red and marked ✗ in both trees): {found['why']}"
            )
        return str(found["legend"])


def answer_cases() -> list[Case]:
    """Per kind in `KINDS` order, its examples in its order (the slots' order)."""
    return [
        Case(
            name,
            example.tree,
            KINDS[name].key(example.tree, Conventions()),
            example.answer,
            example.wrong_at,
            example.name,
        )
        for name in KINDS
        for example in KINDS[name].examples()
    ]


def seed_answer_kinds(instructor: str) -> tuple[str, dict[str, int]]:
    """A course of `instructor` with one fixed-tree slot per case, each answered by
    `KINDS_STUDENT` (in an app context), and a practice exercise of `KINDS_PRACTICE`'s per case,
    answered the same (a student may not practise on a graded exercise's tree); returns the path of the student's drill-down page and the practice
    exercises' ids by the case's title."""
    from grader.services import accounts
    from grader.services.courses import courses
    from grader.services.teaching import editor
    from grader.services.trees import attempts, exercises
    from tests.app_support import enrol
    from tests.e2e.e2e_support import PASSWORD

    teacher = accounts.user_by_email(instructor)
    course = courses.create_course("Answer kinds", instructor)
    student = accounts.create_user(KINDS_STUDENT, PASSWORD)
    enrol(course.id, KINDS_STUDENT)
    assignment = editor.create_assignment(
        teacher, course.id, editor.AssignmentInput(title="Every kind")
    )
    cases = answer_cases()
    for case in cases:
        editor.add_slot(
            teacher,
            assignment.id,
            editor.SlotInput(kind=case.kind, conventions={}, tree=case.tree, title=case.title),
        )
    learner = accounts.create_user(KINDS_PRACTICE, PASSWORD)
    practice = {}
    for index, case in enumerate(cases):
        exercise = exercises.slot_exercise(student, assignment.id, index)
        attempts.submit(student, exercise.id, case.answer)
        own = exercises.create_practice(learner, case.kind, tree=case.tree.to_nested())
        attempts.submit(learner, own.id, case.answer)
        practice[case.title] = own.id
    return f"/instructor/courses/{course.id}/students/{student.id}", practice
