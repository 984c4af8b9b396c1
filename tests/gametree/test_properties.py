"""Hypothesis properties of the solver, the ordering optimum, the variants and grading, over random
n-ary trees, random player sequences and every convention (ties x values x order)."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from grader.gametree import (
    KINDS,
    Conventions,
    GenerationError,
    GeneratorParams,
    Node,
    Tree,
    best_order,
    generate,
    grade,
    is_discriminating,
    knuth_moore,
    minimax,
    solve,
    variants_for,
)
from tests.gametree._helpers import (
    all_paths,
    brute_force_least_leaves,
    conventions,
    int_path,
    nodes,
    ordering_count,
    players,
    trees,
    true_minimax,
)

MODEST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GRADED_KINDS = ("prune", "values", "bounds", "leaf-order", "minimax")


@MODEST
@given(trees(), conventions)
def test_alpha_beta_root_value_is_the_minimax_value(tree, conv):
    exact = true_minimax(tree)[""]
    assert solve(tree, conv).value == exact
    assert minimax(tree, conv).value == exact


@MODEST
@given(trees(), conventions)
def test_best_move_leads_to_a_child_with_the_root_value(tree, conv):
    result = solve(tree, conv)
    if tree.root.is_leaf:
        assert result.best_move is None
        return
    exact = true_minimax(tree)
    assert exact[str(result.best_move)] == exact[""]


@MODEST
@given(trees(), conventions)
def test_leaf_order_follows_the_child_order(tree, conv):
    order = [int_path(p) for p in solve(tree, conv).leaf_order]
    # ltr: leaf paths increase lexicographically as int tuples; rtl: they decrease.
    expected = sorted(order, reverse=conv.order == "rtl")
    assert order == expected
    assert len(set(order)) == len(order)


@MODEST
@given(trees(), conventions)
def test_visited_and_pruned_partition_the_tree(tree, conv):
    result = solve(tree, conv)
    everything = all_paths(tree)
    visited, pruned_all = set(result.visited), set(result.pruned_all)
    assert len(result.visited) == len(visited)  # each node entered once
    assert visited | pruned_all == everything
    assert not visited & pruned_all
    assert "" in visited
    # every evaluated leaf was visited, and the visited leaves are exactly the evaluated ones
    leaves = set(tree.leaves())
    assert set(result.leaf_order) == visited & leaves
    # a node is visited only if its parent is
    for path in visited - {""}:
        assert path.rpartition(".")[0] in visited
    # pruned roots: the pruned children of visited nodes; their subtrees make up pruned_all
    roots = {p for p in pruned_all if p.rpartition(".")[0] in visited}
    assert set(result.pruned) == roots
    assert {q for r in roots for q in tree.subtree(r)} == pruned_all
    # both are listed in label (breadth-first) order
    label_order = tree.paths()
    assert list(result.pruned_all) == [p for p in label_order if p in pruned_all]
    assert list(result.pruned) == [p for p in label_order if p in roots]
    # every cutoff's pruned children are pruned roots, and vice versa
    assert {p for c in result.cutoffs for p in c.pruned} == roots
    # the node table holds exactly the visited nodes
    assert set(result.nodes) == visited


@MODEST
@given(trees(), conventions)
@example(Tree.from_nested([[3, 5], [3, 1], [2, 8]]), Conventions())  # alpha = beta cuts
@example(Tree.from_nested([[3, 5], [3, 1], [2, 8]]), Conventions(ties="explore"))  # ... not here
@example(Tree.from_nested([[5, 7], [5, 4]], "min,max"), Conventions(values="hard"))
def test_cutoff_kinds_and_bounds(tree, conv):
    result = solve(tree, conv)
    for c in result.cutoffs:
        is_max = result.player(c.path) == "max"
        assert c.kind == ("beta" if is_max else "alpha")
        if conv.ties == "prune":
            assert c.alpha >= c.beta
        elif is_max:
            assert c.value > c.beta
        else:
            assert c.value < c.alpha
        assert c.pruned and all(p.rpartition(".")[0] == c.path for p in c.pruned)


@MODEST
@given(nodes(values=st.integers(-1000, 1000)), players, st.sampled_from(["ltr", "rtl"]))
def test_distinct_values_make_the_tie_rules_agree_when_fail_soft(root, players, order):
    # With fail-soft, every returned value is some leaf's value of the subtree searched, and alpha
    # and beta come from disjoint subtrees, so alpha = beta needs two equal leaves.
    leaves = [n.value for n in _leaves(root)]
    assume(len(set(leaves)) == len(leaves))
    tree = Tree(root, players)
    a = solve(tree, Conventions(ties="prune", values="soft", order=order))
    b = solve(tree, Conventions(ties="explore", values="soft", order=order))
    assert a.leaf_order == b.leaf_order
    assert a.pruned_all == b.pruned_all


@MODEST
@given(nodes(values=st.just(0)), players, conventions)
def test_all_leaves_equal_explore_evaluates_every_leaf(root, players, conv):
    root = _with_all_leaves(root, 2)
    tree = Tree(root, players)
    result = solve(tree, Conventions("explore", "soft", conv.order))
    assert sorted(result.leaf_order) == sorted(tree.leaves())
    assert result.pruned == ()


def _leaves(node: Node):
    if node.is_leaf:
        yield node
    for c in node.children:
        yield from _leaves(c)


def _with_all_leaves(node: Node, value) -> Node:
    if node.is_leaf:
        return Node(value)
    return Node(None, tuple(_with_all_leaves(c, value) for c in node.children))


# -- the ordering optimum ---------------------------------------------------------------------


@MODEST
@given(trees(max_depth=4, max_branching=3, budget=30), conventions)
def test_optimum_is_never_above_the_given_ordering_and_is_reached(tree, conv):
    ordering = best_order(tree, conv)
    assert ordering.leaves <= len(solve(tree, conv).leaf_order)
    assert len(solve(ordering.tree, conv).leaf_order) == ordering.leaves
    assert ordering.tree == tree.reordered(ordering.orders)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 3).flatmap(lambda b: st.tuples(st.just(b), st.integers(1, 4 if b <= 2 else 3))),
    st.sampled_from([("max", "min"), ("min", "max")]),
    conventions,
    st.randoms(use_true_random=False),
)
def test_optimum_on_uniform_trees_with_distinct_values_is_knuth_moore(shape, players, conv, rnd):
    # Knuth & Moore (1975): the minimal tree of a uniform b-ary tree of depth d has
    # b^ceil(d/2) + b^floor(d/2) - 1 leaves, and the best ordering reaches it (alternating players).
    b, d = shape
    values = rnd.sample(range(-500, 500), b**d)
    level = values
    for _ in range(d):
        level = [level[i : i + b] for i in range(0, len(level), b)]
    tree = Tree.from_nested(level[0], players)
    assert best_order(tree, conv).leaves == knuth_moore(b, d)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(trees(max_depth=3, max_branching=3, budget=14), conventions)
# Ties at the bound, where `>=` against `>` decides a cut: a MAX node whose value equals beta
# under prune, a MIN node whose value equals alpha under explore (which must not cut).
@example(Tree.from_nested([3, [[0]], [0, [3, 0]]], "min,max"), Conventions())
@example(Tree.from_nested([[[0, 3], 3, [3, 3]], [[0, 3]]], "max,min"), Conventions(ties="explore"))
@example(Tree.from_nested([[1, 0], [0, 3, 1]], "min,max"), Conventions())
def test_optimum_matches_brute_force_over_all_orderings(tree, conv):
    # The real proof of exactness: try every ordering of every node's children.
    assume(tree.leaf_count() <= 8 and ordering_count(tree) <= 1500)
    assert best_order(tree, conv).leaves == brute_force_least_leaves(tree, conv)


# -- grading and the misconception variants ---------------------------------------------------


@MODEST
@given(trees(max_depth=4, budget=30), conventions, st.sampled_from(GRADED_KINDS))
def test_the_key_scores_full_marks(tree, conv, kind):
    key = KINDS[kind].key(tree, conv)
    result = grade(kind, tree, conv, key)
    assert result.score == 1.0
    assert all(v == 1.0 for v in result.parts.values())
    assert result.diagnosis is None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    st.integers(0, 10**6),
    st.sampled_from(["prune", "bounds", "leaf-order", "minimax", "values"]),
    conventions,
    st.sampled_from([(-3, 3), (-9, 9)]),
    st.sampled_from([("max", "min"), ("max", "min", "min")]),
)
def test_each_variant_on_a_discriminating_tree_is_diagnosed(seed, kind, conv, values, players):
    # Discriminating trees are rare among random ones, so the seeded generator finds them; for
    # kind values under fail-hard none exist (clamped values make variants coincide).
    assume(not (conv.values == "hard" and kind == "values"))
    params = GeneratorParams(
        depth=4,
        branching=(2, 3),
        values=values,
        players=players,
        conventions=conv,
        discriminating=True,
        kind=kind,
        max_tries=60,
    )
    try:
        tree = generate(params, seed)
    except GenerationError:
        assume(False)
    assert is_discriminating(tree, conv, kind)
    exercise = KINDS[kind]
    key = exercise.key(tree, conv)
    codes = []
    for variant in variants_for(kind, tree, conv):
        answer = exercise.to_answer(exercise.project(variant.run(tree, conv), variant))
        assert answer != key
        result = grade(kind, tree, conv, answer)
        assert result.diagnosis == variant.code, (variant.code, answer)
        assert result.diagnosis_text in result.feedback
        assert result.score < 1.0
        codes.append(variant.code)
    assert codes  # at least one variant applies to every graded kind


@MODEST
@given(trees(max_depth=4, budget=30), conventions, st.sampled_from(GRADED_KINDS))
def test_variant_answers_round_trip_through_grading(tree, conv, kind):
    # Whatever a variant answers is a well-formed answer: gradable, scored within [0, 1].
    exercise = KINDS[kind]
    for variant in variants_for(kind, tree, conv):
        answer = exercise.to_answer(exercise.project(variant.run(tree, conv), variant))
        result = grade(kind, tree, conv, answer)
        assert 0.0 <= result.score <= 1.0
