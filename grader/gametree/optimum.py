"""The move-ordering optimum: the least number of leaves alpha-beta can evaluate over all orderings
of children, exactly, and one ordering that reaches it.

Why a dynamic program is exact: how a child changes its parent's window depends only on the child's
minimax value (fail-soft and fail-hard returns classify the same way against the window), so the
leaves a subtree costs depend only on the window it is searched with. For each (node, window) the
best order is found by a dynamic program over the subsets of children already searched.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from grader.gametree.solver import Conventions, minimax
from grader.gametree.tree import Path, Tree, Value, child_path

INF = math.inf
MAX_BRANCHING = 14  # subsets of children: 2**14 states per (node, window)
MAX_LEAVES = 400  # "a few hundred leaves": the bound on the work one request may ask for
# The dynamic program's size (see ``dp_size``) one request may ask for: 6^3 leaves (0.6 million),
# under 0.2 s of CPU at some 7 million states a second, twice per graded attempt; 14 x 14 leaves
# is 45 million, 3 to 7 s.
MAX_DP_SIZE = 1_500_000


def dp_size(tree: Tree) -> int:
    """An upper bound on the states the dynamic program visits, computed before it runs.

    A node with k children searched in W windows costs W x k x 2**k; its children are searched
    in at most W x k windows (the parent's bound moved by one of k values), and never in more
    than (distinct values + 1)**2 (alpha and beta are each a minimax value or infinite).
    """
    distinct = len({node.value for _, node in tree.walk() if node.is_leaf}) + 1
    cap = distinct * distinct
    total, stack = 0, [(tree.root, 1)]
    while stack:
        node, windows = stack.pop()
        k = len(node.children)
        if not k:
            total += windows
            continue
        total += windows * k * 2**k
        stack.extend((child, min(windows * k, cap)) for child in node.children)
    return total


def uniform_dp_size(branching: int, depth: int, distinct_values: int) -> int:
    """``dp_size`` of a uniform tree (every node ``branching`` children, leaves at ``depth``)
    with at most ``distinct_values`` leaf values: the generator's worst case."""
    cap = (min(distinct_values, branching**depth) + 1) ** 2
    total, windows = 0, 1
    for level in range(depth):
        total += branching**level * windows * branching * 2**branching
        windows = min(windows * branching, cap)
    return total + branching**depth * windows


@dataclass(frozen=True)
class Ordering:
    leaves: int  # the least number of leaves evaluated
    orders: dict[Path, list[int]]  # new child order (old indices) of each internal node
    tree: Tree  # the reordered tree, which reaches ``leaves`` under the same conventions


class Optimizer:
    """Least leaf counts of the subtrees of ``tree`` under ``conventions``, per search window."""

    def __init__(self, tree: Tree, conventions: Conventions | None = None) -> None:
        self.tree = tree
        self.check(tree)
        self.conventions = conventions or Conventions()
        self.explore = self.conventions.ties == "explore"
        exact = minimax(tree, self.conventions)
        self.value: dict[Path, Value] = {p: r.value for p, r in exact.nodes.items()}
        self.best = cache(self._best)

    @staticmethod
    def check(tree: Tree) -> None:
        """ValueError when the tree is beyond what the optimum is computed for (chance nodes:
        alpha-beta's ordering optimum is a MAX/MIN notion)."""
        if tree.has_chance:
            raise ValueError(
                "the ordering optimum is for trees of MAX and MIN nodes, not chance nodes"
            )
        if tree.leaf_count() > MAX_LEAVES:
            raise ValueError(
                f"the ordering optimum handles trees of at most {MAX_LEAVES} leaves; "
                f"this one has {tree.leaf_count()}"
            )
        for path, node in tree.walk():
            if len(node.children) > MAX_BRANCHING:
                raise ValueError(
                    f"the ordering optimum handles at most {MAX_BRANCHING} children a node; "
                    f"{path or 'the root'} has {len(node.children)}"
                )
        size = dp_size(tree)
        if size > MAX_DP_SIZE:
            raise ValueError(
                f"finding the best ordering of this tree is too much work ({size:,} states, at "
                f"most {MAX_DP_SIZE:,}): use fewer children a node or fewer distinct leaf values"
            )

    def _cuts(self, is_max: bool, t: Value, alpha: Value, beta: Value) -> bool:
        if is_max:
            return t > beta if self.explore else t >= beta
        return t < alpha if self.explore else t <= alpha

    def _best(self, path: Path, alpha: Value, beta: Value) -> tuple[int, tuple[int, ...]]:
        """(least leaves, the children in the order to search them) for ``path`` in (alpha, beta)."""
        node = self.tree.node(path)
        if node.is_leaf:
            return 1, ()
        is_max = self.tree.player(path) == "max"
        k = len(node.children)
        paths = [child_path(path, i) for i in range(k)]
        values = [self.value[p] for p in paths]
        full = (1 << k) - 1
        # cost[S]: least leaves to search exactly the children in S without a cutoff.
        cost: dict[int, int] = {0: 0}
        back: dict[int, int] = {}
        best_total: float = math.inf
        best_seq: tuple[int, ...] = ()
        for subset in range(full + 1):
            if subset not in cost:
                continue
            a, b = alpha, beta
            for i in range(k):
                if subset >> i & 1:
                    if is_max:
                        a = max(a, values[i])
                    else:
                        b = min(b, values[i])
            for i in range(k):
                if subset >> i & 1:
                    continue
                spent = cost[subset] + self.best(paths[i], a, b)[0]
                nxt = subset | 1 << i
                if self._cuts(is_max, values[i], a, b) or nxt == full:
                    if spent < best_total:
                        best_total, best_seq = spent, (*self._sequence(back, subset), i)
                elif spent < cost.get(nxt, math.inf):
                    cost[nxt], back[nxt] = spent, i
        return int(best_total), best_seq

    @staticmethod
    def _sequence(back: dict[int, int], subset: int) -> tuple[int, ...]:
        seq: list[int] = []
        while subset:
            i = back[subset]
            seq.append(i)
            subset &= ~(1 << i)
        return tuple(reversed(seq))

    def solve(self) -> Ordering:
        orders: dict[Path, list[int]] = {}

        def walk(path: Path, alpha: Value, beta: Value) -> None:
            node = self.tree.node(path)
            if node.is_leaf:
                return
            _, seq = self.best(path, alpha, beta)
            is_max = self.tree.player(path) == "max"
            for i in seq:
                walk(child_path(path, i), alpha, beta)
                t = self.value[child_path(path, i)]
                if is_max:
                    alpha = max(alpha, t)
                else:
                    beta = min(beta, t)
            rest = [i for i in range(len(node.children)) if i not in seq]
            visit = [*seq, *rest]
            orders[path] = visit[::-1] if self.conventions.order == "rtl" else visit

        leaves, _ = self.best("", -INF, INF)
        walk("", -INF, INF)
        return Ordering(leaves, orders, self.tree.reordered(orders))


def best_order(tree: Tree, conventions: Conventions | None = None) -> Ordering:
    """The least leaf count over all orderings of children, with one ordering reaching it."""
    return Optimizer(tree, conventions).solve()


def knuth_moore(branching: int, depth: int) -> int:
    """Leaves of the minimal tree of a uniform tree: b^ceil(d/2) + b^floor(d/2) - 1."""
    return branching ** math.ceil(depth / 2) + branching ** (depth // 2) - 1
