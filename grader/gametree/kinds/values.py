"""The values kind: the value each internal node returns when alpha-beta searches it.

Its errors: visited internal nodes whose value is wrong or missing, plus values given for nodes
that are pruned. ``ValuesKind`` is also the base of the minimax kind (``minimax.py``), whose
answer has the same shape."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, ClassVar

from grader.gametree.drawing import PaperBoxes
from grader.gametree.explain import Explainer
from grader.gametree.kinds.base import (
    EXAMPLE_TREES,
    AnswerPart,
    CountedKind,
    Example,
    Paper,
    UngradableAnswer,
    in_order,
    internal,
    internal_path,
    matches,
    number,
    part,
    where,
    written,
)
from grader.gametree.kinds.registry import register
from grader.gametree.solver import Conventions, SearchResult, jsonable, minimax
from grader.gametree.tree import Path, Tree, Value
from grader.gametree.variants import (
    CHANCE_SEARCH_VARIANTS,
    CHANCE_VARIANTS_ANY,
    SEARCH_VARIANTS,
    Variant,
)

NodeValues = dict[Path, Value]  # internal node -> the value it returns

# The values answer's shape, shared with minimax's.
VALUES_SHAPE = {"values": AnswerPart("numbers-by-node")}


@register
class ValuesKind(CountedKind):
    name = "values"
    title = "Values returned"
    prompt = "Give the value each internal node returns when alpha-beta searches it; leave pruned nodes empty."
    parts = ("values",)
    answer_shape = VALUES_SHAPE
    answer_doc = "the value each internal node returns."
    variants: ClassVar[tuple[str, ...]] = (
        *SEARCH_VARIANTS,
        "values-convention",
        *CHANCE_VARIANTS_ANY,
        *CHANCE_SEARCH_VARIANTS,
    )
    reveals: ClassVar[tuple[str, ...]] = ("players-swapped", "values-convention")
    paper_instruction: ClassVar[str] = (
        "Write in its box the value each internal node returns; leave the boxes of pruned "
        "nodes empty."
    )

    # The tree of its examples: one with a node alpha-beta never visits.
    example_tree: ClassVar[str] = "four levels"

    def examples(self) -> tuple[Example, ...]:
        tree = Tree.from_nested(EXAMPLE_TREES[self.example_tree])
        key = self.key(tree, Conventions())
        values = dict(key["values"])
        # The deepest value off by 2, and a value given for a node alpha-beta never visits.
        off = max(values, key=lambda p: (len(p.split(".")) if p else 0, p))
        values[off] -= 2
        wrong_at = {off}
        unvisited = [p for p, node in tree.walk() if not node.is_leaf and p not in values]
        if unvisited:
            values[unvisited[0]] = minimax(tree, Conventions()).nodes[unvisited[0]].value
            wrong_at.add(unvisited[0])
        return (
            Example("wrong", tree, {"values": values}, frozenset(wrong_at)),
            Example("right", tree, key, score=1.0),
        )

    def words(self, answer: dict[str, Any], label: Callable[[Path], str]) -> str:
        values = sorted(
            answer.get("values", {}).items(), key=lambda kv: (len(kv[0].split(".")), kv[0])
        )
        return ", ".join(f"{label(p)} = {v}" for p, v in values) or "none"

    def normalize(self, tree: Tree, answer: object) -> NodeValues:
        values = part(self, answer, "values")
        if not isinstance(values, dict):
            raise UngradableAnswer("'values' must map paths to numbers")
        return {
            internal_path(tree, p, "'values'"): number(v, f"the value at {p!r}")
            for p, v in values.items()
            if v is not None and v != ""
        }

    def project(self, result: SearchResult, variant: Variant | None = None) -> NodeValues:
        return {p: r.value for p, r in result.nodes.items() if not result.tree.node(p).is_leaf}

    def slips(self, tree: Tree, key: NodeValues, rng: random.Random) -> list[NodeValues]:
        path = rng.choice(sorted(key))
        return [{**key, path: key[path] + 1}]

    def to_answer(self, canonical: NodeValues) -> dict[str, Any]:
        # A copy (the canonical key is cached), a fraction as its exact text "14/3".
        return {"values": {p: jsonable(v) for p, v in canonical.items()}}

    def paper(self, tree: Tree, answer: dict[str, Any] | None = None) -> Paper:
        values = answer.get("values", {}) if answer else {}
        return Paper(
            self.paper_instruction,
            PaperBoxes(internal(tree)),
            {p: written(v) for p, v in values.items()},
        )

    def agrees(self, exact: NodeValues, answer: NodeValues) -> bool:
        return set(exact) == set(answer) and all(matches(answer[p], v) for p, v in exact.items())

    def assess(
        self, tree: Tree, key: NodeValues, answer: NodeValues
    ) -> tuple[dict[str, list[Path]], dict[str, float]]:
        right = sum(1 for p, v in key.items() if matches(answer.get(p), v))
        extra = in_order(set(answer) - set(key))
        share = right / (len(key) + len(extra)) if key else 1.0
        errors = {
            "wrong-value": [
                p for p in in_order(key) if p in answer and not matches(answer[p], key[p])
            ],
            "missing-value": [p for p in in_order(key) if p not in answer],
            "pruned-value": extra,
        }
        return errors, {"values": round(share, 6)}

    def first_wrong(
        self, explainer: Explainer, key: NodeValues, answer: NodeValues
    ) -> dict[str, Any] | None:
        for step in explainer.result.trace:
            p = step.path
            if step.kind == "return" and not matches(answer.get(p), key[p]):
                return where(explainer, p, explainer.wrong_value(p, answer.get(p)), step.index)
        for p in sorted(set(answer) - set(key)):
            return where(explainer, p, explainer.pruned_leaf(p), None)
        return None
