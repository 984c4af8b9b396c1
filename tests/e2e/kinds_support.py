"""The answer-vs-key cases of the instructor's drill-down, two per exercise kind: a small textbook
tree with an answer wrong at nodes known by construction, and an answer right everywhere.
tests/e2e/conftest.py seeds them as one assignment answered by one student (two slots a kind, in
`KINDS` order); tests/e2e/test_answer_kinds_e2e.py checks how the page draws each.

Every answer is made from the reference key (`KINDS[kind].key`), never written by hand.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from grader.gametree import KINDS, Conventions, Tree
from grader.gametree.kinds import normalize_pruned

KINDS_STUDENT = "kinds@example.com"  # answers every slot of the kinds' assignment, nothing else
TEXTBOOK = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]  # AIMA's: C's last two leaves pruned
FOUR_LEVELS = [[[2, 3], [5, 9]], [[0, 1], [7, 5]]]  # a pruned leaf and a pruned MIN subtree
# A kind added to KINDS without a tree here fails the test (KeyError): each kind is drawn.
TREES = {
    "prune": FOUR_LEVELS,
    "values": FOUR_LEVELS,
    "bounds": FOUR_LEVELS,
    "leaf-order": TEXTBOOK,
    "best-order": TEXTBOOK,
    "minimax": TEXTBOOK,
}


@dataclass(frozen=True)
class Case:
    kind: str
    tree: Tree
    key: dict[str, Any]  # the reference key, as the page gets it
    answer: dict[str, Any]  # what the student submitted
    wrong_at: frozenset[str]  # the paths where the answer departs from the key

    @property
    def title(self) -> str:
        return f"{self.kind}: {'wrong' if self.wrong_at else 'right'} answer"


def _deepest(paths: Any) -> str:
    """The deepest path (the last of them in label order at that depth)."""
    return max(paths, key=lambda p: (len(p.split(".")) if p else 0, p))


def _as_submitted(tree: Tree, orders: dict[str, list[int]]) -> dict[str, list[int]]:
    """Child orders as the exercise page sends them: only the nodes whose order changed."""
    return {p: list(o) for p, o in orders.items() if o != list(range(len(tree.node(p).children)))}


def _wrong(kind: str, tree: Tree, key: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """An answer off the key at known nodes, and those nodes."""
    answer = copy.deepcopy({k: v for k, v in key.items() if k != "leaves"})
    if kind == "prune":
        # Forgets the first pruned subtree and misreads the root's value.
        dropped = next(p for p in key["pruned"] if not tree.node(p).is_leaf)
        answer["pruned"] = [p for p in key["pruned"] if p != dropped]
        answer["value"] = key["value"] + 1
        marked = normalize_pruned(tree, set(answer["pruned"]))
        return answer, {""} | (normalize_pruned(tree, set(key["pruned"])) ^ marked)
    if kind in ("values", "minimax"):
        values = answer["values"]
        off = _deepest(values)
        values[off] -= 2
        wrong = {off}
        pruned = [p for p, node in tree.walk() if not node.is_leaf and p not in values]
        if pruned:
            # A value given for a node alpha-beta never visits: its minimax value.
            minimax = KINDS["minimax"].key(tree, Conventions())["values"]
            values[pruned[0]] = minimax[pruned[0]]
            wrong.add(pruned[0])
        return answer, wrong
    if kind == "bounds":
        bounds = answer["bounds"]
        off = _deepest(p for p in bounds if p)
        alpha, beta = bounds[off]
        bounds[off] = [alpha - 2 if isinstance(alpha, int) else -99, beta]
        del bounds[""]  # the root's bounds left out
        return answer, {off, ""}
    if kind == "leaf-order":
        order = key["leaf_order"]
        # The first two swapped, the last left out.
        answer["leaf_order"] = [order[1], order[0], *order[2:-1]]
        return answer, {order[0], order[1], order[-1]}
    if kind == "best-order":
        orders = dict(key["order"])
        orders[""] = list(reversed(orders[""]))  # the root's children searched backwards
        return {"order": _as_submitted(tree, orders)}, {""}
    raise KeyError(kind)


def _right(kind: str, tree: Tree, key: dict[str, Any]) -> dict[str, Any]:
    if kind == "best-order":
        return {"order": _as_submitted(tree, key["order"])}
    return copy.deepcopy(key)


def answer_cases() -> list[Case]:
    """Per kind in `KINDS` order, the wrong answer's case then the right one's (the slots'
    order)."""
    out = []
    for kind in KINDS:
        tree = Tree.from_nested(TREES[kind])
        key = KINDS[kind].key(tree, Conventions())
        answer, wrong_at = _wrong(kind, tree, key)
        out.append(Case(kind, tree, key, answer, frozenset(wrong_at)))
        out.append(Case(kind, tree, key, _right(kind, tree, key), frozenset()))
    return out


def seed_answer_kinds(instructor: str) -> str:
    """A course of `instructor` with one fixed-tree slot per case, each answered by
    `KINDS_STUDENT` (in an app context); returns the path of the student's drill-down page."""
    from grader.services import accounts, attempts, courses, editor, exercises
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
    for index, case in enumerate(cases):
        exercise = exercises.slot_exercise(student, assignment.id, index)
        attempts.submit(student, exercise.id, case.answer)
    return f"/instructor/courses/{course.id}/students/{student.id}"
