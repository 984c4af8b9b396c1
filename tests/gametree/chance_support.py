"""Chance trees for the tests: a Hypothesis strategy, and an expectiminimax oracle written from the
definition (MAX takes the largest child, MIN the smallest, a chance node the sum of probability
times value, in exact fractions), not from grader.gametree.solver, so a test comparing the two
can fail."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from grader.gametree import Conventions, Node, Tree

# Splits of 1 among 2..4 children, readable ones and some that are not (1/5 + 4/5, 1/6 + ...).
SPLITS = {
    1: [(Fraction(1),)],
    2: [(Fraction(1, 2),) * 2, (Fraction(1, 3), Fraction(2, 3)), (Fraction(4, 5), Fraction(1, 5))],
    3: [
        (Fraction(1, 3),) * 3,
        (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)),
        (Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)),
    ],
    4: [(Fraction(1, 4),) * 4, (Fraction(1, 8), Fraction(1, 8), Fraction(1, 4), Fraction(1, 2))],
}
chance_players = st.sampled_from(
    [
        ("max", "chance"),
        ("min", "chance"),
        ("max", "chance", "min", "chance"),
        ("chance", "max"),
        ("max", "min", "chance"),
        ("max", "min"),  # chance nodes only where a node is written as one
    ]
)


@st.composite
def chance_trees(draw, low: int = 0, high: int = 10, max_depth: int = 4, budget: int = 40):
    """A tree with chance levels and/or nodes written as chance nodes, leaves in [low, high]."""
    players = draw(chance_players)
    depth = draw(st.integers(1, max_depth))
    count = 0

    def build(d: int) -> Node:
        nonlocal count
        count += 1
        if d == depth or count > budget or (d > 0 and draw(st.integers(0, 6)) == 0):
            return Node(draw(st.integers(low, high)))
        width = draw(st.integers(1, 4))
        children = tuple(build(d + 1) for _ in range(width))
        written = draw(st.integers(0, 3)) == 0  # a node written as a chance node
        chance = draw(st.sampled_from(SPLITS[width])) if written else None
        if chance is not None and draw(st.booleans()):
            chance = tuple(reversed(chance))
        return Node(None, children, chance=chance)

    return Tree(build(0), players)


def role(tree: Tree, node: Node, depth: int) -> str:
    if node.chance is not None:
        return "chance"
    return tree.players[depth % len(tree.players)]


def expectiminimax(tree: Tree) -> dict[str, Fraction]:
    """The exact value of every node, by the definition."""
    out: dict[str, Fraction] = {}

    def value(node: Node, path: str, depth: int) -> Fraction:
        if node.is_leaf:
            out[path] = Fraction(str(node.value))
            return out[path]
        values = [
            value(c, f"{path}.{i}" if path else str(i), depth + 1)
            for i, c in enumerate(node.children)
        ]
        kind = role(tree, node, depth)
        if kind == "max":
            out[path] = max(values)
        elif kind == "min":
            out[path] = min(values)
        else:
            n = len(values)
            weights = node.chance or (Fraction(1, n),) * n
            out[path] = sum((w * v for w, v in zip(weights, values, strict=True)), Fraction(0))
        return out[path]

    value(tree.root, "", 0)
    return out


def replaced(tree: Tree, paths: set[str], leaf: int) -> Tree:
    """``tree`` with the subtree at each of ``paths`` replaced by a leaf holding ``leaf``."""

    def build(node: Node, path: str) -> Node:
        if path in paths:
            return Node(leaf)
        if node.is_leaf:
            return node
        children = tuple(
            build(c, f"{path}.{i}" if path else str(i)) for i, c in enumerate(node.children)
        )
        return Node(node.value, children, node.terminal, node.chance)

    return Tree(build(tree.root, ""), tree.players)


def with_bounds(conventions: Conventions, low: object, high: object) -> Conventions:
    """`conventions` with the leaf bounds [low, high] (no depth limit)."""
    return Conventions(conventions.ties, conventions.values, conventions.order, None, (low, high))
