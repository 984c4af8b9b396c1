"""The bounds kind: alpha and beta at each internal node when alpha-beta returns from it.

Its errors: each wrong or missing alpha and beta, plus bounds given for pruned nodes."""

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
    number,
    part,
    where,
    written,
)
from grader.gametree.kinds.registry import register
from grader.gametree.solver import INF, Conventions, SearchResult, jsonable
from grader.gametree.tree import Path, Tree, Value
from grader.gametree.variants import SEARCH_VARIANTS, Variant

NodeBounds = dict[Path, tuple[Value, Value]]  # internal node -> (alpha, beta) as it returns


@register
class BoundsKind(CountedKind):
    name = "bounds"
    title = "Alpha and beta"
    prompt = (
        "Give alpha and beta at each internal node when alpha-beta returns from it "
        "(write inf or -inf for infinity); leave pruned nodes empty."
    )
    parts = ("bounds",)
    answer_shape: ClassVar[dict[str, AnswerPart]] = {
        "bounds": AnswerPart(
            "pairs-by-node", "path -> [alpha, beta], or null for a node left blank"
        )
    }
    answer_doc = "alpha and beta at each internal node as it returns."
    variants = (*SEARCH_VARIANTS, "values-convention")
    reveals = ("bounds-swapped",)
    chance_trees = False
    no_chance_reason = (
        "alpha and beta below a chance node are Star1's windows, which this kind does not grade"
    )

    def examples(self) -> tuple[Example, ...]:
        tree = Tree.from_nested(EXAMPLE_TREES["four levels"])
        key = self.key(tree, Conventions())
        bounds = dict(key["bounds"])
        # The deepest node's alpha off, and the root's bounds left out.
        off = max((p for p in bounds if p), key=lambda p: (len(p.split(".")), p))
        alpha, beta = bounds[off]
        bounds[off] = [alpha - 2 if isinstance(alpha, int) else -99, beta]
        del bounds[""]
        return (
            Example("wrong", tree, {"bounds": bounds}, frozenset({off, ""})),
            Example("right", tree, key, score=1.0),
        )

    def words(self, answer: dict[str, Any], label: Callable[[Path], str]) -> str:
        return (
            "; ".join(
                f"{label(p)}: α {b[0]}, β {b[1]}"
                for p, b in sorted(answer.get("bounds", {}).items())
            )
            or "none"
        )

    def normalize(self, tree: Tree, answer: object) -> NodeBounds:
        bounds = part(self, answer, "bounds")
        if not isinstance(bounds, dict):
            raise UngradableAnswer("'bounds' must map paths to [alpha, beta]")
        result = {}
        for p, pair in bounds.items():
            if pair is None:
                continue
            path = internal_path(tree, p, "'bounds'")
            if not isinstance(pair, list | tuple) or len(pair) != 2:
                raise UngradableAnswer(f"the bounds at {p!r} must be [alpha, beta]")
            result[path] = (number(pair[0], f"alpha at {p!r}"), number(pair[1], f"beta at {p!r}"))
        return result

    def project(self, result: SearchResult, variant: Variant | None = None) -> NodeBounds:
        return {
            p: (r.alpha, r.beta) for p, r in result.nodes.items() if not result.tree.node(p).is_leaf
        }

    def slips(self, tree: Tree, key: NodeBounds, rng: random.Random) -> list[NodeBounds]:
        path = rng.choice(sorted(key))
        alpha, beta = key[path]
        finite = alpha if alpha not in (INF, -INF) else 0
        return [{**key, path: (finite + 1, beta)}]

    def to_answer(self, canonical: NodeBounds) -> dict[str, Any]:
        return {"bounds": {p: [jsonable(a), jsonable(b)] for p, (a, b) in canonical.items()}}

    def paper(self, tree: Tree, answer: dict[str, Any] | None = None) -> Paper:
        bounds = answer.get("bounds", {}) if answer else {}
        return Paper(
            "Write alpha (α) and beta (β) at each internal node when alpha-beta returns from it "
            "(∞ for infinity); leave the boxes of pruned nodes empty.",
            PaperBoxes(internal(tree), rows=("α", "β")),
            {p: f"{written(a)}\n{written(b)}" for p, (a, b) in bounds.items()},
        )

    def assess(
        self, tree: Tree, key: NodeBounds, answer: NodeBounds
    ) -> tuple[dict[str, list[Path]], dict[str, float]]:
        right = 0.0
        errors: dict[str, list[Path]] = {
            "wrong-alpha": [],
            "wrong-beta": [],
            "missing-alpha": [],
            "missing-beta": [],
        }
        for p in in_order(key):
            a, b = key[p]
            got = answer.get(p)
            if got is None:
                errors["missing-alpha"].append(p)
                errors["missing-beta"].append(p)
                continue
            right += 0.5 * (got[0] == a) + 0.5 * (got[1] == b)
            if got[0] != a:
                errors["wrong-alpha"].append(p)
            if got[1] != b:
                errors["wrong-beta"].append(p)
        errors["pruned-bounds"] = in_order(set(answer) - set(key))
        share = right / (len(key) + len(errors["pruned-bounds"])) if key else 1.0
        return errors, {"bounds": round(share, 6)}

    def first_wrong(
        self, explainer: Explainer, key: NodeBounds, answer: NodeBounds
    ) -> dict[str, Any] | None:
        for step in explainer.result.trace:
            p = step.path
            if step.kind == "return" and answer.get(p) != key[p]:
                return where(explainer, p, explainer.bounds(p), step.index)
        for p in sorted(set(answer) - set(key)):
            return where(explainer, p, explainer.pruned_leaf(p), None)
        return None
