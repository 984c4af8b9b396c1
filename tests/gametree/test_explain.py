"""grader/gametree/explain.py in detail: every sentence an explanation gives, word for word, on
small trees whose searches are worked out by hand in the comments (which cutoff happens where,
with which window), for both tie rules, both value rules, MAX and MIN roots, deep cutoffs from
either bound, one or several pruned children; and the numbers and ordinals the sentences use.

``ordinal`` once tested for the teens with ``10 <= (n + 1) % 100 <= 20``, whose bounds and shift
four mutants could move without a change (10, 19 and 20 take "th" anyway); it now names 11, 12
and 13, each of which a case below needs.
"""

from __future__ import annotations

import math

import pytest

from grader.gametree import Conventions, Tree, solve
from grader.gametree.explain import Explainer, fmt, ordinal

# A MAX root over two MIN nodes over MAX nodes over leaves (labels breadth-first, A to O).
AG = [[[2, 3], [5, 9]], [[0, 1], [7, 5]]]
# A MAX root over the leaf 5 and C = [D = [G = [3, 9], 7], 4, 6]: G's 9 is cut by A's alpha.
DEEP = [5, [[[3, 9], 7], 4, 6]]


def explain(
    nested: object, players: tuple[str, ...] | None = None, **conventions: str
) -> Explainer:
    return Explainer(solve(Tree.from_nested(nested, players), Conventions(**conventions)))


@pytest.mark.parametrize(
    ("value", "shown"),
    [(None, "?"), (math.inf, "+∞"), (-math.inf, "-∞"), (0, "0"), (-3, "-3"), (2.5, "2.5")],
)
def test_fmt_shows_infinities_and_unknowns_as_signs(value, shown):
    assert fmt(value) == shown


@pytest.mark.parametrize(
    ("n", "word"),
    [
        (0, "first"),
        (1, "second"),
        (2, "third"),
        (3, "fourth"),
        (4, "fifth"),
        (5, "sixth"),
        (6, "seventh"),
        (7, "eighth"),
        (8, "ninth"),
        (9, "10th"),
        (10, "11th"),
        (11, "12th"),
        (12, "13th"),
        (13, "14th"),
        (19, "20th"),
        (20, "21st"),
        (21, "22nd"),
        (22, "23rd"),
        (23, "24th"),
        (99, "100th"),
        (100, "101st"),
        (101, "102nd"),
        (102, "103rd"),
        (109, "110th"),
        (110, "111th"),
        (111, "112th"),
        (112, "113th"),
        (119, "120th"),
        (120, "121st"),
        (121, "122nd"),
        (122, "123rd"),
    ],
)
def test_ordinal_counts_from_zero_with_english_suffixes(n, word):
    assert ordinal(n) == word


def test_shallow_cutoffs_under_the_prune_rule():
    # B (MIN) = min(D, E); D = max(2, 3) = 3 sets B's beta = 3; E sees 5 >= 3 and skips its 9 (K).
    # A's alpha = 3; C (MIN) enters with (3, inf), F = max(0, 1) = 1 <= 3, so G is skipped.
    explainer = explain(AG)
    assert [explainer.cutoff(c) for c in explainer.result.cutoffs] == [
        "At E, alpha = 5 >= beta = 3, so E's second child, K, is never evaluated.",
        "At C, alpha = 3 >= beta = 1, so C's second child, G, is never evaluated.",
    ]


def test_the_explore_rule_quotes_the_value_against_the_bound_it_passed():
    # Under the strict rule the MAX node E cuts on its value 5 > beta = 3 (a beta cutoff), and the
    # MIN node D of [[3, 12, 8], [5, 4, 6], [14, 1, 11]] cuts on 1 < alpha = 4 (an alpha cutoff).
    beta = explain(AG, ties="explore")
    assert beta.cutoff(beta.result.cutoffs[0]) == (
        "At E, its value 5 > beta = 3, so E's second child, K, is never evaluated."
    )
    alpha = explain([[3, 12, 8], [5, 4, 6], [14, 1, 11]], ties="explore")
    assert [alpha.cutoff(c) for c in alpha.result.cutoffs] == [
        "At D, its value 1 < alpha = 4, so D's third child, M, is never evaluated."
    ]


def test_several_pruned_children_are_listed_with_and():
    # C (MIN) enters with alpha = 5; its first leaf 3 <= 5 cuts the three after it.
    explainer = explain([[5], [3, 1, 2, 8]])
    assert [explainer.cutoff(c) for c in explainer.result.cutoffs] == [
        "At C, alpha = 5 >= beta = 3, so C's remaining children F, G and H are never evaluated."
    ]
    # Two: the MIN root's bound 5 cuts C's (MAX) last two children once D returns 7.
    two = explain([5, [[[3, 9], 7], 4, 6]], ("min", "max"), ties="explore")
    assert [two.cutoff(c) for c in two.result.cutoffs] == [
        "At C, its value 7 > beta = 5, so C's remaining children E and F are never evaluated."
    ]


def test_a_deep_cutoff_names_the_bound_and_the_node_that_set_it():
    # MAX root: A's alpha = 5 reaches G (MIN, two levels down), whose 3 <= 5 cuts J.
    alpha = explain(DEEP)
    assert [alpha.cutoff(c) for c in alpha.result.cutoffs] == [
        "At G, alpha = 5 >= beta = 3, so G's second child, J, is never evaluated "
        "(a deep cutoff: alpha = 5 was set at A, above G's parent).",
        "At C, alpha = 5 >= beta = 4, so C's third child, F, is never evaluated.",
    ]
    # The mirror image (a MIN root, values negated): A's beta = -5 cuts at the MAX node G.
    beta = explain([-5, [[[-3, -9], -7], -4, -6]], ("min", "max"))
    assert [beta.cutoff(c) for c in beta.result.cutoffs] == [
        "At G, alpha = -3 >= beta = -5, so G's second child, J, is never evaluated "
        "(a deep cutoff: beta = -5 was set at A, above G's parent).",
        "At C, alpha = -4 >= beta = -5, so C's third child, F, is never evaluated.",
    ]


def test_cutoff_of_finds_the_cutoff_of_a_pruned_root_and_of_nodes_below_it():
    explainer = explain(AG)
    at_e, at_c = explainer.result.cutoffs
    assert explainer.cutoff_of("0.1.1") == at_e
    assert explainer.cutoff_of("1.1") == at_c
    assert explainer.cutoff_of("1.1.0") == explainer.cutoff_of("1.1.1") == at_c
    assert explainer.cutoff_of("1") is None and explainer.cutoff_of("0.1") is None
    assert explainer.cutoff_of("") is None and explainer.cutoff_of("1.0.1") is None


def test_pruned_leaf_tells_which_cutoff_skipped_it():
    explainer = explain(AG)
    assert explainer.pruned_leaf("1.1.1") == (
        "O is never evaluated: At C, alpha = 3 >= beta = 1, so C's second child, G, is never "
        "evaluated."
    )
    assert explainer.pruned_leaf("0.1.1") == (
        "K is never evaluated: At E, alpha = 5 >= beta = 3, so E's second child, K, is never "
        "evaluated."
    )
    assert explainer.pruned_leaf("1.0.1") == "M is never evaluated."  # no cutoff covers it


def test_visited_not_pruned_quotes_the_window_the_node_was_entered_with():
    explainer = explain(AG)
    entered = {s.path: s for s in explainer.result.trace if s.kind == "enter"}
    assert explainer.visited_not_pruned(entered["0.1"]) == (
        "E is searched, not pruned: when B reaches it, alpha = -∞ and beta = 3, so no cutoff has "
        "happened yet."
    )
    assert explainer.visited_not_pruned(entered["1.0.1"]) == (
        "M is searched, not pruned: when F reaches it, alpha = 3 and beta = +∞, so no cutoff has "
        "happened yet."
    )


def test_node_value_for_max_min_and_a_cutoff_under_soft_values():
    explainer = explain(AG)
    assert [explainer.node_value(p) for p in ["", "0", "0.1", "1"]] == [
        "A is MAX: it takes the largest value its children returned (B = 3, C = 1): 3.",
        "B is MIN: it takes the smallest value its children returned (D = 3, E = 5): 3.",
        "E is MAX and stops after J = 5 because of a cutoff, so it returns the largest value seen "
        "so far: 5.",
        "C is MIN and stops after F = 1 because of a cutoff, so it returns the smallest value seen "
        "so far: 1.",
    ]


def test_node_value_under_hard_values_says_the_value_was_clamped():
    # Fail-hard: G (MIN, window (5, inf)) sees 3 and returns the bound 5; C likewise returns 5.
    explainer = explain(DEEP, values="hard")
    assert [explainer.node_value(p) for p in ["", "1", "1.0.0"]] == [
        "A is MAX: it takes the largest value its children returned (B = 5, C = 5), clamped to "
        "its window, which gives 5.",
        "C is MIN and stops after D = 7, E = 4 because of a cutoff, so it returns the smallest "
        "value seen so far, clamped to its window, which gives 5.",
        "G is MIN and stops after I = 3 because of a cutoff, so it returns the smallest value "
        "seen so far, clamped to its window, which gives 5.",
    ]
    # A leaf (E, the 4) returns its own value: there is no child value to clamp.
    assert explainer.node_value("1.1") == (
        "E is MAX: it takes the largest value its children returned (): 4."
    )


def test_bounds_list_every_change_with_its_step():
    explainer = explain(AG)
    assert explainer.bounds("0.0") == (
        "D is entered with alpha = -∞, beta = +∞; then alpha = 2 (step 5), alpha = 3 (step 8); "
        "so when it returns alpha = 3 and beta = +∞."
    )
    assert explainer.bounds("1") == (
        "C is entered with alpha = 3, beta = +∞; then beta = 1 (step 26); so when it returns "
        "alpha = 3 and beta = 1."
    )
    assert explainer.bounds("1.0") == (
        "F is entered with alpha = 3, beta = +∞; so when it returns alpha = 3 and beta = +∞."
    )
