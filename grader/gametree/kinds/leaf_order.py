"""The leaf-order kind: the leaves in the order alpha-beta evaluates them.

Its errors: the longer order's length minus the longest common subsequence of the two orders (two
leaves swapped, one missing or one extra leaf: one error)."""

from __future__ import annotations

import bisect
import random
from collections.abc import Callable
from typing import Any, ClassVar

from grader.gametree.drawing import PaperBoxes
from grader.gametree.explain import Explainer, ordinal
from grader.gametree.kinds.base import (
    EXAMPLE_TREES,
    AnswerPart,
    CountedKind,
    Example,
    Paper,
    UngradableAnswer,
    part,
    where,
)
from grader.gametree.kinds.registry import register
from grader.gametree.solver import Conventions, SearchResult
from grader.gametree.tree import Path, Tree
from grader.gametree.variants import (
    CHANCE_SEARCH_VARIANTS,
    CHANCE_VARIANTS_ANY,
    SEARCH_VARIANTS,
    Variant,
)

LeafOrder = tuple[Path, ...]  # the leaves in the order they are evaluated


def _lcs_items(a: tuple, b: tuple) -> set:
    """The items of one longest common subsequence of two sequences without repeats, in
    O(n log n): the longest increasing run of b's items' positions in a."""
    where_in_a = {x: i for i, x in enumerate(a)}
    positions = [where_in_a[y] for y in b if y in where_in_a]
    tails: list[int] = []  # tails[k]: the least last position of an increasing run of k + 1
    ends: list[int] = []  # ends[k]: the index in `positions` of that run's last item
    before = [-1] * len(positions)  # the index of the item before each in its run
    for i, position in enumerate(positions):
        k = bisect.bisect_left(tails, position)
        before[i] = ends[k - 1] if k else -1
        tails[k : k + 1] = [position]
        ends[k : k + 1] = [i]
    items = set()
    i = ends[-1] if ends else -1
    while i >= 0:
        items.add(a[positions[i]])
        i = before[i]
    return items


@register
class LeafOrderKind(CountedKind):
    name = "leaf-order"
    title = "Order of evaluation"
    prompt = "List the leaves in the order alpha-beta evaluates them; leave out the pruned ones."
    parts = ("leaf_order",)
    answer_shape: ClassVar[dict[str, AnswerPart]] = {"leaf_order": AnswerPart("unique-paths")}
    answer_doc = "the leaves in the order they are evaluated."
    variants = (*SEARCH_VARIANTS, *CHANCE_VARIANTS_ANY, *CHANCE_SEARCH_VARIANTS)
    reveals = ("wrong-order",)
    reads_values = False
    holds_values = False

    def examples(self) -> tuple[Example, ...]:
        tree = Tree.from_nested(EXAMPLE_TREES["textbook"])
        key = self.key(tree, Conventions())
        order = key["leaf_order"]
        # The first two swapped, the last left out.
        wrong = {"leaf_order": [order[1], order[0], *order[2:-1]]}
        return (
            Example("wrong", tree, wrong, frozenset({order[0], order[1], order[-1]})),
            Example("right", tree, key, score=1.0),
        )

    def words(self, answer: dict[str, Any], label: Callable[[Path], str]) -> str:
        return ", ".join(label(p) for p in answer.get("leaf_order", []))

    def normalize(self, tree: Tree, answer: object) -> LeafOrder:
        order = part(self, answer, "leaf_order")
        if not isinstance(order, list):
            raise UngradableAnswer("'leaf_order' must be a list of leaf paths")
        for p in order:
            if not isinstance(p, str) or not tree.has(p) or not tree.node(p).is_leaf:
                raise UngradableAnswer(f"{p!r} in 'leaf_order' is not a leaf of this tree")
        if len(set(order)) != len(order):
            raise UngradableAnswer("a leaf is listed twice in 'leaf_order'")
        return tuple(order)

    def project(self, result: SearchResult, variant: Variant | None = None) -> LeafOrder:
        return result.leaf_order

    def slips(self, tree: Tree, key: LeafOrder, rng: random.Random) -> list[LeafOrder]:
        order = list(key)
        answers = [tuple(order[1:])]
        if len(order) > 1:
            i = rng.choice(range(len(order) - 1))
            swapped = order[:]
            swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
            answers.append(tuple(swapped))
        return answers

    def distance(self, key: LeafOrder, answer: LeafOrder) -> int:
        if not (isinstance(key, tuple) and isinstance(answer, tuple)):
            return super().distance(key, answer)
        return sum(
            i >= len(key) or i >= len(answer) or key[i] != answer[i]
            for i in range(max(len(key), len(answer)))
        )

    def to_answer(self, canonical: LeafOrder) -> dict[str, Any]:
        return {"leaf_order": list(canonical)}

    def paper(self, tree: Tree, answer: dict[str, Any] | None = None) -> Paper:
        order = answer.get("leaf_order", []) if answer else []
        return Paper(
            "Number the leaves in the order alpha-beta evaluates them (1 for the first); leave "
            "the boxes of pruned leaves empty.",
            PaperBoxes(tuple(tree.leaves()), chars=2),
            {p: str(i + 1) for i, p in enumerate(order)},
        )

    def assess(
        self, tree: Tree, key: LeafOrder, answer: LeafOrder
    ) -> tuple[dict[str, list[Path]], dict[str, float]]:
        """The errors are the longer order's length minus the longest common subsequence: the
        shared leaves outside one such subsequence (out of order), and the larger of the missing
        and the extra leaves, a missing leaf and an extra one pairing as one error."""
        longest = max(len(key), len(answer))
        kept = _lcs_items(key, answer)
        share = len(kept) / longest if longest else 1.0
        listed, evaluated = set(answer), set(key)
        missing = [p for p in key if p not in listed]
        extra = [p for p in answer if p not in evaluated]
        pairs = min(len(missing), len(extra))
        errors = {
            "out-of-order": [p for p in key if p in listed and p not in kept],
            "replaced-leaf": extra[:pairs],
            "missing-leaf": missing[pairs:],
            "extra-leaf": extra[pairs:],
        }
        return errors, {"leaf_order": round(share, 6)}

    def first_wrong(
        self, explainer: Explainer, key: LeafOrder, answer: LeafOrder
    ) -> dict[str, Any] | None:
        for i, expected in enumerate(key):
            got = answer[i] if i < len(answer) else None
            if got != expected:
                step = next(
                    s.index
                    for s in explainer.result.trace
                    if s.kind == "leaf" and s.path == expected
                )
                message = (
                    f"The {ordinal(i)} leaf evaluated is {explainer.label(expected)}"
                    + (f", not {explainer.label(got)}" if got else "")
                    + "."
                )
                if got is not None and got not in key:
                    message += " " + explainer.pruned_leaf(got)
                # The leaf marked is the one the student put there; the step, the key's.
                return where(explainer, got or expected, message, step)
        if len(answer) > len(key):
            extra = answer[len(key)]
            return where(explainer, extra, explainer.pruned_leaf(extra), None)
        return None
