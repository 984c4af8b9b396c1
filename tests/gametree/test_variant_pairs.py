"""Where two misconception variants give the same answer on a tree, the grade names both.

Trees are searched for (seeded random trees, small value ranges so ties happen, every valid
convention, every kind with variants); every pair of the library's variants found giving the
same wrong answer there is graded with that answer.
"""

from __future__ import annotations

import functools
import random
from itertools import combinations

from grader.checkers.variants import either
from grader.gametree import KINDS, VARIANTS, Node, Tree
from tests.gametree._helpers import ALL_CONVENTIONS

VARIANT_KINDS = sorted({kind for v in VARIANTS.values() for kind in v.kinds})


def random_tree(rng: random.Random) -> Tree:
    """Depth 2 to 4, 1 to 3 children, leaves from a small range (so ties are common)."""
    depth = rng.randrange(2, 5)
    spread = rng.choice([2, 4, 20])

    def build(d: int) -> Node:
        if d == depth or (d > 1 and rng.random() < 0.15):
            return Node(rng.randrange(-spread, spread + 1))
        return Node(None, tuple(build(d + 1) for _ in range(rng.randrange(1, 4))))

    return Tree(build(0), rng.choice([("max", "min"), ("min", "max")]))


@functools.cache
def coincidences() -> dict[tuple[str, str], list[tuple[str, Tree, int]]]:
    """Per pair of variants (library order): (kind, tree, index of the conventions) where both
    give the same answer and it is not the key."""
    rng = random.Random(24)
    found: dict[tuple[str, str], list[tuple[str, Tree, int]]] = {}
    for _ in range(150):
        tree = random_tree(rng)
        for index, conventions in enumerate(ALL_CONVENTIONS):
            for kind in VARIANT_KINDS:
                exercise = KINDS[kind]
                key = exercise.analysis(tree, conventions)[1]
                answers = dict((v.code, a) for v, a in exercise.variant_answers(tree, conventions))
                for a, b in combinations(answers, 2):
                    if answers[a] == answers[b] != key:
                        found.setdefault((a, b), []).append((kind, tree, index))
    return found


def test_where_two_variants_coincide_the_grade_names_both() -> None:
    found = coincidences()
    assert ("no-pruning", "ties-flipped") in found
    for (a, b), cases in found.items():
        for kind, tree, index in cases[:20]:
            conventions = ALL_CONVENTIONS[index]
            exercise = KINDS[kind]
            answer = dict(exercise.variant_answers(tree, conventions))[VARIANTS[a]]
            grade = exercise.grade(tree, conventions, exercise.to_answer(answer))
            assert a in grade.candidates and b in grade.candidates, (kind, a, b)
            assert list(grade.candidates) == [c for c in VARIANTS if c in grade.candidates]
            assert grade.diagnosis == grade.candidates[0]
            text = grade.diagnosis_text or ""
            assert text.startswith(f"Your answer matches {either(list(grade.candidates))}: ")
            for code in grade.candidates:
                assert VARIANTS[code].sentence(tree, conventions) in text
            assert grade.feedback[0] == text
