"""Edge cases: fail-hard values, the refused explore+hard combination, CS188 files, answer types."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.gametree import (
    KINDS,
    Conventions,
    GenerationError,
    GeneratorParams,
    Tree,
    TreeFormatError,
    UngradableAnswer,
    best_order,
    generate,
    grade,
    minimax,
    solve,
)
from tests.gametree._helpers import (
    brute_force_least_leaves,
    conventions,
    ordering_count,
    trees,
    true_minimax,
)
from tests.gametree.test_formats import LECTURE6_TEST


def test_explore_with_fail_hard_is_refused():
    # Under fail-hard a node that fails returns exactly the bound, which CS188's strict rule never
    # counts as outside the window: cutoffs would only follow leaves, so the pair is refused.
    with pytest.raises(ValueError, match="ties=explore needs values=soft"):
        Conventions("explore", "hard")


# minimax() is exact under values=hard: the clamping belongs to alpha-beta's windows only.
def test_minimax_values_are_exact_under_fail_hard():
    # MAX root over one MIN node over [3, MAX(1, 5)]. The MAX node's minimax value is 5
    # ("Plain minimax: every node visited, every value exact", solver.minimax's docstring).
    tree = Tree.from_nested([[3, [1, 5]]])
    assert minimax(tree, Conventions(values="hard")).nodes["0.1"].value == 5


def test_minimax_exercise_key_under_fail_hard():
    tree = Tree.from_nested([[3, [1, 5]]])
    right = {"values": {"": 3, "0": 3, "0.1": 5}}
    assert KINDS["minimax"].key(tree, Conventions(values="hard")) == right
    assert grade("minimax", tree, Conventions(values="hard"), right).score == 1.0


@settings(max_examples=60, deadline=None)
@given(trees(), conventions)
def test_minimax_every_node_exact(tree, conv):
    exact = true_minimax(tree)
    assert {p: r.value for p, r in minimax(tree, conv).nodes.items()} == exact


# The ordering optimum reads minimax values, so it is exact under values=hard too.
def test_optimum_under_prune_hard_matches_brute_force():
    # MAX over MIN over [MAX(0,-1,-3), MAX(3)]. Either order of the MIN node's children costs
    # 3 + 1 leaves (C first: 3 leaves, beta 0, then D's 3 >= 0 cuts; D first: D = 3, then C
    # needs all three leaves, none reaching beta 3).
    tree = Tree.from_nested([[[0, -1, -3], [3]]])
    conv = Conventions(values="hard")
    assert brute_force_least_leaves(tree, conv) == 4
    ordering = best_order(tree, conv)
    assert ordering.leaves == 4
    assert len(solve(ordering.tree, conv).leaf_order) == ordering.leaves


@settings(max_examples=60, deadline=None)
@given(trees(max_depth=3, max_branching=3, budget=14), st.sampled_from(["ltr", "rtl"]))
def test_optimum_matches_brute_force_under_prune_hard(tree, order):
    if tree.leaf_count() > 8 or ordering_count(tree) > 1500:
        return
    conv = Conventions("prune", "hard", order)
    ordering = best_order(tree, conv)
    assert ordering.leaves == brute_force_least_leaves(tree, conv)
    assert len(solve(ordering.tree, conv).leaf_order) == ordering.leaves


# CS188 export keeps every digit of a leaf value.
def test_cs188_round_trip_keeps_fractional_leaves():
    tree = Tree.from_nested([[0.25, 1], [2, -3.75]])
    assert Tree.from_cs188(tree.to_cs188()) == tree


# CS188 import refuses non-finite evaluations and a num_agents that is not a number.
@pytest.mark.parametrize("bad", ["nan", "inf", "-inf"])
def test_cs188_non_finite_evaluation_is_refused(bad):
    with pytest.raises(TreeFormatError, match=bad):
        Tree.from_cs188(LECTURE6_TEST.replace("A 3.0", f"A {bad}"))


def test_cs188_bad_num_agents_is_a_tree_format_error():
    with pytest.raises(TreeFormatError, match="two"):
        Tree.from_cs188(LECTURE6_TEST.replace('num_agents: "2"', 'num_agents: "two"'))


# best-order permutations are lists of child indices, nothing else.
@pytest.mark.parametrize("order", [[0, 1.0, 2], ["a", 0, 1], [True, False, 2], [0, None, 1]])
def test_best_order_non_integer_permutations_are_ungradable(order):
    tree = Tree.from_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    with pytest.raises(UngradableAnswer):
        grade("best-order", tree, Conventions(), {"order": {"": order}})


# best-order has no misconception variants, so it cannot be discriminating.
def test_discriminating_best_order_is_refused_clearly():
    with pytest.raises(GenerationError):
        generate(GeneratorParams(depth=2, kind="best-order", discriminating=True), 1)


def test_a_grade_carries_its_kinds_reference_search():
    tree = Tree.from_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    graded = grade("prune", tree, Conventions(), {"pruned": [], "value": 3})
    assert graded.search is not None and graded.search.pruned == ("1.1", "1.2")
    plain = grade("minimax", tree, Conventions(), {"values": {"": 3, "0": 3, "1": 2, "2": 2}})
    assert plain.score == 1.0 and plain.search.pruned == () and len(plain.search.leaf_order) == 9


def test_grading_the_same_exercise_again_gives_the_same_grade():
    # The reference and variant answers are cached per (kind, tree, conventions); a cached key
    # must not be changed by what a caller does with the grade it was given.
    tree = Tree.from_nested([[[2, 3], [5, 9]], [[0, 1], [7, 5]]])
    first = grade("values", tree, Conventions(), {"values": {"": 3}})
    first.key["values"][""] = 99
    second = grade("values", Tree.from_nested(tree.to_nested()), Conventions(), {"values": {"": 3}})
    assert second.key["values"][""] == 3
    assert second.to_dict() == first.to_dict()


def _lcs_by_table(a, b):
    # The textbook dynamic program, O(len(a) * len(b)).
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 15), unique=True), st.lists(st.integers(0, 15), unique=True))
def test_leaf_order_lcs_matches_the_textbook_table(a, b):
    from grader.gametree.kinds import _lcs_items

    items = _lcs_items(tuple(a), tuple(b))
    assert len(items) == _lcs_by_table(a, b)
    # The items are a common subsequence: in the same order in both.
    assert [x for x in a if x in items] == [y for y in b if y in items]


@settings(max_examples=100, deadline=None)
@given(trees(), st.data())
def test_pruned_marks_close_over_subtrees_and_full_families(tree, data):
    from grader.gametree.kinds import normalize_pruned

    paths = tree.paths()
    marked = set(data.draw(st.lists(st.sampled_from(paths), max_size=6)))
    closed = normalize_pruned(tree, marked)
    # By the definition: every node under a marked one is marked ...
    below = {p for p in paths if any(p == m or p.startswith(m + ".") or m == "" for m in marked)}
    assert below <= closed
    # ... and a node is marked exactly when it was, or lies below, or all its children are.
    for path in paths:
        node = tree.node(path)
        children = [f"{path}.{i}" if path else str(i) for i in range(len(node.children))]
        expected = path in below or (bool(children) and all(c in closed for c in children))
        assert (path in closed) == expected, path


def test_the_ordering_optimum_refuses_trees_beyond_a_few_hundred_leaves():
    tree = Tree.from_nested([[[i, i + 1] for i in range(0, 420, 2)]])
    with pytest.raises(ValueError, match="at most 400 leaves"):
        best_order(tree)
    with pytest.raises(ValueError, match="at most 400 leaves"):
        grade("best-order", tree, Conventions(), {"order": {}})
