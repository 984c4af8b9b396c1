"""Golden trees from textbooks and worked examples, solved by hand in the comments.

Every expectation here was derived by hand from the conventions in ARCHITECTURE.md (ties, values,
order) and the published walkthroughs cited, never copied from the solver's output.
"""

from __future__ import annotations

import math

import pytest

from grader.gametree import Conventions, Cutoff, NodeResult, Step, Tree, parse_leaves, solve
from grader.gametree.explain import Explainer

INF = math.inf

# AIMA (Russell & Norvig, 3rd/4th ed., Fig. 5.2 / 5.5): MAX over three MIN nodes.
AIMA = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]
# The A..G tutorial (seeds/003, javatpoint's "Alpha-Beta Pruning" walkthrough): MAX root A,
# MIN B over MAX D(2,3) and E(5,9), MIN C over MAX F(0,1) and G(7,5).
AG = [[[2, 3], [5, 9]], [[0, 1], [7, 5]]]
# UC Berkeley CS188, lecture 6 ("Adversarial Search") and the Pacman project's
# test_cases/q2|q3/0-lecture-6-tree.test: max over min1(3,12,8), min2(5,4,6), min3(14,1,11).
LECTURE6 = [[3, 12, 8], [5, 4, 6], [14, 1, 11]]
# A hand-built deep cutoff (see test_deep_cutoff_uses_a_bound_from_above_the_parent).
DEEP = [5, [[[3, 9], 7], 4, 6]]


def conv(ties="prune", values="soft", order="ltr") -> Conventions:
    return Conventions(ties=ties, values=values, order=order)


def cut(path, kind, alpha, beta, value, deep, source, pruned) -> tuple:
    return (path, kind, alpha, beta, value, deep, source, pruned)


def cutoffs(result) -> list[tuple]:
    return [
        (c.path, c.kind, c.alpha, c.beta, c.value, c.deep, c.source, c.pruned)
        for c in result.cutoffs
    ]


# ties=explore with values=hard is refused (see test_edge_cases.py).
VALID_PAIRS = [("prune", "soft"), ("prune", "hard"), ("explore", "soft")]


# -- AIMA's 3x3 tree ---------------------------------------------------------------------------


def test_aima_nested_and_leaves_forms_agree():
    assert parse_leaves("3,12,8,2,4,6,14,5,2", branching=3, depth=2) == AIMA


@pytest.mark.parametrize(("ties", "values"), VALID_PAIRS)
def test_aima_left_to_right(ties, values):
    # B = min(3,12,8) = 3 with no cutoff (alpha is -inf), so A's alpha = 3.
    # C is entered with (3, +inf); its first leaf 2 gives 2 <= alpha: C's other two leaves (4 and 6,
    # paths 1.1 and 1.2) are pruned under both tie rules (2 < 3 is strict).
    # D sees 14, 5, 2: only the last one falls below alpha, so nothing is left to prune.
    result = solve(Tree.from_nested(AIMA), conv(ties, values))
    assert result.value == 3
    assert result.best_move == 0
    assert result.leaf_order == ("0.0", "0.1", "0.2", "1.0", "2.0", "2.1", "2.2")
    assert result.pruned == ("1.1", "1.2")
    assert result.pruned_all == ("1.1", "1.2")
    assert [c.path for c in result.cutoffs] == ["1"]
    c = result.cutoffs[0]
    assert (c.kind, c.alpha, c.value, c.deep, c.source, c.pruned) == (
        "alpha",
        3,
        2,
        False,  # alpha = 3 was set at A, C's own parent: a shallow cutoff
        "",
        ("1.1", "1.2"),
    )
    # prune lowers C's beta to 2 and then stops (alpha >= beta); CS188's explore returns at once,
    # before touching beta.
    assert c.beta == (2 if ties == "prune" else INF)
    n = result.nodes
    assert n[""] == NodeResult(3, 3, INF)
    assert n["0"] == NodeResult(3, -INF, 3)
    # fail-soft: C and D return the 2 they saw; fail-hard: clamped into (3, +inf), i.e. 3.
    low = 2 if values == "soft" else 3
    assert n["1"] == NodeResult(low, 3, 2 if ties == "prune" else INF)
    # D's beta goes 14, 5; the last leaf 2 lowers it to 2 under prune, but explore stops first.
    assert n["2"] == NodeResult(low, 3, 2 if ties == "prune" else 5)
    # leaves record the window they were evaluated in
    assert n["0.1"] == NodeResult(12, -INF, 3)
    assert n["2.1"] == NodeResult(5, 3, 14)


def test_aima_trace_steps():
    result = solve(Tree.from_nested(AIMA), conv())
    t = result.trace
    assert [s.index for s in t] == list(range(len(t)))
    assert t[0] == Step(0, "enter", "", -INF, INF)
    assert t[1] == Step(1, "enter", "0", -INF, INF)
    assert t[2] == Step(2, "enter", "0.0", -INF, INF)
    assert t[3] == Step(3, "leaf", "0.0", -INF, INF, value=3)
    assert t[4] == Step(4, "bound", "0", -INF, 3, value=3, bound="beta")
    assert t[5] == Step(5, "enter", "0.1", -INF, 3)
    # B returns 3 after its three leaves, then A raises alpha to 3.
    ret_b = next(s for s in t if s.kind == "return" and s.path == "0")
    assert (ret_b.value, ret_b.alpha, ret_b.beta) == (3, -INF, 3)
    assert t[ret_b.index + 1] == Step(ret_b.index + 1, "bound", "", 3, INF, value=3, bound="alpha")
    cutoff = next(s for s in t if s.kind == "cutoff")
    assert (cutoff.path, cutoff.alpha, cutoff.beta, cutoff.value, cutoff.pruned) == (
        "1",
        3,
        2,
        2,
        ("1.1", "1.2"),
    )
    assert result.cutoffs[0].step == cutoff.index
    assert t[-1].kind == "return" and t[-1].path == "" and t[-1].value == 3
    assert sum(s.kind == "leaf" for s in t) == 7


@pytest.mark.parametrize("ties", ["prune", "explore"])
def test_aima_right_to_left_prunes_nothing(ties):
    # rtl: D first: 2, 5, 14 -> D = 2, A's alpha = 2. C: 6, 4, 2 -> the cut condition is only met
    # by its last leaf (2 <= 2 under prune; not at all under explore), so nothing is skipped.
    # B: 8, 12, 3 -> 3 > 2, so A = 3 via B (index 0). All nine leaves, right to left.
    result = solve(Tree.from_nested(AIMA), conv(ties, order="rtl"))
    assert result.value == 3
    assert result.best_move == 0
    assert result.leaf_order == ("2.2", "2.1", "2.0", "1.2", "1.1", "1.0", "0.2", "0.1", "0.0")
    assert result.pruned == () and result.pruned_all == () and result.cutoffs == ()
    assert result.nodes["2"] == NodeResult(2, -INF, 2)
    assert result.nodes["0"] == NodeResult(3, 2, 3)


# -- the A..G tutorial tree -----------------------------------------------------------------------


def test_ag_labels():
    labels = Tree.from_nested(AG).labels()
    assert [labels[p] for p in ["", "0", "1", "0.0", "0.1", "1.0", "1.1"]] == list("ABCDEFG")
    assert labels["0.1.1"] == "K" and labels["1.1.0"] == "N" and labels["1.1.1"] == "O"


@pytest.mark.parametrize("ties", ["prune", "explore"])
def test_ag_tutorial_fail_soft(ties):
    # Steps 1-8 of the tutorial: D = max(2,3) = 3; B's beta = 3; E sees 5: alpha 5 >= beta 3, so
    # E's second leaf (K, 9) is pruned; B = 3, A's alpha = 3; F = max(0,1) = 1 (alpha stays 3);
    # C's beta = 1 <= alpha 3, so all of G is pruned. Root 3. No equality is involved, so CS188's
    # strict rule prunes the same nodes (5 > 3 at E, 1 < 3 at C).
    result = solve(Tree.from_nested(AG), conv(ties))
    assert result.value == 3
    assert result.best_move == 0
    assert result.leaf_order == ("0.0.0", "0.0.1", "0.1.0", "1.0.0", "1.0.1")
    assert result.pruned == ("1.1", "0.1.1")  # label order: G before K
    assert result.pruned_all == ("1.1", "0.1.1", "1.1.0", "1.1.1")
    prune = ties == "prune"
    assert cutoffs(result) == [
        # E is MAX: a beta cutoff, the bound set by its parent B.
        cut("0.1", "beta", 5 if prune else -INF, 3, 5, False, "0", ("0.1.1",)),
        # C is MIN: an alpha cutoff, the bound set by its parent A.
        cut("1", "alpha", 3, 1 if prune else INF, 1, False, "", ("1.1",)),
    ]
    n = result.nodes
    assert n[""] == NodeResult(3, 3, INF)
    assert n["0"] == NodeResult(3, -INF, 3)
    assert n["0.0"] == NodeResult(3, 3, INF)
    assert n["0.1"] == NodeResult(5, 5 if prune else -INF, 3)
    assert n["1"] == NodeResult(1, 3, 1 if prune else INF)
    assert n["1.0"] == NodeResult(1, 3, INF)
    assert "1.1" not in n


def test_ag_fail_hard_with_prune():
    # Fail-hard: E returns its value clamped to (-inf, 3) = 3; F returns max(3, min(inf, 1)) = 3.
    # At C, beta = 3 and alpha = 3: alpha >= beta (a tie) cuts G, as in the soft case.
    result = solve(Tree.from_nested(AG), conv("prune", "hard"))
    assert result.value == 3 and result.best_move == 0
    assert result.leaf_order == ("0.0.0", "0.0.1", "0.1.0", "1.0.0", "1.0.1")
    assert result.pruned == ("1.1", "0.1.1")
    assert result.nodes["0.1"] == NodeResult(3, 5, 3)
    assert result.nodes["1.0"] == NodeResult(3, 3, INF)
    assert result.nodes["1"] == NodeResult(3, 3, 3)
    assert cutoffs(result)[1] == cut("1", "alpha", 3, 3, 3, False, "", ("1.1",))


def test_ag_right_to_left_evaluates_every_leaf():
    # rtl: C first: G = max(5,7) = 7, C's beta 7; F(-inf,7) = max(1,0) = 1; C = 1, A's alpha 1.
    # B: E(1,inf) = max(9,5) = 9, B's beta 9; D(1,9) = max(3,2) = 3; B = 3 > 1: A = 3 via B.
    # No window ever closes, so all eight leaves are evaluated, right to left.
    result = solve(Tree.from_nested(AG), conv(order="rtl"))
    assert result.value == 3 and result.best_move == 0
    assert result.leaf_order == (
        "1.1.1",
        "1.1.0",
        "1.0.1",
        "1.0.0",
        "0.1.1",
        "0.1.0",
        "0.0.1",
        "0.0.0",
    )
    assert result.pruned == () and result.cutoffs == ()
    assert result.nodes["0.0"] == NodeResult(3, 3, 9)


def test_ag_cutoff_explanations():
    result = solve(Tree.from_nested(AG), conv())
    explainer = Explainer(result)
    assert [explainer.cutoff(c) for c in result.cutoffs] == [
        "At E, alpha = 5 >= beta = 3, so E's second child, K, is never evaluated.",
        "At C, alpha = 3 >= beta = 1, so C's second child, G, is never evaluated.",
    ]
    explore = Explainer(solve(Tree.from_nested(AG), conv("explore")))
    assert explore.cutoff(explore.result.cutoffs[0]) == (
        "At E, its value 5 > beta = 3, so E's second child, K, is never evaluated."
    )


# -- CS188 lecture 6 -----------------------------------------------------------------------------


@pytest.mark.parametrize("ties", ["prune", "explore"])
def test_cs188_lecture6_tree(ties):
    # min1 = 3 (window (-inf, inf), nothing to cut): A's alpha = 3. min2 in (3, inf): 5, 4, 6 are
    # all >= 3, so no cut under either rule; min2 = 4, alpha = 4. min3 in (4, inf): 14, then
    # 1 < 4 (strictly, so CS188 prunes too): the last leaf (11, path 2.2) is never generated.
    # Root 4, reached through min2. No equality happens, so both tie rules prune the same leaf;
    # they differ only in min3's beta (CS188 returns before lowering it to 1).
    result = solve(Tree.from_nested(LECTURE6), conv(ties))
    assert result.value == 4
    assert result.best_move == 1
    assert result.leaf_order == ("0.0", "0.1", "0.2", "1.0", "1.1", "1.2", "2.0", "2.1")
    assert result.pruned == ("2.2",)
    assert cutoffs(result) == [
        cut("2", "alpha", 4, 1 if ties == "prune" else 14, 1, False, "", ("2.2",))
    ]
    assert result.nodes["1"] == NodeResult(4, 3, 4)


# -- ties ----------------------------------------------------------------------------------------

TIE = [[3, 5], [3, 1], [2, 8]]


def test_tie_prunes_under_prune_but_not_under_explore():
    # B = min(3,5) = 3, A's alpha = 3. C's first leaf is 3: beta = 3 = alpha.
    # prune (alpha >= beta) stops and skips C's 1; explore (3 < 3 is false) goes on to see 1.
    # D's first leaf 2 < 3 cuts D's 8 under both rules.
    tree = Tree.from_nested(TIE)
    prune = solve(tree, conv("prune", "soft"))
    explore = solve(tree, conv("explore", "soft"))
    assert prune.value == explore.value == 3
    assert prune.leaf_order == ("0.0", "0.1", "1.0", "2.0")
    assert prune.pruned == ("1.1", "2.1")
    assert explore.leaf_order == ("0.0", "0.1", "1.0", "1.1", "2.0")
    assert explore.pruned == ("2.1",)
    assert cutoffs(prune)[0] == cut("1", "alpha", 3, 3, 3, False, "", ("1.1",))
    # C returns min(3, 1) = 1 (fail-soft) under explore.
    assert explore.nodes["1"].value == 1


# -- a deep cutoff -------------------------------------------------------------------------------


@pytest.mark.parametrize(("ties", "values"), VALID_PAIRS)
def test_deep_cutoff_uses_a_bound_from_above_the_parent(ties, values):
    # Root (MAX) = [5, m1]; m1 (MIN, path 1) = [x, 4, 6]; x (MAX, 1.0) = [m2, 7];
    # m2 (MIN, 1.0.0) = [3, 9]. Labels breadth-first: m1 = C, x = D, m2 = G, the 9 = J.
    # A's first child, the leaf 5, sets alpha = 5 at A. That alpha travels down A -> B -> C -> the
    # MIN node at 1.0.0, which sees 3 < 5 and prunes its 9. Its parent (1.0, MAX) and grandparent
    # (1, MIN) set nothing it used: the bound comes from A, three levels up, so the cutoff is deep.
    # Without the inherited alpha (C only knows its own best so far, -inf) nothing would be cut.
    # Then 1.0 = max(3, 7) = 7, B's beta = 7; B's next leaf 4 <= 5: B's last leaf (6) is cut by
    # A's alpha, A being B's parent: a shallow cutoff. Root 5 through the first child.
    tree = Tree.from_nested(DEEP)
    labels = tree.labels()
    assert [labels[p] for p in ["1", "1.0", "1.0.0", "1.0.0.1"]] == ["C", "D", "G", "J"]
    result = solve(tree, conv(ties, values))
    assert result.value == 5 and result.best_move == 0
    assert result.leaf_order == ("0", "1.0.0.0", "1.0.1", "1.1")
    assert result.pruned == ("1.2", "1.0.0.1")
    prune = ties == "prune"
    assert cutoffs(result) == [
        cut("1.0.0", "alpha", 5, 3 if prune else INF, 3, True, "", ("1.0.0.1",)),
        cut("1", "alpha", 5, 4 if prune else 7, 4, False, "", ("1.2",)),
    ]
    assert [c.deep for c in result.cutoffs] == [True, False]
    hard = values == "hard"
    # G returns 3 (soft) or 3 clamped into (5, inf) = 5 (hard); D = max(.., 7) = 7 either way.
    assert result.nodes["1.0.0"].value == (5 if hard else 3)
    assert result.nodes["1.0"] == NodeResult(7, 7, INF)
    assert result.nodes["1"].value == (5 if hard else 4)
    if prune:
        assert Explainer(result).cutoff(result.cutoffs[0]) == (
            "At G, alpha = 5 >= beta = 3, so G's second child, J, is never evaluated "
            "(a deep cutoff: alpha = 5 was set at A, above G's parent)."
        )


def test_deep_cutoff_from_the_grandparent_with_two_minimizers():
    # Players max,min,min: A (MAX) = [4, C]; C (MIN) = [D, 9]; D (MIN, depth 2) = [2, 7].
    # A's leaf 4 sets alpha = 4. D is entered with (4, inf) and its first leaf 2 < 4 cuts its 7:
    # the bound was set at A, D's grandparent (its parent C is a MIN node and sets only beta),
    # so the cutoff is deep. C's beta becomes 2 <= 4 and its leaf 9 is cut, a shallow cutoff.
    result = solve(Tree.from_nested([4, [[2, 7], 9]], "max,min,min"), conv())
    assert result.value == 4
    assert result.leaf_order == ("0", "1.0.0")
    assert cutoffs(result) == [
        cut("1.0", "alpha", 4, 2, 2, True, "", ("1.0.1",)),
        cut("1", "alpha", 4, 2, 2, False, "", ("1.1",)),
    ]


def test_cutoff_records_are_values():
    result = solve(Tree.from_nested(AIMA), conv())
    assert isinstance(result.cutoffs[0], Cutoff)
    d = result.to_dict()
    assert d["cutoffs"][0]["label"] == "C"
    assert d["nodes"]["1"]["beta"] == 2 and d["nodes"][""]["beta"] == "inf"
    assert d["nodes"]["1.1"] == {"label": "I", "player": "max", "visited": False}
