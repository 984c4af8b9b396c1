"""The misconception library: known buggy versions of alpha-beta, each the reference search under
different ``TreeSearchRules`` (or, for ``cut-node-marked``, a different way of reporting what it pruned).

Each variant has a code (stored with graded attempts and counted in statistics), the sentence a
student reads when their answer matches it, and the exercise kinds whose answers it can change.
On some trees several variants give the same answer: the answer then names them all
(`diagnosis_words`), and the one stored and counted is the first in the library's order.

The chance variants (codes starting ``chance-``) apply only to trees with chance nodes, and each
only where it can differ from the reference (``variants_for``):
- ``chance-as-min``: chance nodes taken as MIN, the worst case (the pessimist that CS188's q4
  contrasts expectimax with: minimax assumes adversarial ghosts);
- ``chance-unweighted``: the plain average of the children, whatever the probabilities (only
  where some chance node's probabilities differ);
- ``chance-cut-as-min``: alpha-beta's MIN cutoff at chance nodes, with no bounds: the node passes
  its window down and stops once a child's value is at or below alpha (AIMA: pruning at chance
  nodes needs bounds on the values);
- ``star1-unseen-mass``: Star1 with the unseen probability mass forgotten: the interval taken as
  [S, S] and the windows as A = (alpha - S) / p, B = (beta - S) / p (only under finite bounds);
- ``star1-windows``: Star1's cut at the chance node, but its children searched with the node's
  own window instead of Ballard's (Ballard 1983 and Hauk et al. 2004 derive the child windows;
  passing the parent's window through is the implementation slip they guard against).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from grader.checkers.variants import either
from grader.gametree.solver import Conventions, SearchResult, TreeSearchRules, search
from grader.gametree.tree import Tree


@dataclass(frozen=True)
class Variant:
    code: str
    rules: Callable[[Tree, Conventions], TreeSearchRules]
    sentence: Callable[[Tree, Conventions], str]
    marks_cut_nodes: bool = False  # the answer marks the node where a cutoff happened as pruned

    def run(self, tree: Tree, conventions: Conventions) -> SearchResult:
        return search(tree, self.rules(tree, conventions))

    @property
    def kinds(self) -> frozenset[str]:
        """The registered kinds whose answers this variant can change (each kind names them)."""
        return frozenset(_CHANGED.get(self.code, ()))


def _flip(conventions: Conventions, name: str) -> Conventions:
    other = {
        "ties": {"prune": "explore", "explore": "prune"},
        "values": {"soft": "hard", "hard": "soft"},
        "order": {"ltr": "rtl", "rtl": "ltr"},
    }[name][getattr(conventions, name)]
    changes: dict[str, Any] = {name: other}  # a str field named at run time
    return replace(conventions, **changes)


def _swap_players(tree: Tree) -> tuple[str, ...]:
    return tuple({"max": "min", "min": "max"}.get(p, p) for p in tree.players)


# The kinds whose answers each variant can change, by its code: each kind names the variants that
# change its answers (``ExerciseKind.variants``), and registering the kind records it here.
_CHANGED: dict[str, set[str]] = {}


def enrol(kind: str, codes: Iterable[str]) -> None:
    """Record that the variants ``codes`` change answers of ``kind``."""
    unknown = sorted(set(codes) - set(ALL_VARIANTS))
    if unknown:
        raise ValueError(f"the kind {kind!r} names unknown variants: {', '.join(unknown)}")
    for code in codes:
        _CHANGED.setdefault(code, set()).add(kind)


def withdraw(kind: str) -> None:
    """Forget ``kind`` (its registration is withdrawn)."""
    for kinds in _CHANGED.values():
        kinds.discard(kind)


VARIANTS: dict[str, Variant] = {
    v.code: v
    # When several variants give the same answer, all are named and the first (the simpler
    # explanation) is the attempt's diagnosis.
    for v in [
        Variant(
            "no-pruning",
            lambda t, c: TreeSearchRules(c, pruning=False),
            lambda t, c: (
                "Your answer is plain minimax, with nothing pruned: alpha-beta skips the children "
                "of a node once alpha >= beta there."
            ),
        ),
        Variant(
            "players-swapped",
            lambda t, c: TreeSearchRules(c, players=_swap_players(t)),
            lambda t, c: (
                f"You treated the root as {_swap_players(t)[0].upper()}: the root is "
                f"{t.players[0].upper()} here, and the players alternate as the row labels show."
            ),
        ),
        Variant(
            "wrong-order",
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
            lambda t, c: TreeSearchRules(c),
            lambda t, c: (
                "You marked the node where the cutoff happened as pruned: that node was visited; "
                "only its remaining children are pruned."
            ),
            marks_cut_nodes=True,
        ),
        Variant(
            "leaves-only",
            lambda t, c: TreeSearchRules(c, prune_internal=False),
            lambda t, c: (
                "You pruned only leaves: after a cutoff the remaining children are skipped whole, "
                "internal nodes and everything below them included."
            ),
        ),
        Variant(
            "shallow-cutoffs",
            lambda t, c: TreeSearchRules(c, shallow=True),
            lambda t, c: (
                "You passed down only the parent's bound: alpha and beta come down from every "
                "ancestor, so a cutoff can use a bound set two or more levels above (a deep cutoff)."
            ),
        ),
        Variant(
            "bounds-swapped",
            lambda t, c: TreeSearchRules(c, swap_bounds=True),
            lambda t, c: (
                "You updated beta at MAX nodes and alpha at MIN nodes: a MAX node raises alpha, "
                "a MIN node lowers beta."
            ),
        ),
        Variant(
            "values-convention",
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

# The chance misconceptions: a library of their own, so that what counts and lists VARIANTS
# (statistics, adaptive practice, the generator's `expose`) is unchanged for MAX/MIN trees until
# exercises on chance trees exist; `variants_for` adds them on trees with chance nodes, after the
# MAX/MIN ones (the library's order: `ALL_VARIANTS`).
CHANCE_VARIANTS: dict[str, Variant] = {
    v.code: v
    for v in [
        Variant(
            "chance-as-min",
            lambda t, c: TreeSearchRules(c, chance_as="min"),
            lambda t, c: (
                "You took the smallest value at the chance nodes, as if they were MIN: a chance "
                "node takes the weighted average of its children (each value times its "
                "probability, summed)."
            ),
        ),
        Variant(
            "chance-unweighted",
            lambda t, c: TreeSearchRules(c, uniform_chance=True),
            lambda t, c: (
                "You took the plain average at the chance nodes: their children are not equally "
                "likely here, so each value counts by its probability (the weighted average)."
            ),
        ),
        Variant(
            "chance-cut-as-min",
            lambda t, c: TreeSearchRules(c, cut_chance_as_min=True),
            lambda t, c: (
                "You cut at a chance node as alpha-beta cuts at a MIN node: one low child does not "
                "bound an average, since the other children can raise it. A chance node can be "
                "cut only with bounds on the leaf values (Star1)"
                + (
                    ", and this exercise states none."
                    if not c.star1
                    else ", from the interval its value lies in."
                )
            ),
        ),
        Variant(
            "star1-unseen-mass",
            lambda t, c: TreeSearchRules(c, star1_unseen=False),
            lambda t, c: (
                "Your Star1 bounds forgot the children not yet seen: after children of "
                "probability P with weighted sum S the value lies in [S + (1 - P)·L, "
                "S + (1 - P)·U], not at S."
            ),
        ),
        Variant(
            "star1-windows",
            lambda t, c: TreeSearchRules(c, star1_windows=False),
            lambda t, c: (
                "You searched the children of a chance node with the chance node's own window: "
                "Star1 gives child i the window (max(A, L), min(B, U)), A = (alpha - S - "
                "(1 - P - p)·U) / p, B = (beta - S - (1 - P - p)·L) / p."
            ),
        ),
    ]
}


ALL_VARIANTS: dict[str, Variant] = {**VARIANTS, **CHANCE_VARIANTS}

# The variants that change an answer read off alpha-beta's search (what it prunes, the values and
# bounds it returns, the leaves it evaluates), and those that change any answer on a chance tree
# (the search's or minimax's) or only the search's there: the groups a kind names its variants by.
SEARCH_VARIANTS = (
    "no-pruning",
    "players-swapped",
    "wrong-order",
    "ties-flipped",
    "leaves-only",
    "shallow-cutoffs",
    "bounds-swapped",
)
CHANCE_VARIANTS_ANY = ("chance-as-min", "chance-unweighted")
CHANCE_SEARCH_VARIANTS = ("chance-cut-as-min", "star1-unseen-mass", "star1-windows")


def has_distinct_leaves(tree: Tree) -> bool:
    values = [tree.node(p).value for p in tree.leaves()]
    return len(set(values)) == len(values)


def has_unequal_chances(tree: Tree) -> bool:
    """Whether some chance node's children are not all equally likely."""
    return any(node.chance is not None and len(set(node.chance)) > 1 for _path, node in tree.walk())


def _chance_applies(code: str, tree: Tree, conventions: Conventions) -> bool:
    """Whether a chance variant can change an answer on ``tree``: none on a tree without chance
    nodes; the unweighted average only where probabilities differ; the Star1 slips only under
    finite bounds (without them Star1 cuts nothing and passes no window)."""
    if not tree.has_chance:
        return False
    if code == "chance-unweighted":
        return has_unequal_chances(tree)
    if code.startswith("star1-"):
        return conventions.star1
    return True


def variants_for(kind: str, tree: Tree, conventions: Conventions) -> list[Variant]:
    """The variants that can change an answer of ``kind`` on ``tree`` under ``conventions``.

    Left out: a variant whose rules are not a valid combination here (ties=explore with fail-hard
    values), ``ties-flipped`` when the leaves are distinct, values soft and no chance node
    averages them, where the two tie rules always agree (under fail-hard a returned bound can
    still tie), and a chance variant where it cannot apply (``_chance_applies``)."""
    result = []
    for variant in ALL_VARIANTS.values():
        if kind not in variant.kinds:
            continue
        if variant.code in CHANCE_VARIANTS and not _chance_applies(variant.code, tree, conventions):
            continue
        tie_free = (
            conventions.values == "soft" and has_distinct_leaves(tree) and not tree.has_chance
        )
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
