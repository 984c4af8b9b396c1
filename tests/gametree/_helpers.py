"""Shared helpers for the gametree tests: Hypothesis strategies, independent oracles and a
scripted random source.

The oracles here (plain minimax, brute force over orderings) are written from the definitions,
not from grader.gametree, so that a test comparing the two can fail.
"""

from __future__ import annotations

import itertools
import math
import random

from hypothesis import strategies as st

from grader.gametree import Conventions, Node, Tree, solve


class Draws(random.Random):
    """A random source that returns ``draws`` in turn (over again at the end), counting them."""

    def __init__(self, *draws: float) -> None:
        super().__init__(0)
        self.draws = draws
        self.taken = 0

    def random(self) -> float:
        value = self.draws[self.taken % len(self.draws)]
        self.taken += 1
        return value


TIES = ("prune", "explore")
VALUES = ("soft", "hard")
ORDERS = ("ltr", "rtl")
# Every valid combination: ties=explore with values=hard is refused by Conventions.
ALL_CONVENTIONS = [
    Conventions(ties=t, values=v, order=o)
    for t in TIES
    for v in VALUES
    for o in ORDERS
    if not (t == "explore" and v == "hard")
]

conventions = st.sampled_from(ALL_CONVENTIONS)
players = st.lists(st.sampled_from(["max", "min"]), min_size=1, max_size=3)
small_ints = st.integers(-3, 3)  # a small range, so ties are common
leaf_values = st.one_of(
    small_ints,
    st.integers(-50, 50),
    st.floats(-10, 10, allow_nan=False, allow_infinity=False, width=32),
)


@st.composite
def nodes(draw, max_depth: int = 5, max_branching: int = 4, budget: int = 48, values=None):
    """An n-ary tree of depth 0..max_depth, each internal node with 1..max_branching children.

    ``budget`` bounds the number of nodes so a run stays fast; a node past it becomes a leaf.
    """
    values = values if values is not None else leaf_values
    depth = draw(st.integers(0, max_depth))
    # One value strategy per tree, so small-range trees stay small-range (ties happen).
    value = draw(st.sampled_from([small_ints, st.integers(-50, 50), values]))
    count = 0

    def build(d: int) -> Node:
        nonlocal count
        count += 1
        stop = d == depth or count > budget or (d > 0 and draw(st.integers(0, 5)) == 0)
        if stop:
            return Node(draw(value))
        width = draw(st.integers(1, max_branching))
        return Node(None, tuple(build(d + 1) for _ in range(width)))

    return build(0)


@st.composite
def trees(draw, max_depth: int = 5, max_branching: int = 4, budget: int = 48):
    return Tree(draw(nodes(max_depth, max_branching, budget)), draw(players))


@st.composite
def nested_trees(draw, max_depth: int = 4, max_branching: int = 4, budget: int = 40):
    """Trees whose root is internal (so the nested-list form is a list)."""
    root = draw(nodes(max_depth, max_branching, budget))
    if root.is_leaf:
        root = Node(None, (root,))
    return Tree(root, draw(players))


def true_minimax(tree: Tree) -> dict[str, float]:
    """Exact minimax value of every node, by the definition."""
    out: dict[str, float] = {}

    def value(node: Node, path: str, depth: int) -> float:
        if node.is_leaf:
            out[path] = node.value
            return node.value
        player = tree.players[depth % len(tree.players)]
        vals = [
            value(c, f"{path}.{i}" if path else str(i), depth + 1)
            for i, c in enumerate(node.children)
        ]
        out[path] = max(vals) if player == "max" else min(vals)
        return out[path]

    value(tree.root, "", 0)
    return out


def all_paths(tree: Tree) -> set[str]:
    return {p for p, _ in tree.walk()}


def int_path(path: str) -> tuple[int, ...]:
    return tuple(int(x) for x in path.split(".")) if path else ()


def orderings(tree: Tree):
    """Every ordering of every internal node's children, as ``Tree.reordered`` dicts."""
    internal = [(p, len(n.children)) for p, n in tree.walk() if not n.is_leaf]
    per_node = [list(itertools.permutations(range(k))) for _, k in internal]
    for combo in itertools.product(*per_node):
        yield {p: list(order) for (p, _), order in zip(internal, combo, strict=True)}


def ordering_count(tree: Tree) -> int:
    return math.prod(math.factorial(len(n.children)) for _, n in tree.walk() if not n.is_leaf)


def brute_force_least_leaves(tree: Tree, conv: Conventions) -> int:
    return min(len(solve(tree.reordered(o), conv).leaf_order) for o in orderings(tree))
