"""The misconception library: known buggy versions of alpha-beta, each the reference search under
different ``TreeSearchRules`` (or, for ``cut-node-marked``, a different way of reporting what it pruned).

Each variant has a code (stored with graded attempts and counted in statistics), the sentence a
student reads when their answer matches it, and the exercise kinds whose answers it can change.
On some trees several variants give the same answer: the answer then names them all
(`diagnosis_words`), and the one stored and counted is the first in the library's order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from grader.checkers.variants import either
from grader.gametree.solver import Conventions, SearchResult, TreeSearchRules, search
from grader.gametree.tree import Tree


@dataclass(frozen=True)
class Variant:
    code: str
    kinds: frozenset[str]
    rules: Callable[[Tree, Conventions], TreeSearchRules]
    sentence: Callable[[Tree, Conventions], str]
    marks_cut_nodes: bool = False  # the answer marks the node where a cutoff happened as pruned

    def run(self, tree: Tree, conventions: Conventions) -> SearchResult:
        return search(tree, self.rules(tree, conventions))


def _flip(conventions: Conventions, name: str) -> Conventions:
    other = {
        "ties": {"prune": "explore", "explore": "prune"},
        "values": {"soft": "hard", "hard": "soft"},
        "order": {"ltr": "rtl", "rtl": "ltr"},
    }[name][getattr(conventions, name)]
    changes: dict[str, Any] = {name: other}  # a str field named at run time
    return replace(conventions, **changes)


def _swap_players(tree: Tree) -> tuple[str, ...]:
    return tuple("min" if p == "max" else "max" for p in tree.players)


_SEARCH_KINDS = frozenset({"prune", "values", "bounds", "leaf-order"})

VARIANTS: dict[str, Variant] = {
    v.code: v
    # When several variants give the same answer, all are named and the first (the simpler
    # explanation) is the attempt's diagnosis.
    for v in [
        Variant(
            "no-pruning",
            _SEARCH_KINDS,
            lambda t, c: TreeSearchRules(c, pruning=False),
            lambda t, c: (
                "Your answer is plain minimax, with nothing pruned: alpha-beta skips the children "
                "of a node once alpha >= beta there."
            ),
        ),
        Variant(
            "players-swapped",
            _SEARCH_KINDS | {"minimax"},
            lambda t, c: TreeSearchRules(c, players=_swap_players(t)),
            lambda t, c: (
                f"You treated the root as {_swap_players(t)[0].upper()}: the root is "
                f"{t.players[0].upper()} here, and the players alternate as the row labels show."
            ),
        ),
        Variant(
            "wrong-order",
            _SEARCH_KINDS,
            lambda t, c: TreeSearchRules(_flip(c, "order")),
            lambda t, c: (
                "You searched the children "
                + ("right to left" if c.order == "ltr" else "left to right")
                + ": this exercise searches them "
                + ("left to right." if c.order == "ltr" else "right to left.")
            ),
        ),
        Variant(
            "ties-flipped",
            _SEARCH_KINDS,
            lambda t, c: TreeSearchRules(_flip(c, "ties")),
            lambda t, c: (
                "You kept searching when alpha = beta: in this exercise a node stops as soon as "
                "alpha >= beta, ties included."
                if c.ties == "prune"
                else "You stopped when alpha = beta: in this exercise a node stops only when its "
                "value is strictly outside the window (alpha, beta)."
            ),
        ),
        Variant(
            "cut-node-marked",
            frozenset({"prune"}),
            lambda t, c: TreeSearchRules(c),
            lambda t, c: (
                "You marked the node where the cutoff happened as pruned: that node was visited; "
                "only its remaining children are pruned."
            ),
            marks_cut_nodes=True,
        ),
        Variant(
            "leaves-only",
            _SEARCH_KINDS,
            lambda t, c: TreeSearchRules(c, prune_internal=False),
            lambda t, c: (
                "You pruned only leaves: after a cutoff the remaining children are skipped whole, "
                "internal nodes and everything below them included."
            ),
        ),
        Variant(
            "shallow-cutoffs",
            _SEARCH_KINDS,
            lambda t, c: TreeSearchRules(c, shallow=True),
            lambda t, c: (
                "You passed down only the parent's bound: alpha and beta come down from every "
                "ancestor, so a cutoff can use a bound set two or more levels above (a deep cutoff)."
            ),
        ),
        Variant(
            "bounds-swapped",
            _SEARCH_KINDS,
            lambda t, c: TreeSearchRules(c, swap_bounds=True),
            lambda t, c: (
                "You updated beta at MAX nodes and alpha at MIN nodes: a MAX node raises alpha, "
                "a MIN node lowers beta."
            ),
        ),
        Variant(
            "values-convention",
            frozenset({"values", "bounds"}),
            lambda t, c: TreeSearchRules(_flip(c, "values")),
            lambda t, c: (
                "You reported the bound at cut nodes (fail-hard): in this exercise a node returns "
                "its best value so far (fail-soft)."
                if c.values == "soft"
                else "You reported the best value so far at cut nodes (fail-soft): in this exercise "
                "a node returns its value clamped to its window (fail-hard)."
            ),
        ),
    ]
}


def has_distinct_leaves(tree: Tree) -> bool:
    values = [tree.node(p).value for p in tree.leaves()]
    return len(set(values)) == len(values)


def variants_for(kind: str, tree: Tree, conventions: Conventions) -> list[Variant]:
    """The variants that can change an answer of ``kind`` on ``tree`` under ``conventions``.

    Left out: a variant whose rules are not a valid combination here (ties=explore with fail-hard
    values), and ``ties-flipped`` when the leaves are distinct and values soft, where the two tie
    rules always agree (under fail-hard a returned bound can still tie)."""
    result = []
    for variant in VARIANTS.values():
        if kind not in variant.kinds:
            continue
        tie_free = conventions.values == "soft" and has_distinct_leaves(tree)
        if variant.code == "ties-flipped" and tie_free:
            continue
        try:
            variant.rules(tree, conventions)
        except ValueError:
            continue
        result.append(variant)
    return result


def diagnosis_words(variants: list[Variant], tree: Tree, conventions: Conventions) -> str:
    """What a student reads when their answer is these variants' (the library's order): one
    variant's sentence; for several, that they give the same answer on this tree, then each."""
    sentences = [v.sentence(tree, conventions) for v in variants]
    if len(variants) == 1:
        return sentences[0]
    return (
        f"Your answer matches {either([v.code for v in variants])}: on this tree they give the same answer, so it does not "
        "tell which you made. Either: " + " Or: ".join(sentences)
    )
