"""The prune kind: mark every node alpha-beta never visits, and give the root's value.

Its errors: the subtrees marked but not pruned plus the subtrees pruned but not marked (each
counted by its root, after normalizing both sets: marking a node marks its subtree; a node whose
children are all marked is marked), plus one for a wrong root value."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, ClassVar

from grader.gametree.drawing import PaperBoxes
from grader.gametree.explain import Explainer, fmt
from grader.gametree.kinds.base import (
    EXAMPLE_TREES,
    AnswerPart,
    CountedKind,
    Example,
    Paper,
    UngradableAnswer,
    matches,
    number,
    part,
    tree_order,
    where,
    written,
)
from grader.gametree.kinds.registry import register
from grader.gametree.solver import Conventions, SearchResult, jsonable
from grader.gametree.tree import Path, Tree, Value
from grader.gametree.variants import (
    CHANCE_SEARCH_VARIANTS,
    CHANCE_VARIANTS_ANY,
    SEARCH_VARIANTS,
    Variant,
)

Pruned = tuple[frozenset[Path], Value]  # the closed set of pruned nodes, the root's value


def normalize_pruned(tree: Tree, marked: set[Path]) -> frozenset[Path]:
    """Marking a node marks its subtree; a node whose children are all marked is marked."""
    families = tree.families()  # in the label order: a parent comes before its children
    closed: set[Path] = set()
    for path, parent, _children in families:
        if path in marked or parent in closed:
            closed.add(path)
    for path, _parent, children in reversed(families):
        if children and closed.issuperset(children):
            closed.add(path)
    return frozenset(closed)


def root_paths(paths: frozenset[Path] | set[Path]) -> list[Path]:
    """The roots of the subtrees ``paths`` is made of, in the tree's order (depth first)."""
    return sorted(
        (p for p in paths if p == "" or p.rpartition(".")[0] not in paths), key=tree_order
    )


def _under(path: Path, root: Path) -> bool:
    return path == root or path.startswith(root + ".")


@register
class PruneKind(CountedKind):
    name = "prune"
    title = "Pruned nodes"
    prompt = (
        "Mark every node alpha-beta never visits (marking a node marks its whole subtree) "
        "and give the value of the root."
    )
    parts = ("pruned", "value")
    answer_shape: ClassVar[dict[str, AnswerPart]] = {
        "pruned": AnswerPart("paths", "paths of pruned nodes (never the root)"),
        "value": AnswerPart("number"),
    }
    answer_doc = "the nodes never visited (a node marks its subtree) and the root's value."
    variants = (
        *SEARCH_VARIANTS,
        "cut-node-marked",
        *CHANCE_VARIANTS_ANY,
        *CHANCE_SEARCH_VARIANTS,
    )
    reveals = ("no-pruning", "ties-flipped", "cut-node-marked", "leaves-only", "shallow-cutoffs")
    reads_values = False

    def examples(self) -> tuple[Example, ...]:
        tree = Tree.from_nested(EXAMPLE_TREES["four levels"])
        key = self.key(tree, Conventions())
        # Forgets the first pruned subtree and misreads the root's value.
        dropped = next(p for p in key["pruned"] if not tree.node(p).is_leaf)
        pruned = [p for p in key["pruned"] if p != dropped]
        marked = normalize_pruned(tree, set(pruned)) ^ normalize_pruned(tree, set(key["pruned"]))
        wrong = {"pruned": pruned, "value": key["value"] + 1}
        return (
            Example("wrong", tree, wrong, frozenset({"", *marked})),
            Example("right", tree, key, score=1.0),
        )

    def words(self, answer: dict[str, Any], label: Callable[[Path], str]) -> str:
        pruned = sorted((label(p) for p in answer.get("pruned", [])), key=lambda s: (len(s), s))
        return f"pruned: {', '.join(pruned) or 'none'}; root value {answer.get('value')}"

    def normalize(self, tree: Tree, answer: object) -> Pruned:
        pruned = part(self, answer, "pruned")
        if not isinstance(pruned, list):
            raise UngradableAnswer("'pruned' must be a list of paths")
        if len(pruned) > tree.node_count():
            raise UngradableAnswer("'pruned' lists more paths than the tree has nodes")
        for path in pruned:
            if not isinstance(path, str) or not tree.has(path):
                raise UngradableAnswer(f"no node at path {path!r} in 'pruned'")
            if path == "":
                raise UngradableAnswer("the root is always searched; it cannot be pruned")
        value = number(part(self, answer, "value"), "'value'")
        return (normalize_pruned(tree, set(pruned)), value)

    def slips(self, tree: Tree, key: Pruned, rng: random.Random) -> list[Pruned]:
        pruned, value = key
        answers = [(pruned, value + 1)]
        roots = [p for p in pruned if p.rpartition(".")[0] not in pruned]
        if roots:
            missing = rng.choice(sorted(roots))
            answers.append((frozenset(p for p in pruned if not _under(p, missing)), value))
        visited_leaves = [p for p in tree.leaves() if p not in pruned]
        extra = rng.choice(visited_leaves)
        answers.append((normalize_pruned(tree, set(pruned) | {extra}), value))
        return answers

    def distance(self, key: Pruned, answer: Pruned) -> int:
        assert isinstance(key, tuple) and isinstance(answer, tuple)  # (pruned, root value) pairs
        (k, kv), (a, av) = key, answer
        return len(k ^ a) + (kv != av)

    def project(self, result: SearchResult, variant: Variant | None = None) -> Pruned:
        pruned = set(result.pruned_all)
        if variant is not None and variant.marks_cut_nodes:
            pruned |= {c.path for c in result.cutoffs}
        return (normalize_pruned(result.tree, pruned), result.value)

    def answer_count(self, canonical: Pruned) -> int:
        """The nodes to mark (the topmost of each pruned subtree) and the root's value."""
        return len(root_paths(canonical[0])) + 1

    def to_answer(self, canonical: Pruned) -> dict[str, Any]:
        pruned, value = canonical  # a fraction's value as its text, "14/3"
        return {"pruned": root_paths(pruned), "value": jsonable(value)}

    def paper(self, tree: Tree, answer: dict[str, Any] | None = None) -> Paper:
        pruned = tuple(answer.get("pruned", [])) if answer else ()
        return Paper(
            "Cross (✗) the box of every node alpha-beta never visits: crossing the root of a "
            "pruned subtree is enough. Write the root's value below the tree.",
            PaperBoxes(tuple(p for p, _ in tree.walk() if p), chars=1),
            {p: "✗" for p in pruned},
            (("Root value", written(answer.get("value")) if answer else ""),),
            pruned,
        )

    def agrees(self, exact: Pruned, answer: Pruned) -> bool:
        return exact[0] == answer[0] and matches(answer[1], exact[1])

    def assess(
        self, tree: Tree, key: Pruned, answer: Pruned
    ) -> tuple[dict[str, list[Path]], dict[str, float]]:
        (k, kv), (a, av) = key, answer
        jaccard = 1.0 if not (k | a) else len(k & a) / len(k | a)
        right = matches(av, kv)
        errors = {
            "extra-mark": root_paths(a - k),
            "missing-mark": root_paths(k - a),
            "root-value": [] if right else [""],
        }
        return errors, {"pruned": round(jaccard, 6), "value": float(right)}

    def first_wrong(
        self, explainer: Explainer, key: Pruned, answer: Pruned
    ) -> dict[str, Any] | None:
        marked, value = answer
        for step in explainer.result.trace:
            if step.kind == "enter" and step.path in marked and step.path:
                return where(explainer, step.path, explainer.visited_not_pruned(step), step.index)
            if step.kind == "cutoff" and not marked.issuperset(step.pruned):
                cutoff = next(c for c in explainer.result.cutoffs if c.step == step.index)
                return where(explainer, step.path, explainer.cutoff(cutoff), step.index)
        if not matches(value, key[1]):
            return where(
                explainer,
                "",
                explainer.wrong_value("", value, f"The root's value is {fmt(key[1])}: "),
                len(explainer.result.trace) - 1,
            )
        return None
