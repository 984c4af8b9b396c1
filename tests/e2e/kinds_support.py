"""The answer-vs-key cases of the instructor's drill-down, two per exercise kind: a small textbook
tree with an answer wrong at nodes known by construction, and an answer right everywhere; for
best-order a third, another best ordering than the key's. tests/e2e/conftest.py seeds them as one
assignment answered by one student (a slot a case, in `KINDS` order);
tests/e2e/test_answer_kinds_e2e.py checks how the page draws each.

Every answer is made from the reference key (`KINDS[kind].key`), never written by hand; a
best-order's other best ordering is found by brute force over every ordering of the tree, and its
wrong answer differs where the grade blames it (its `first_wrong`), the one node drawn as wrong.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import Iterator
from typing import Any

from grader.gametree import KINDS, Conventions, Tree, solve
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


@dataclasses.dataclass(frozen=True)
class Case:
    kind: str
    tree: Tree
    key: dict[str, Any]  # the reference key, as the page gets it
    answer: dict[str, Any]  # what the student submitted
    wrong_at: frozenset[str]  # the paths drawn as differing from the key
    name: str  # "wrong", "right" or "another best"
    # best-order: the legend's words, with the leaf counts (None: the node-by-node legend)
    legend: str | None = None

    @property
    def title(self) -> str:
        return f"{self.kind}: {self.name} answer"


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
        # Another best ordering with the root's children searched backwards: it differs from
        # the key at several nodes, but the grade blames one (its first_wrong).
        orders = _another_best(tree, key)
        orders[""] = list(reversed(orders[""]))
        answer = {"order": _as_submitted(tree, orders)}
        assert _leaves(tree, orders) > key["leaves"]
        assert len(_differing(tree, orders, key["order"])) > 1
        blamed = KINDS[kind].grade(tree, Conventions(), answer).first_wrong
        assert blamed is not None
        return answer, {blamed["path"]}
    raise KeyError(kind)


def _leaves(tree: Tree, orders: dict[str, list[int]]) -> int:
    """How many leaves alpha-beta evaluates on the tree with its children in ``orders``."""
    return len(solve(tree.reordered(orders), Conventions()).leaf_order)


def _orderings(tree: Tree) -> Iterator[dict[str, list[int]]]:
    """Every ordering of the tree's children, each internal node listed."""
    internal = [p for p, node in tree.walk() if not node.is_leaf]
    choices = [itertools.permutations(range(len(tree.node(p).children))) for p in internal]
    for chosen in itertools.product(*choices):
        yield {p: list(order) for p, order in zip(internal, chosen, strict=True)}


def _differing(tree: Tree, orders: dict[str, list[int]], other: dict[str, list[int]]) -> set[str]:
    """The internal nodes whose children two orderings put in different orders."""
    internal = [(p, list(range(len(node.children)))) for p, node in tree.walk() if node.children]
    return {p for p, given in internal if orders.get(p, given) != other.get(p, given)}


def _another_best(tree: Tree, key: dict[str, Any]) -> dict[str, list[int]]:
    """By brute force over every ordering: one that evaluates as few leaves as the key's, and
    differs from it at the most nodes (the first such)."""
    counted = [(orders, _leaves(tree, orders)) for orders in _orderings(tree)]
    assert min(n for _, n in counted) == key["leaves"]  # the optimum the key claims is the least
    best = [orders for orders, n in counted if n == key["leaves"]]
    found = max(best, key=lambda orders: len(_differing(tree, orders, key["order"])))
    assert _differing(tree, found, key["order"]), "the tree needs two best orderings"
    return found


def _legend(tree: Tree, key: dict[str, Any], case: Case) -> str:
    """The best-order legend's words: the leaf counts, and the blamed node's message."""
    orders = case.answer["order"]
    got, least = _leaves(tree, orders), key["leaves"]
    if not case.wrong_at:
        if not _differing(tree, orders, key["order"]):
            return f"The answer is the key's ordering: alpha-beta evaluates {least} leaves, the fewest possible."
        return f"Another best ordering: alpha-beta evaluates {got} leaves with it, as few as with the key's."
    blamed = KINDS["best-order"].grade(tree, Conventions(), case.answer).first_wrong
    assert blamed is not None
    return (
        f"The answer's ordering evaluates {got} leaves; the best evaluates {least}. "
        f"The grade blames {blamed['label']} (hatched red and marked ✗ in both trees): "
        f"{blamed['message']}"
    )


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
        cases = [
            Case(kind, tree, key, answer, frozenset(wrong_at), "wrong"),
            Case(kind, tree, key, _right(kind, tree, key), frozenset(), "right"),
        ]
        if kind == "best-order":
            other = {"order": _as_submitted(tree, _another_best(tree, key))}
            cases.append(Case(kind, tree, key, other, frozenset(), "another best"))
            cases = [dataclasses.replace(c, legend=_legend(tree, key, c)) for c in cases]
        out.extend(cases)
    return out


def seed_answer_kinds(instructor: str) -> str:
    """A course of `instructor` with one fixed-tree slot per case, each answered by
    `KINDS_STUDENT` (in an app context); returns the path of the student's drill-down page."""
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
    for index, case in enumerate(cases):
        exercise = exercises.slot_exercise(student, assignment.id, index)
        attempts.submit(student, exercise.id, case.answer)
    return f"/instructor/courses/{course.id}/students/{student.id}"
