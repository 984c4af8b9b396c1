"""The ordering optimum at its limits (exactly 400 leaves, exactly 14 children) and Knuth and
Moore's count. Ties at the bound are explicit examples of the brute-force property in
test_properties.py.

Judged equivalent (by hand, and no difference from the brute force over thousands of random
trees under every convention): in ``Optimizer._best``, ``continue`` changed to ``break`` when a
subset has no cost. A subset is missing only when one of its children cut; the children
after it in the enumeration can be searched first only to tighten the other side of the window,
and a child that fails low (or high) proves it with one bound alone, so no cheaper order is lost.

Also equivalent (mutmut names of 2026-11-22):
- ``Optimizer.__init__`` 11 and 13, ``minimax(tree)`` without the conventions: minimax without
  pruning gives the exact values whatever the tie rule, fail-soft or fail-hard and order, and
  every caller (kinds.py) hands the optimizer a tree already cut at the depth limit.
- ``_best`` 27, ``best_seq`` starting as None: the first order that ends (a cut or all children)
  always beats an infinite best, so it is overwritten before it is read.
- ``_best`` 30, ``range(full + 2)``: the extra subset ``1 << k`` is never in ``cost``, so skipped.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from grader.gametree import Conventions, Tree, best_order, knuth_moore
from grader.gametree.optimum import (
    MAX_BRANCHING,
    MAX_DP_SIZE,
    MAX_LEAVES,
    Optimizer,
    dp_size,
    uniform_dp_size,
)
from grader.gametree.tree import Path, Value
from tests.gametree._helpers import brute_force_least_leaves, conventions, trees


def _leaves(count: int) -> Tree:
    """A tree of ``count`` (400 or 401) leaves, all 0 so the dynamic program stays small: ten
    nodes of ten nodes of four leaves, one of them with a fifth leaf for 401."""
    groups = [[0] * 4 for _ in range(100)]
    groups[0] += [0] * (count - 400)
    return Tree.from_nested([groups[i : i + 10] for i in range(0, 100, 10)])


def test_exactly_400_leaves_is_accepted_and_401_refused():
    assert MAX_LEAVES == 400
    Optimizer.check(_leaves(400))
    with pytest.raises(ValueError, match="at most 400 leaves; this one has 401"):
        Optimizer.check(_leaves(401))


def test_exactly_14_children_is_accepted_and_15_refused():
    assert MAX_BRANCHING == 14
    fourteen = Tree.from_nested([list(range(14))], "min,max")
    assert best_order(fourteen).leaves == 14  # a MAX node alone under the root cannot be cut
    wide = Tree.from_nested([[1, 2], list(range(15))])
    with pytest.raises(ValueError, match="at most 14 children a node; 1 has 15"):
        best_order(wide)
    with pytest.raises(ValueError, match="the root has 15"):
        Optimizer.check(Tree.from_nested(list(range(15))))


def test_a_wide_root_of_min_nodes_costs_one_leaf_each_after_the_first():
    # MAX over 14 MIN nodes [i, 20]: search [13, 20] fully (2 leaves), then each other MIN
    # node's i first cuts it (i <= 13): 2 + 13 = 15, and the ordering reaches it.
    tree = Tree.from_nested([[i, 20] for i in range(14)])
    ordering = best_order(tree)
    assert ordering.leaves == 15
    assert ordering.orders[""][0] == 13
    assert all(ordering.orders[str(i)] == [0, 1] for i in range(13))


@pytest.mark.parametrize(
    ("b", "d", "leaves"), [(2, 1, 2), (3, 2, 5), (2, 3, 5), (3, 3, 11), (4, 4, 31), (1, 5, 1)]
)
def test_knuth_moore(b, d, leaves):
    assert knuth_moore(b, d) == leaves


@pytest.mark.parametrize(
    ("nested", "players", "conv"),
    [
        ([3, [[0]], [0, [3, 0]]], "min,max", Conventions()),
        ([[[0, 3], 3, [3, 3]], [[0, 3]]], "max,min", Conventions(ties="explore")),
        ([[1, 0], [0, 3, 1]], "min,max", Conventions(order="rtl")),
        ([[2, [2, 5]], [2, 2]], "max,min", Conventions(values="hard")),
    ],
)
def test_ties_at_the_bound_match_brute_force(nested, players, conv):
    tree = Tree.from_nested(nested, players)
    ordering = best_order(tree, conv)
    assert ordering.leaves == brute_force_least_leaves(tree, conv)
    assert ordering.tree == tree.reordered(ordering.orders)


# -- the dynamic program's size, bounded before it runs ----------------------------------------


def test_dp_size_by_hand():
    # [[1, 2], [3]]: 3 distinct values + 1, so at most 4 x 4 = 16 windows a node. The root (two
    # children, one window) costs 1 x 2 x 2**2 = 8; its first child, searched in 2 windows,
    # costs 2 x 2 x 4 = 16 and its two leaves 4 windows each (8); the second child 2 x 1 x 2 = 4
    # and its leaf 2: 38 in all.
    assert dp_size(Tree.from_nested([[1, 2], [3]])) == 38
    # A single leaf under the root: 1 x 1 x 2 + 1.
    assert dp_size(Tree.from_nested([7])) == 3


@pytest.mark.parametrize(
    ("b", "d", "distinct", "size"),
    [
        # 2 x 2**2 = 8 at the root, then 2 leaves in 2 windows each.
        (2, 1, 2, 12),
        (2, 1, 100, 12),  # more values than leaves: only 2 can be distinct
        # One distinct value caps the windows at (1 + 1)**2 = 4: 3 x 8 = 24 at the root, 3 nodes
        # in 3 windows (216), 9 nodes in min(9, 4) = 4 windows (864), 27 leaves in 4 (108).
        (3, 3, 1, 1212),
    ],
)
def test_uniform_dp_size_by_hand(b, d, distinct, size):
    assert uniform_dp_size(b, d, distinct) == size


def _uniform(branching: int, depth: int, distinct: int) -> Tree:
    """A uniform tree whose leaves cycle through ``distinct`` values (all of them when there are
    enough leaves)."""
    values = iter(itertools.cycle(range(distinct)))

    def build(level: int) -> object:
        if level == depth:
            return next(values)
        return [build(level + 1) for _ in range(branching)]

    return Tree.from_nested(build(0))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 300))
@example(2, 2, 4)  # exactly as many values as leaves
@example(2, 2, 5)  # one more: only 4 can be distinct
@example(3, 4, 2)  # the cap on windows binds from the third level down
@example(4, 5, 1000)  # 1,024 leaves, all distinct: the cap (1,025**2) never binds
def test_uniform_dp_size_is_dp_size_of_the_uniform_tree(b, d, distinct):
    assert uniform_dp_size(b, d, distinct) == dp_size(_uniform(b, d, distinct))


def test_exactly_the_largest_dynamic_program_is_accepted():
    # Nine MIN nodes (six of 11 leaves, three of 10) over the values 0..3: exactly MAX_DP_SIZE
    # states; one more level above the root (a MAX node of one child) adds 2.
    values = itertools.cycle(range(4))
    nested = [[next(values) for _ in range(11 if i < 6 else 10)] for i in range(9)]
    at_limit = Tree.from_nested(nested)
    assert dp_size(at_limit) == MAX_DP_SIZE == 1_500_000
    Optimizer.check(at_limit)
    over = Tree.from_nested([nested], "min,max")
    assert dp_size(over) == 1_500_002
    with pytest.raises(ValueError) as refused:
        Optimizer.check(over)
    assert str(refused.value) == (
        "finding the best ordering of this tree is too much work (1,500,002 states, at most "
        "1,500,000): use fewer children a node or fewer distinct leaf values"
    )


def test_among_equally_cheap_orders_the_first_found_is_kept():
    # Three identical MIN nodes: every order of the root costs 2 + 1 + 1 leaves; the one found
    # first (left to right) is kept, so a key never reorders what gains nothing by moving.
    ordering = best_order(Tree.from_nested([[1, 2], [1, 2], [1, 2]]))
    assert ordering.leaves == 4
    assert ordering.orders == {"": [0, 1, 2], "0": [0, 1], "1": [0, 1], "2": [0, 1]}


class _Counting(Optimizer):
    """The optimizer, counting the states its dynamic program visits: for each (node, window)
    searched, k x 2**k for a node of k children, 1 for a leaf."""

    def __init__(self, tree: Tree, conventions: Conventions) -> None:
        self.visited = 0
        super().__init__(tree, conventions)

    def _best(self, path: Path, alpha: Value, beta: Value) -> tuple[int, tuple[int, ...]]:
        k = len(self.tree.node(path).children)
        self.visited += k * 2**k if k else 1
        return super()._best(path, alpha, beta)


@settings(max_examples=60, deadline=None)
@given(trees(max_depth=4, max_branching=4, budget=30), conventions)
@example(Tree.from_nested([[3, 5], [3, 1], [2, 8]]), Conventions())
@example(Tree.from_nested([[[1, 2], [3, 4]], [[5, 6], [7, 8]]]), Conventions(ties="explore"))
def test_dp_size_bounds_the_states_the_dynamic_program_visits(tree, conv):
    counting = _Counting(tree, conv)
    counting.solve()
    assert 0 < counting.visited <= dp_size(tree)


# -- variants_for (grader/gametree/variants.py) ----------------------------------------------


def test_the_tie_rule_variant_is_offered_only_where_ties_can_happen():
    from grader.gametree.variants import _swap_players, variants_for

    distinct = Tree.from_nested([[3, 5], [2, 8]])
    tied = Tree.from_nested([[3, 5], [3, 8]])

    def codes(tree, conv):
        return [v.code for v in variants_for("prune", tree, conv)]

    assert "ties-flipped" not in codes(distinct, Conventions())
    # Under prune with fail-hard, flipping the tie rule would pair explore with hard: refused.
    assert "ties-flipped" not in codes(tied, Conventions(values="hard"))
    assert "ties-flipped" in codes(tied, Conventions())
    assert _swap_players(Tree.from_nested([1, 2], "max,min,min")) == ("min", "max", "max")
