"""Chance nodes: the tree model (players, the nested form, probabilities), exact values, how a
value is shown and matched, a textbook tree, the misconception variants and the generator."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings

from grader.gametree import Conventions, Tree, TreeFormatError, minimax, solve
from grader.gametree.exact import exact_text, fmt, matches, parse_probability
from grader.gametree.explain import Explainer
from grader.gametree.generator import (
    CHANCE_SPLITS,
    ChanceParams,
    GenerationError,
    generate_chance,
)
from grader.gametree.kinds import KINDS
from grader.gametree.tree import ProbabilityError
from grader.gametree.variants import CHANCE_VARIANTS, VARIANTS, variants_for
from tests.gametree.chance_support import chance_trees, expectiminimax
from tests.kinds import built_in_kinds

# -- probabilities -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1/3", Fraction(1, 3)),
        (" 2 / 3 ", Fraction(2, 3)),
        (0.25, Fraction(1, 4)),
        (0.1, Fraction(1, 10)),  # from its decimal text, not the binary float nearest 0.1
        ("0.75", Fraction(3, 4)),
        (".5", Fraction(1, 2)),
        (1, Fraction(1)),
    ],
)
def test_probabilities_are_read_exactly(raw, expected):
    assert parse_probability(raw) == expected


@pytest.mark.parametrize("raw", [True, "1/0", "-1/3", "1e-1", "one third", float("nan"), "", "."])
def test_what_is_not_a_probability_is_refused(raw):
    with pytest.raises(ValueError):
        parse_probability(raw)


@pytest.mark.parametrize(
    ("chance", "words"),
    [
        (["1/3", "1/3"], "chance node C: the probabilities sum to 2/3, not exactly 1"),
        (["1/2", "1/2", "0"], "chance node C: every probability must be > 0, got 0"),
        ([0.3333333333333333, "2/3"], "chance node C: the probabilities sum to"),  # not 1/3
        (["1/2"], "chance node C: 1 probabilities for 2 children"),
        (["x", "1/2"], "chance node C: a probability is written 1/3, 0.25 or 1, got 'x'"),
        ("1/2", 'chance node C: "chance" is a list of probabilities'),
    ],
)
def test_wrong_probabilities_are_refused_with_the_nodes_label(chance, words):
    children = [1, 2, 3] if len(chance) == 3 else [1, 2]
    nested = [[7], {"chance": chance, "children": children}]
    with pytest.raises(ProbabilityError) as refused:
        Tree.from_nested(nested)
    assert str(refused.value).startswith(words)
    assert isinstance(refused.value, TreeFormatError)  # callers catching the module's error


def test_the_first_wrong_node_in_label_order_is_named():
    # B is a plain list; C is the first wrong node breadth-first (read depth first, D would be).
    bad = {"chance": ["1/2", "1/3"], "children": [1, 2]}
    with pytest.raises(ProbabilityError, match=r"^chance node C:"):
        Tree.from_nested([[bad, bad], bad])


def test_a_chance_level_is_uniform_and_a_written_node_overrides_its_level():
    tree = Tree.from_nested([[1, 2, 3], {"chance": ["1/4", "3/4"], "children": [4, 8]}], "max,min")
    assert tree.player("0") == "min" and tree.player("1") == "chance"
    assert tree.probabilities("1") == (Fraction(1, 4), Fraction(3, 4))
    assert solve(tree).value == 7  # max(min(1,2,3), 4/4 + 24/4)
    level = Tree.from_nested([[1, 2, 3], [4, 8]], "max,chance")
    assert level.probabilities("0") == (Fraction(1, 3),) * 3
    assert solve(level).value == 6  # max(2, 6)
    assert Tree.from_nested([{"chance": True, "children": [1, 2]}]).probabilities("0") == (
        Fraction(1, 2),
        Fraction(1, 2),
    )


def test_players_accept_chance_and_still_refuse_other_names():
    assert Tree.from_nested([[1]], "max,chance,min,chance").players == (
        "max",
        "chance",
        "min",
        "chance",
    )
    with pytest.raises(TreeFormatError, match="'max', 'min' and 'chance'"):
        Tree.from_nested([[1]], "max,dice")


# -- round trips ---------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(tree=chance_trees())
def test_nested_and_json_forms_round_trip(tree: Tree):
    assert Tree.from_nested(tree.to_nested(), tree.players) == tree
    assert Tree.from_dict(json.loads(json.dumps(tree.to_dict()))) == tree
    assert tree.canonical() == Tree.from_dict(tree.to_dict()).canonical()


def test_reordering_moves_each_probability_with_its_child():
    tree = Tree.from_nested([{"chance": ["1/4", "3/4"], "children": [0, 8]}])
    swapped = tree.reordered({"0": [1, 0]})
    assert swapped.node("0").chance == (Fraction(3, 4), Fraction(1, 4))
    assert solve(swapped).value == solve(tree).value == 6
    assert swapped.canonical() == tree.canonical()
    other = Tree.from_nested([{"chance": ["3/4", "1/4"], "children": [0, 8]}])
    assert other.canonical() != tree.canonical()  # the same leaves, other odds: another tree


# -- exact values, shown one way, matched one way --------------------------------------------------


def test_values_stay_exact():
    tree = Tree.from_nested([[3, 4, 7], [2, 2, 2]], "max,chance")
    result = solve(tree)
    assert result.value == Fraction(14, 3)  # not 4.666...
    assert result.to_dict()["value"] == "14/3"
    assert result.to_dict()["nodes"]["0"]["probabilities"] == ["1/3", "1/3", "1/3"]
    json.dumps(result.to_dict())  # JSON-ready throughout
    floats = solve(Tree.from_nested([[0.1, 0.2]], "max,chance"))
    assert floats.value == Fraction(3, 20)  # 0.1 and 0.2 by their decimal text


@pytest.mark.parametrize(
    ("value", "shown", "title"),
    [
        (Fraction(14, 3), "4.67", "14/3"),
        (Fraction(-14, 3), "-4.67", "-14/3"),
        (Fraction(5, 2), "2.5", "5/2"),
        (Fraction(1, 8), "0.13", "1/8"),  # halves away from zero, as people round
        (Fraction(6, 2), "3", "3"),
        (7, "7", "7"),
        (2.5, "2.5", "2.5"),
        (float("inf"), "+∞", "+∞"),
    ],
)
def test_one_way_to_show_a_value(value, shown, title):
    assert (fmt(value), exact_text(value)) == (shown, title)


@pytest.mark.parametrize(
    ("answer", "right"),
    [
        (Fraction(14, 3), True),
        (4.67, True),
        (Fraction(467, 100), True),
        (4.7, False),
        (4.666, False),
        (4.6667, False),
        (5, False),
    ],
)
def test_an_answer_is_the_exact_value_or_its_decimal_to_two_places(answer, right):
    assert matches(answer, Fraction(14, 3)) is right


def test_whole_and_short_decimal_values_match_only_themselves():
    assert matches(3, 3) and matches(3.0, 3) and not matches(3.004, 3)
    assert matches(2.5, Fraction(5, 2)) and not matches(2.51, Fraction(5, 2))


# -- a textbook tree -----------------------------------------------------------------------------


# AIMA (Russell and Norvig, 3rd ed.), Figure 5.12: MAX chooses between a1 and a2, each followed by
# a chance node (probabilities .9 and .1) over MIN nodes whose two leaves are equal. With leaf
# values 2, 3 / 1, 4 the chance nodes are worth 2.1 and 1.3 and a1 is best; with the
# order-preserving transformation 20, 30 / 1, 400 they are worth 21 and 40.9 and a2 is best.
AIMA_FIGURE_5_12 = "max,chance,min"


def _aima(a: int, b: int, c: int, d: int) -> Tree:
    odds = ["0.9", "0.1"]
    return Tree.from_nested(
        [
            {"chance": odds, "children": [[a, a], [b, b]]},
            {"chance": odds, "children": [[c, c], [d, d]]},
        ],
        AIMA_FIGURE_5_12,
    )


def test_aima_figure_5_12_order_preserving_transformation_changes_the_best_move():
    small = minimax(_aima(2, 3, 1, 4))
    assert (small.nodes["0"].value, small.nodes["1"].value) == (Fraction(21, 10), Fraction(13, 10))
    assert small.best_move == 0
    large = minimax(_aima(20, 30, 1, 400))
    assert (large.nodes["0"].value, large.nodes["1"].value) == (21, Fraction(409, 10))
    assert large.best_move == 1
    assert [fmt(large.nodes[p].value) for p in ("0", "1")] == ["21", "40.9"]


def test_the_explanation_of_a_chance_node_shows_its_weighted_sum():
    result = minimax(_aima(2, 3, 1, 4))
    text = Explainer(result).node_value("0")
    assert (
        text
        == "B is a chance node: the weighted average of its children, 9/10 × 2 + 1/10 × 3: 2.1."
    )


# -- the misconception variants ------------------------------------------------------------------


def _run(code: str, tree: Tree, conventions: Conventions):
    return CHANCE_VARIANTS[code].run(tree, conventions)


def test_the_pessimist_takes_the_minimum_at_chance_nodes():
    # B = (0 + 10) / 2 = 5 against C = (4 + 4) / 2 = 4: expectimax moves to B; taking the
    # minimum, B = 0 and C = 4, so the pessimist moves to C.
    tree = Tree.from_nested([[0, 10], [4, 4]], "max,chance")
    assert (solve(tree).value, solve(tree).best_move) == (5, 0)
    pessimist = _run("chance-as-min", tree, Conventions())
    assert (pessimist.value, pessimist.best_move) == (4, 1)


def test_the_unweighted_average_ignores_unequal_probabilities():
    # B = 1/4·0 + 3/4·8 = 6; the plain average is 4.
    tree = Tree.from_nested([{"chance": ["1/4", "3/4"], "children": [0, 8]}, [5]], "max,max")
    assert solve(tree).value == 6
    assert _run("chance-unweighted", tree, Conventions()).value == 5  # max(4, 5)
    uniform = Tree.from_nested([[0, 8], [5]], "max,chance")
    assert "chance-unweighted" not in {
        v.code for v in variants_for("values", uniform, Conventions())
    }


def test_cutting_a_chance_node_as_if_min_prunes_what_matters():
    # alpha = 5 from B. C's first leaf is 2 <= 5: as MIN, C would stop there; but C =
    # (2 + 10) / 2 = 6 > 5, so the reference searches both and moves to C.
    tree = Tree.from_nested([[5, 5], [2, 10]], "max,chance")
    reference = solve(tree, Conventions(bounds=(0, 10)))
    assert (reference.value, reference.best_move, reference.pruned) == (6, 1, ())
    as_min = _run("chance-cut-as-min", tree, Conventions(bounds=(0, 10)))
    assert as_min.pruned == ("1.1",) and as_min.best_move == 0


def test_star1_without_the_unseen_mass_cuts_too_soon():
    # alpha = 5 from B. C's first leaf 2 with probability 1/2: the true interval is
    # [1 + 0, 1 + 5] = [1, 6], not past alpha; forgetting the unseen half it is [1, 1] <= 5: cut.
    tree = Tree.from_nested([[5, 5], [2, 10]], "max,chance")
    conventions = Conventions(bounds=(0, 10))
    assert solve(tree, conventions).pruned == ()
    forgot = _run("star1-unseen-mass", tree, conventions)
    assert forgot.pruned == ("1.1",) and forgot.best_move == 0


def test_star1_with_the_parents_window_passed_down_prunes_otherwise():
    # A = MAX over B (a chance node over the one leaf 4) and C, a chance node (1/2, 1/2) over the
    # MIN nodes D = [3, 9] and E = [6, 1]; bounds [0, 10]; alpha = 4 at A when C is entered.
    # Ballard: D's window is A_1 = (4 - 0 - (1/2)·10) / (1/2) = -2, so (0, 10): D sees 3, then
    # 9, nothing cut (D = 3). E's window A_2 = (4 - 3/2 - 0) / (1/2) = 5: (5, 10).
    # With C's own window (4, +inf) passed down instead, D stops at its first leaf, 3 <= 4, and
    # its second leaf is pruned; E is entered with alpha 4, not 5.
    tree = Tree.from_nested([[4], [[3, 9], [6, 1]]], "max,chance,min")
    conventions = Conventions(bounds=(0, 10))
    reference = solve(tree, conventions)
    unscaled = _run("star1-windows", tree, conventions)
    assert reference.pruned == () and unscaled.pruned == ("1.0.1",)
    assert reference.nodes["1.1"].alpha == 5 and unscaled.nodes["1.1"].alpha == 4
    assert reference.value == unscaled.value == 4


def test_chance_variants_apply_only_to_chance_trees():
    plain = Tree.from_nested([[3, 12, 8], [2, 4, 6]])
    for kind in ("prune", "values", "leaf-order", "minimax"):
        codes = {v.code for v in variants_for(kind, plain, Conventions(bounds=(0, 20)))}
        assert not codes & set(CHANCE_VARIANTS)
    assert not set(CHANCE_VARIANTS) & set(VARIANTS)  # MAX/MIN statistics and practice unchanged
    chance = Tree.from_nested([[3, 12], [2, 4]], "max,chance")
    unbounded = {v.code for v in variants_for("prune", chance, Conventions())}
    assert "star1-unseen-mass" not in unbounded and "chance-cut-as-min" in unbounded


# -- the generator -------------------------------------------------------------------------------


def test_the_same_seed_gives_the_same_chance_tree():
    params = ChanceParams(depth=3, min_star1_cutoffs=1)
    assert generate_chance(params, 7) == generate_chance(params, 7)
    assert generate_chance(params, 7) != generate_chance(params, 8)


def test_generated_chance_trees_keep_their_promises():
    params = ChanceParams(depth=3, bounds=(-5, 5), min_star1_cutoffs=2)
    for seed in range(5):
        tree = generate_chance(params, seed)
        leaves = [tree.node(p).value for p in tree.leaves()]
        assert all(-5 <= v <= 5 for v in leaves)
        readable = {Fraction(1, 2), Fraction(1, 3), Fraction(2, 3), Fraction(1, 4), Fraction(3, 4)}
        for _path, node in tree.walk():
            if node.chance is not None:
                assert set(node.chance) <= readable and sum(node.chance) == 1
        result = solve(tree, params.conventions)
        assert sum(c.chance for c in result.cutoffs) >= 2
        assert result.value == expectiminimax(tree)[""]


def test_the_readable_splits_sum_to_one():
    for width, splits in CHANCE_SPLITS.items():
        assert all(len(s) == width and sum(s) == 1 for s in splits)


def test_a_discriminating_chance_tree_tells_every_variant_apart():
    params = ChanceParams(
        depth=4,
        players=("max", "chance", "min", "chance"),
        discriminating=True,
        min_star1_cutoffs=1,
    )
    tree = generate_chance(params, 3)
    exercise = KINDS["prune"]
    answers = [exercise.project(solve(tree, params.conventions))] + [
        exercise.project(v.run(tree, params.conventions), v)
        for v in variants_for("prune", tree, params.conventions)
    ]
    assert len(answers) == len({repr(a) for a in answers})
    codes = {v.code for v in variants_for("prune", tree, params.conventions)}
    assert {"chance-as-min", "chance-cut-as-min", "star1-unseen-mass", "star1-windows"} <= codes


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"players": ("max", "min")}, "needs 'chance' among its players"),
        ({"branching": (1, 3)}, "branching must be a range within 2..4"),
        ({"bounds": (5, 5)}, "bounds must be whole numbers L < U"),
        ({"conventions": Conventions(bounds=(0, 3))}, "must lie within the conventions' bounds"),
    ],
)
def test_chance_parameters_are_checked(changes, words):
    with pytest.raises(GenerationError, match=words):
        ChanceParams(**changes)


def test_random_chance_trees_from_a_seeded_rng_match_the_oracle():
    rng = random.Random(5)
    for _ in range(20):
        tree = generate_chance(ChanceParams(depth=2, max_tries=1), rng.random())
        assert solve(tree).value == expectiminimax(tree)[""]


def test_the_kinds_that_grade_chance_trees_are_made_on_them_and_the_others_say_why():
    # Typed chance trees are refused where exercises are made (services call check_tree) by the
    # kinds that do not grade them, with the reason; the others take them.
    tree = Tree.from_nested([[1, 2], [3, 4]], "max,chance")
    taken = set()
    for name, kind in KINDS.items():
        try:
            kind.check_tree(tree)
            taken.add(name)
        except ValueError as refused:
            assert "chance nodes" in str(refused) and str(refused).rstrip(".")[-1] != ":"
    assert taken == {name for name, kind in KINDS.items() if kind.chance_trees}
    assert taken & set(built_in_kinds()) == {"prune", "values", "leaf-order", "minimax"}
    for kind in KINDS.values():
        kind.check_tree(Tree.from_nested([[1, 2], [3, 4]]))  # MAX/MIN as before
