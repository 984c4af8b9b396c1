"""Expectimax, expectiminimax and Star1 against an independent brute force.

Star1 (Ballard 1983; the formulas as in Hauk, Buro and Schaeffer, "Rediscovering *-Minimax
Search", CG 2004) is correct when what it prunes cannot matter: every subtree it prunes can hold
any value in [L, U] and the root's value stays the same. The root value of every values, ties and
order convention equals the expectiminimax value computed by the definition
(``chance_support.expectiminimax``). The root's value is monotone in every leaf, so setting every
pruned subtree to L at once, and to U at once, covers every value in between.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.gametree import Conventions, Tree, TreeFormatError, minimax, solve
from grader.gametree.variants import CHANCE_VARIANTS
from tests.gametree._helpers import ALL_CONVENTIONS
from tests.gametree.chance_support import (
    chance_trees,
    expectiminimax,
    replaced,
    star1_search,
    with_bounds,
)

LOW, HIGH = 0, 10
INF = float("inf")


@settings(max_examples=300, deadline=None)
@given(tree=chance_trees(LOW, HIGH), conventions=st.sampled_from(ALL_CONVENTIONS))
def test_star1_prunes_only_what_cannot_change_the_root(tree: Tree, conventions: Conventions):
    rules = with_bounds(conventions, LOW, HIGH)
    result = solve(tree, rules)
    exact = expectiminimax(tree)[""]
    assert result.value == exact
    searched = any(tree.player(p) == "chance" and not tree.node(p).is_leaf for p in result.nodes)
    assert result.star1 == searched and result.note is None
    if not result.pruned:
        return
    for leaf in (LOW, HIGH):  # every pruned subtree at once at either end of [L, U]
        assert expectiminimax(replaced(tree, set(result.pruned), leaf))[""] == exact
    for path in result.pruned:  # and each alone
        for leaf in (LOW, HIGH):
            assert expectiminimax(replaced(tree, {path}, leaf))[""] == exact, path


@settings(max_examples=200, deadline=None)
@given(tree=chance_trees(LOW, HIGH), conventions=st.sampled_from(ALL_CONVENTIONS))
def test_plain_expectiminimax_gives_every_node_its_value(tree: Tree, conventions: Conventions):
    result = minimax(tree, with_bounds(conventions, LOW, HIGH))
    assert {p: r.value for p, r in result.nodes.items()} == expectiminimax(tree)
    assert not result.pruned_all and not result.cutoffs


@settings(max_examples=200, deadline=None)
@given(
    tree=chance_trees(LOW, HIGH),
    conventions=st.sampled_from(ALL_CONVENTIONS),
    bounds=st.sampled_from([None, ("-inf", HIGH), (LOW, "inf"), ("-inf", "inf")]),
)
def test_without_both_bounds_nothing_is_cut_below_a_chance_node(
    tree: Tree, conventions: Conventions, bounds: tuple | None
):
    rules = conventions if bounds is None else with_bounds(conventions, *bounds)
    result = solve(tree, rules)
    assert result.value == expectiminimax(tree)[""]
    chance = {p for p in result.nodes if not tree.node(p).is_leaf and tree.player(p) == "chance"}
    assert not any(c.path in chance for c in result.cutoffs)
    assert not any(p.rpartition(".")[0] in chance for p in result.pruned)
    for step in result.trace:  # each child of a chance node starts with the full window
        if step.kind == "enter" and step.path and step.path.rpartition(".")[0] in chance:
            assert (step.alpha, step.beta) == (float("-inf"), float("inf"))
    for step in result.trace:  # each weighing's interval: unbounded until every child is seen
        if step.kind == "weigh":
            whole = [step.total] * 2
            assert [step.lower, step.upper] == (whole if step.mass == 1 else [-INF, INF])
    if chance:
        assert result.note is not None and "cuts nothing below a chance node" in result.note
    assert not result.star1


# Bounds [L, U] of either sign, so that no term times L or U vanishes (most worked examples
# here have L = 0, where a window's "- (1 - P - p) L" and "+ (1 - P - p) L" agree).
SIGNED_BOUNDS = [(-6, 9), (-9, -2), (3, 8), (-4, 0)]


@st.composite
def bounded_uniform_trees(draw):
    low, high = draw(st.sampled_from(SIGNED_BOUNDS))
    return low, high, draw(chance_trees(low, high, uniform=True))


@settings(max_examples=300, deadline=None)
@given(case=bounded_uniform_trees())
def test_star1_follows_the_published_algorithm_step_by_step(case: tuple[int, int, Tree]):
    """Every window, weighing and cutoff, against Hauk, Buro and Schaeffer's Star1
    (``chance_support.star1_search``), on trees whose bounds [L, U] have either sign."""
    low, high, tree = case
    result = solve(tree, Conventions(bounds=(low, high)))
    reference = star1_search(tree, low, high)
    assert result.value == reference.value == expectiminimax(tree)[""]
    assert list(result.visited) == reference.visited
    steps = [s for s in result.trace if s.kind in ("window", "weigh")]
    windows = [
        (s.path, s.child, s.alpha, s.beta, s.probability, s.total, s.mass, s.lower, s.upper)
        for s in steps
        if s.kind == "window"
    ]
    weighs = [
        (s.path, s.child, s.alpha, s.beta, s.value, s.total, s.mass, s.lower, s.upper)
        for s in steps
        if s.kind == "weigh"
    ]
    assert windows == reference.windows
    assert weighs == reference.weighs
    cutoffs = [
        (c.path, c.kind, c.alpha, c.beta, c.value, c.deep, c.source, c.pruned, c.lower, c.upper)
        for c in result.cutoffs
    ]
    assert sorted(cutoffs, key=str) == sorted(reference.cutoffs, key=str)
    returns = {s.path: (s.value, s.alpha, s.beta) for s in result.trace if s.kind == "return"}
    for path, returned in reference.returns.items():  # a chance node's window is its own
        assert returns[path] == returned
        assert tuple(result.nodes[path]) == returned
    for c in result.cutoffs:  # the cutoff's own step says the same
        step = result.trace[c.step]
        assert (step.kind, step.path, step.pruned, step.value) == (
            "cutoff",
            c.path,
            c.pruned,
            c.value,
        )
        assert (step.alpha, step.beta) == (c.alpha, c.beta)
        if c.chance:
            assert (step.bound, step.lower, step.upper) == (c.kind, c.lower, c.upper)


# A worked example with L < 0, computed by hand from the paper's pseudo-code: A = MAX over two
# chance nodes of two equally likely leaves, bounds [L, U] = [-4, 6]. B = (5 + 1) / 2 = 3, so
# alpha = 3 at A. At C: A_0 = 2 (3 - 6) + 6 = 0 and B_0 = 2 (inf + 4) - 4 = inf, so its first
# leaf's window is (max(0, -4), min(inf, 6)) = (0, 6). That leaf, -2, is at or below A_0 = 0:
# C fails low at (-2 + 6) / 2 = 2 <= 3, its interval [(-2 - 4) / 2, 2] = [-3, 2], and its
# second leaf is pruned. There beta is +inf, so B_0 is +inf whatever L is; the second tree
# makes it finite: A = MIN over chance nodes, beta = (-3 + 1) / 2 = -1 from B; at C:
# B_0 = 2 (-1 + 4) - 4 = 2, the window (max(-inf, -4), min(2, 6)) = (-4, 2) (with the L term's
# sign turned, B_0 would be -6); its first leaf 3 >= 2 fails high at (3 - 4) / 2 = -1/2.
def test_star1_worked_example_with_a_negative_lower_bound():
    tree = Tree.from_nested([[5, 1], [-2, 6]], "max,chance")
    result = solve(tree, Conventions(bounds=(-4, 6)))
    assert result.value == 3 and result.pruned == ("1.1",)
    windows = [(s.child, s.lower, s.upper) for s in result.trace if s.kind == "window"]
    assert windows == [("0.0", -4, 6), ("0.1", -4, 6), ("1.0", 0, 6)]
    (cut,) = result.cutoffs
    assert (cut.path, cut.kind, cut.value, cut.lower, cut.upper) == ("1", "alpha", 2, -3, 2)

    tree = Tree.from_nested([[-3, 1], [3, -4]], "min,chance")
    result = solve(tree, Conventions(bounds=(-4, 6)))
    assert result.value == -1 and result.pruned == ("1.1",)
    windows = [(s.child, s.lower, s.upper) for s in result.trace if s.kind == "window"]
    assert windows[2] == ("1.0", -4, 2)
    (cut,) = result.cutoffs
    assert (cut.path, cut.kind, cut.value, cut.lower, cut.upper) == (
        "1",
        "beta",
        Fraction(-1, 2),
        Fraction(-1, 2),
        Fraction(9, 2),
    )


def test_a_leaf_outside_the_bounds_is_refused_by_its_label():
    tree = Tree.from_nested([[1, 2], [3, 12]], "max,chance")
    with pytest.raises(TreeFormatError, match=r"leaf G is 12, outside the bounds \[0, 10\]"):
        solve(tree, Conventions(bounds=(0, 10)))


def test_bounds_must_be_ordered():
    with pytest.raises(ValueError, match="need L <= U"):
        Conventions(bounds=(5, 1))
    # An infinite L or U is no bound on that side only: L = +inf or U = -inf bounds nothing.
    for ends in ((INF, INF), (-INF, -INF), ("inf", "inf"), (INF, 3), (3, -INF)):
        with pytest.raises(ValueError, match="need L <= U"):
            Conventions(bounds=ends)
    assert Conventions(bounds=(3, 3)).bounds == (3, 3)  # L = U: every leaf is that value
    for shape in ((1, 2, 3), (1,), "12", 5):  # two numbers, in a list or a tuple
        with pytest.raises(ValueError, match=r"bounds are \[L, U\], got"):
            Conventions(bounds=shape)
    assert Conventions.from_dict({"bounds": ["-inf", 3]}).bounds == (float("-inf"), 3)
    assert Conventions(bounds=(0, 10)).to_dict()["bounds"] == [0, 10]


# A worked Star1 example, computed by hand from the formulas (module docstring):
# A = MAX over two chance nodes, each with three leaves of probability 1/3, bounds [0, 12].
# B = (3 + 12 + 9) / 3 = 8, so alpha = 8 at A. At C, after its first leaf 2 (P = 1/3, S = 2/3):
# upper = 2/3 + (2/3)·12 = 26/3 > 8, no cut; after the second, 7 (P = 2/3, S = 3):
# [3 + (1/3)·0, 3 + (1/3)·12] = [3, 7], and 7 <= 8: C is cut, its third leaf pruned.
# Windows: C's first leaf A_1 = (8 - 0 - (2/3)·12) / (1/3) = 0, B_1 = +inf: (max(0, 0),
# min(+inf, 12)) = (0, 12); its second A_2 = (8 - 2/3 - (1/3)·12) / (1/3) = 10: (10, 12).
def test_star1_worked_example():
    tree = Tree.from_nested([[3, 12, 9], [2, 7, 7]], "max,chance")
    result = solve(tree, Conventions(bounds=(0, 12)))
    assert result.value == 8 and result.best_move == 0
    assert result.pruned == ("1.2",)
    (cut,) = result.cutoffs
    assert (cut.path, cut.kind, cut.lower, cut.upper) == ("1", "alpha", 3, 7)
    windows = [(s.child, s.lower, s.upper) for s in result.trace if s.kind == "window"]
    assert windows[3:] == [("1.0", 0, 12), ("1.1", 10, 12)]
    weigh = [s for s in result.trace if s.kind == "weigh" and s.path == "0"]
    # B's trace: each child's weighted contribution and the running sum.
    assert [(s.value, s.total, s.mass) for s in weigh] == [
        (1, 1, Fraction(1, 3)),
        (4, 5, Fraction(2, 3)),
        (3, 8, 1),
    ]
    # Without bounds the same tree prunes nothing and says so.
    unbounded = solve(tree)
    assert unbounded.pruned == () and unbounded.note is not None
    # The words a student reads, as written (what they claim of the search, on every chance
    # tree: test_without_both_bounds_nothing_is_cut_below_a_chance_node).
    assert unbounded.note == (
        "No finite bounds [L, U] on the leaf values are stated, so Star1 cuts nothing below a "
        "chance node: its value cannot be bounded before every child is seen, and no bound "
        "passes through it (each child starts with the full window (-∞, +∞); only MAX and MIN "
        "nodes below it cut, on bounds set beneath it)."
    )


def test_ties_explore_does_not_cut_when_the_interval_only_touches_the_window():
    # C's interval after its first leaf 2 with bounds [0, 9]: [2/3, 2/3 + 6] = [2/3, 20/3];
    # after the second, 4: [2, 2 + 3] = [2, 5]. alpha = 5 from B = (3 + 5 + 7) / 3.
    tree = Tree.from_nested([[3, 5, 7], [2, 4, 6]], "max,chance")
    prune = solve(tree, Conventions(bounds=(0, 9)))
    explore = solve(tree, Conventions(ties="explore", bounds=(0, 9)))
    assert prune.pruned == ("1.2",)  # 5 <= alpha = 5: cut at the tie
    assert explore.pruned == ()  # 5 < 5 is false: searched on
    assert prune.value == explore.value == 5


def test_a_star1_cutoff_on_a_bound_from_above_the_parent_is_deep():
    # MAX over two MIN nodes, each over one chance node of two leaves, bounds [0, 10]. The first
    # gives alpha = 5 at the root. The second's chance node gets the window (5, +inf) through
    # its MIN parent: A_0 = 2 (5 - 10) + 10 = 0, and its first leaf 0 fails low at
    # (0 + 10) / 2 = 5 <= alpha. The bound came from the root, above its parent: a deep cutoff.
    tree = Tree.from_nested([[[5, 5]], [[0, 9]]], "max,min,chance")
    result = solve(tree, Conventions(bounds=(0, 10)))
    (cut,) = result.cutoffs
    assert (cut.path, cut.kind, cut.value, cut.source, cut.deep) == ("1.0", "alpha", 5, "", True)
    assert result.value == 5 and result.pruned == ("1.0.1",)


def test_a_chance_node_cut_as_min_with_ties_explored_cuts_only_strictly_below_alpha():
    # CS188's ties ("explore"): a node returns at once only when strictly outside its window.
    # C = (5, 9) cut as MIN under alpha = 5 from B = (5, 5): 5 < 5 is false, so C is searched
    # on; with ties pruned, 5 >= beta = 5 cuts it.
    tree = Tree.from_nested([[5, 5], [5, 9]], "max,chance")
    variant = CHANCE_VARIANTS["chance-cut-as-min"]
    explore = variant.run(tree, Conventions(ties="explore", bounds=(LOW, HIGH)))
    prune = variant.run(tree, Conventions(bounds=(LOW, HIGH)))
    assert explore.pruned == () and not explore.cutoffs
    assert prune.pruned == ("1.1",)
    # C = (4, 9): 4 < 5, cut with ties explored too, on the least child seen.
    explore = variant.run(
        Tree.from_nested([[5, 5], [4, 9]], "max,chance"),
        Conventions(ties="explore", bounds=(LOW, HIGH)),
    )
    (cut,) = explore.cutoffs
    assert (cut.path, cut.value, cut.pruned) == ("1", 4, ("1.1",))


def test_a_chance_node_cut_as_min_tightens_beta_as_a_min_node_would():
    # The misconception "chance-cut-as-min": B = (5, 5) takes beta 5 from its first leaf (not
    # again from its equal second), A takes alpha 5, and C's first leaf 2 sets beta 2 <= alpha:
    # cut, as a MIN node would, though C's value could reach (2 + 10) / 2 = 6.
    tree = Tree.from_nested([[5, 5], [2, 10]], "max,chance")
    wrong = CHANCE_VARIANTS["chance-cut-as-min"].run(tree, Conventions(bounds=(LOW, HIGH)))
    bounds = [(s.path, s.alpha, s.beta, s.bound, s.value) for s in wrong.trace if s.kind == "bound"]
    assert bounds == [
        ("0", -INF, 5, "beta", 5),
        ("", 5, INF, "alpha", 5),
        ("1", 5, 2, "beta", 2),
    ]
    (cut,) = wrong.cutoffs
    assert (cut.path, cut.kind, cut.value, cut.pruned) == ("1", "alpha", 2, ("1.1",))


def test_the_brute_force_catches_pruning_that_matters():
    # The check above can fail: the misconceptions that cut too soon prune a leaf that, set to
    # U = 10, changes the root (C = (2 + 10) / 2 = 6 beats B = 5).
    tree = Tree.from_nested([[5, 5], [2, 10]], "max,chance")
    conventions = Conventions(bounds=(LOW, HIGH))
    for code in ("star1-unseen-mass", "chance-cut-as-min"):
        wrong = CHANCE_VARIANTS[code].run(tree, conventions)
        assert wrong.pruned == ("1.1",)
        low = expectiminimax(replaced(tree, set(wrong.pruned), LOW))[""]
        high = expectiminimax(replaced(tree, set(wrong.pruned), HIGH))[""]
        assert low != high  # what it pruned mattered
