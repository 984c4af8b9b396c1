"""The ordering optimum at its limits (exactly 400 leaves, exactly 14 children) and Knuth and
Moore's count. Ties at the bound are explicit examples of the brute-force property in
test_properties.py.

Judged equivalent (by hand, and no difference from the brute force over thousands of random
trees under every convention): in ``Optimizer._best``, ``continue`` changed to ``break`` when a
subset has no cost. A subset is missing only when one of its children cut; the children
after it in the enumeration can be searched first only to tighten the other side of the window,
and a child that fails low (or high) proves it with one bound alone, so no cheaper order is lost.
"""

from __future__ import annotations

import pytest

from grader.gametree import Conventions, Tree, best_order, knuth_moore
from grader.gametree.optimum import MAX_BRANCHING, MAX_LEAVES, Optimizer
from tests.gametree._helpers import brute_force_least_leaves


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
