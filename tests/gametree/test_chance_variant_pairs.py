"""Where two misconception variants give the same answer on a chance tree, the grade names both
(never one): the chance variants join the library's candidates mechanism (``Grade.candidates``,
``diagnosis_words``) after the MAX/MIN ones.

Seeded random chance trees with leaves in a small range (so coincidences are common), every valid
convention with bounds [0, 4]; every pair found giving the same wrong answer is graded with it.
Graded here: leaf orders (paths only) and prune answers whose root value is a whole number (the
exercise kinds for chance trees, with their answer-matching rule, come with issue 25's kinds).
"""

from __future__ import annotations

import functools
import random
from fractions import Fraction
from itertools import combinations

from grader.checkers.variants import either
from grader.gametree import KINDS, Conventions, Node, Tree
from grader.gametree.variants import ALL_VARIANTS, CHANCE_VARIANTS
from tests.gametree._helpers import ALL_CONVENTIONS

SPLITS = {
    2: [(Fraction(1, 2),) * 2, (Fraction(1, 4), Fraction(3, 4))],
    3: [(Fraction(1, 3),) * 3, (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4))],
}
PLAYERS = [
    ("max", "chance"),
    ("max", "chance", "min", "chance"),
    ("min", "chance"),
    ("max", "min", "chance"),
]


def random_tree(rng: random.Random) -> Tree:
    depth = rng.randrange(2, 5)
    players = rng.choice(PLAYERS)

    def build(d: int) -> Node:
        if d == depth:
            return Node(rng.randrange(0, 5))
        width = rng.randrange(2, 4)
        chance = rng.choice(SPLITS[width]) if players[d % len(players)] == "chance" else None
        return Node(None, tuple(build(d + 1) for _ in range(width)), chance=chance)

    return Tree(build(0), players)


def gradable(kind: str, answer: object) -> bool:
    if kind == "leaf-order":
        return True
    assert kind == "prune" and isinstance(answer, tuple)
    return not isinstance(answer[1], Fraction)


@functools.cache
def coincidences() -> dict[tuple[str, str], list[tuple[str, Tree, Conventions]]]:
    rng = random.Random(25)
    found: dict[tuple[str, str], list[tuple[str, Tree, Conventions]]] = {}
    for _ in range(40):
        tree = random_tree(rng)
        for base in ALL_CONVENTIONS:
            conventions = Conventions(base.ties, base.values, base.order, None, (0, 4))
            for kind in ("leaf-order", "prune"):
                exercise = KINDS[kind]
                key = exercise.analysis(tree, conventions)[1]
                answers = dict((v.code, a) for v, a in exercise.variant_answers(tree, conventions))
                for a, b in combinations(answers, 2):
                    chance = a in CHANCE_VARIANTS or b in CHANCE_VARIANTS
                    if chance and answers[a] == answers[b] != key and gradable(kind, answers[a]):
                        found.setdefault((a, b), []).append((kind, tree, conventions))
    return found


def test_coinciding_chance_variants_are_named_together() -> None:
    found = coincidences()
    # The pessimist's MIN nodes cut where the chance-cut-as-MIN slip cuts; they differ only in the
    # value the chance node then returns, which a leaf order shows only when it changes a cutoff.
    assert ("chance-as-min", "chance-cut-as-min") in found
    # Forgetting the unseen mass cuts more, as cutting like MIN does: on small ranges they agree.
    assert ("chance-cut-as-min", "star1-unseen-mass") in found
    for (a, b), cases in found.items():
        for kind, tree, conventions in cases[:10]:
            exercise = KINDS[kind]
            answer = dict(exercise.variant_answers(tree, conventions))[ALL_VARIANTS[a]]
            grade = exercise.grade(tree, conventions, exercise.to_answer(answer))
            assert a in grade.candidates and b in grade.candidates, (kind, a, b)
            assert list(grade.candidates) == [c for c in ALL_VARIANTS if c in grade.candidates]
            text = grade.diagnosis_text or ""
            assert text.startswith(f"Your answer matches {either(list(grade.candidates))}: ")
            for code in grade.candidates:
                assert ALL_VARIANTS[code].sentence(tree, conventions) in text
