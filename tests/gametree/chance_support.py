"""Chance trees for the tests: a Hypothesis strategy, and an expectiminimax oracle written from the
definition (MAX takes the largest child, MIN the smallest, a chance node the sum of probability
times value, in exact fractions), not from grader.gametree.solver, so a test comparing the two
can fail."""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

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
def chance_trees(
    draw,
    low: int = 0,
    high: int = 10,
    max_depth: int = 4,
    budget: int = 40,
    uniform: bool = False,
):
    """A tree with chance levels and/or nodes written as chance nodes, leaves in [low, high];
    with ``uniform``, every chance node gives its children equal probabilities."""
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
        splits = SPLITS[width][:1] if uniform else SPLITS[width]
        chance = draw(st.sampled_from(splits)) if written else None
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


class Star1Run(NamedTuple):
    """What ``star1_search`` saw: the root's value, the nodes in the order entered, each chance
    child's window (node, child, alpha, beta, probability, S, P, lower, upper), each chance
    child's weighing (node, child, alpha, beta, contribution, S, P, lower, upper), each cutoff
    (node, bound, alpha, beta, value, deep, source, pruned, lower, upper) and what each chance
    node returned."""

    value: Fraction
    visited: list[str]
    windows: list[tuple]
    weighs: list[tuple]
    cutoffs: list[tuple]
    returns: dict[str, tuple]  # each chance node's (value, alpha, beta): its window, unchanged


def star1_search(tree: Tree, low: int, high: int) -> Star1Run:
    """Fail-soft alpha-beta at MAX and MIN nodes (ties cut: alpha >= beta), and Star1 at chance
    nodes, written from Hauk, Buro and Schaeffer's pseudo-code ("Rediscovering *-Minimax Search",
    CG 2004) for N equally likely outcomes, not from grader.gametree.solver:

        A = N (alpha - U) + U;  B = N (beta - L) + L;  vsum = 0
        for each outcome i:  AX = max(A, L);  BX = min(B, U)
            v = search(child i, AX, BX);  vsum += v
            if v <= A: fail low, return (vsum + U (N - 1 - i)) / N
            if v >= B: fail high, return (vsum + L (N - 1 - i)) / N
            A += U - v;  B += L - v
        return vsum / N

    The windows are the paper's incremental ones; the solver computes Ballard's closed form
    (A_i = (alpha - S - (1 - P - p) U) / p), so a test comparing the two can fail. A bound's
    source is the node that set it (a chance node for both of its children's), and a cutoff is
    deep when that source is neither the cut node nor its parent. Every chance node must be
    uniform (``chance_trees(uniform=True)``)."""
    inf = float("inf")
    lo, hi = Fraction(low), Fraction(high)
    run = Star1Run(Fraction(0), [], [], [], [], {})

    def cut(path, parent, kind, alpha, beta, value, source, rest, lower=None, upper=None):
        deep = source is not None and source not in (parent, path)
        run.cutoffs.append((path, kind, alpha, beta, value, deep, source, rest, lower, upper))

    def search(node: Node, path: str, depth: int, alpha, beta, a_src, b_src, parent) -> Fraction:
        run.visited.append(path)
        if node.is_leaf:
            return Fraction(str(node.value))
        paths = [f"{path}.{i}" if path else str(i) for i in range(len(node.children))]
        kind = role(tree, node, depth)
        if kind == "chance":
            value = star1(node, path, paths, depth, alpha, beta, a_src, b_src, parent)
            run.returns[path] = (value, alpha, beta)
            return value
        best = -inf if kind == "max" else inf
        for i, (child, cpath) in enumerate(zip(node.children, paths, strict=True)):
            v = search(child, cpath, depth + 1, alpha, beta, a_src, b_src, path)
            if kind == "max":
                best = max(best, v)
                if v > alpha:
                    alpha, a_src = v, path
            else:
                best = min(best, v)
                if v < beta:
                    beta, b_src = v, path
            if alpha >= beta:
                if i < len(paths) - 1:
                    source = b_src if kind == "max" else a_src
                    bound = "beta" if kind == "max" else "alpha"
                    cut(path, parent, bound, alpha, beta, best, source, tuple(paths[i + 1 :]))
                break
        return best

    def star1(node, path, paths, depth, alpha, beta, a_src, b_src, parent) -> Fraction:
        n = len(paths)
        big_a = n * (alpha - hi) + hi
        big_b = n * (beta - lo) + lo
        vsum = Fraction(0)
        for i, (child, cpath) in enumerate(zip(node.children, paths, strict=True)):
            ax, bx = max(big_a, lo), min(big_b, hi)
            run.windows.append(
                (path, cpath, alpha, beta, Fraction(1, n), vsum / n, Fraction(i, n), ax, bx)
            )
            v = search(child, cpath, depth + 1, ax, bx, path, path, path)
            vsum += v
            lower, upper = (vsum + lo * (n - 1 - i)) / n, (vsum + hi * (n - 1 - i)) / n
            mass = Fraction(i + 1, n)
            run.weighs.append((path, cpath, alpha, beta, v / n, vsum / n, mass, lower, upper))
            rest = tuple(paths[i + 1 :])
            if v <= big_a:
                if rest:
                    cut(path, parent, "alpha", alpha, beta, upper, a_src, rest, lower, upper)
                return upper
            if v >= big_b:
                if rest:
                    cut(path, parent, "beta", alpha, beta, lower, b_src, rest, lower, upper)
                return lower
            big_a += hi - v
            big_b += lo - v
        return vsum / n

    value = search(tree.root, "", 0, -inf, inf, None, None, None)
    return run._replace(value=value)
