"""Trees within a band of difficulty: the generator meets a band by rejection within its bounded
tries, refuses an impossible band in words before drawing a tree, and says which constraint most
candidates failed when a possible one is not met; calibration reports the spread of what each
tree asks and of each answer's score."""

from __future__ import annotations

import pytest

from grader.gametree import Conventions, GenerationError, GeneratorParams, Order, Tree, generate
from grader.gametree.calibrate import (
    Calibration,
    calibrate_tables,
    spread,
    tree_measures,
)
from grader.gametree.generator import ChanceParams, generate_chance
from grader.gametree.kinds import KINDS
from grader.gametree.solver import solve
from tests.gametree._helpers import Draws

BASE = {"depth": 4, "branching": "2-3", "values": "-9..9", "min_cutoffs": 3}


@pytest.mark.parametrize("seed", range(4))
def test_a_band_is_met_on_every_tree(seed):
    params = GeneratorParams.from_dict(
        {
            **BASE,
            "kind": "values",
            "max_cutoffs": 8,
            "pruned_nodes": "8-10",
            "leaves_evaluated": "22-26",
            "answers": "18-24",
            "never_key": ["no-pruning", "leaves-only"],
            "misconception_errors": 2,
            "max_tries": 10_000,
        }
    )
    tree = generate(params, seed)
    result = solve(tree, params.conventions)
    assert len(result.cutoffs) <= 8
    assert 8 <= len(result.pruned) <= 10
    assert 22 <= len(result.leaf_order) <= 26
    assert 18 <= tree_measures("values", tree, params.conventions)["answers"] <= 24
    kind = KINDS["values"]
    key = kind.analysis(tree, params.conventions)[1]
    for variant, answer in kind.variant_answers(tree, params.conventions):
        if variant.code in ("no-pruning", "leaves-only"):
            assert answer != key
        if answer != key:  # two errors or more: at most 0.5
            assert kind.score(tree, key, answer)[0] <= 0.5


def test_a_chance_tree_meets_its_band_too():
    params = ChanceParams(
        depth=3,
        branching=(2, 3),
        bounds=(0, 6),
        kind="prune",
        min_cutoffs=2,
        pruned_nodes=(2, 4),
        leaves_evaluated=(8, 14),
        max_tries=10_000,
    )
    for seed in range(3):
        result = solve(generate_chance(params, seed), params.conventions)
        assert 2 <= len(result.pruned) <= 4 and 8 <= len(result.leaf_order) <= 14


def test_no_band_stores_and_draws_as_before():
    params = GeneratorParams.from_dict(BASE)
    stored = params.to_dict()
    for name in ("max_cutoffs", "pruned_nodes", "answers", "never_key", "misconception_errors"):
        assert name not in stored
    banded = GeneratorParams.from_dict({**BASE, "pruned_nodes": "1-40", "max_cutoffs": 9})
    assert banded.to_dict()["pruned_nodes"] == [1, 40] and banded.to_dict()["max_cutoffs"] == 9
    assert GeneratorParams.from_dict(banded.to_dict()) == banded
    # No cutoff at all is a band of its own, kept.
    assert GeneratorParams(max_cutoffs=0).to_dict()["max_cutoffs"] == 0
    with pytest.raises(GenerationError, match="a tree without cutoffs prunes no node"):
        GeneratorParams(max_cutoffs=0, pruned_nodes=(1, 2))
    # A band every tree meets draws the same trees as no band: the candidates are the same.
    wide = GeneratorParams.from_dict({**BASE, "pruned_nodes": "0-80", "leaves_evaluated": "0-81"})
    assert generate(wide, 5) == generate(params, 5)


@pytest.mark.parametrize(
    ("band", "words"),
    [
        ({"max_cutoffs": 2}, "at most 2 cutoffs is fewer than the 3 asked for (min_cutoffs)"),
        ({"pruned_nodes": "1-2"}, "each of the 3 cutoffs asked for (min_cutoffs) prunes a node"),
        ({"pruned_nodes": "5-3"}, "pruned_nodes must be lo-hi, got (5, 3)"),
        ({"pruned_nodes": "200-210"}, "fewer than the 200 to mark (pruned_nodes)"),
        ({"leaves_evaluated": "82-90"}, "at most 81 leaves, fewer than the 82 to evaluate"),
        (
            {"leaves_evaluated": "1-6"},
            "alpha-beta evaluates at least 7 leaves of a tree of depth 4",
        ),
        ({"never_key": ["no-such"]}, "never_key: unknown misconception 'no-such'"),
        ({"never_key": ["values-convention"]}, "never changes an answer of kind prune"),
        (
            {"kind": "best-order", "misconception_errors": 2},
            "best-order does not count errors against misconceptions",
        ),
        (
            {"kind": "best-order", "depth": 3, "never_key": ["no-pruning"]},
            "the answer it can keep from giving the key is as-given, not 'no-pruning'",
        ),
        (
            {"kind": "best-order", "depth": 3, "branching": "1-1", "never_key": ["as-given"]},
            "with one child a node there is no order to choose",
        ),
        (
            {"kind": "best-order", "depth": 3, "answers": "40-41"},
            "13 nodes with children, fewer than the 40 nodes to order asked (answers)",
        ),
        ({"misconception_errors": 5}, "misconception_errors must be 0..4, got 5"),
    ],
)
def test_an_impossible_band_is_refused_in_words(band, words):
    with pytest.raises(GenerationError) as refused:
        GeneratorParams.from_dict({**BASE, **band})
    assert words in str(refused.value)


def test_a_band_no_tree_met_in_the_tries_names_what_failed_most():
    params = GeneratorParams.from_dict({**BASE, "pruned_nodes": "30-31", "max_tries": 50})
    with pytest.raises(GenerationError) as refused:
        generate(params, 1)
    assert str(refused.value).startswith("no tree met the constraints in 50 tries")
    assert "(most often: nodes to mark pruned outside 30-31, " in str(refused.value)


def test_calibration_reports_the_spread_of_each_measure_and_answer():
    trees = [Tree.from_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]]), Tree.from_nested([[1, 2]])]
    table = Calibration("prune", Conventions())
    for name, tree in zip(("aima", "tiny"), trees, strict=True):
        table.add(tree, name)
    spreads = {s.measure: s for s in table.spreads()}
    # AIMA's tree: 2 nodes pruned (C's last two leaves), 7 leaves; the tiny one none, 2 leaves.
    assert (spreads["pruned"].low, spreads["pruned"].high) == (0, 2)
    assert (spreads["pruned"].low_seed, spreads["pruned"].high_seed) == ("tiny", "aima")
    assert spreads["pruned"].mean == 1.0 and spreads["pruned"].sd == 1.0
    assert (spreads["leaves"].low, spreads["leaves"].high, spreads["leaves"].sd) == (2, 7, 2.5)
    assert spreads["answers"].high == 3  # I and J to mark, and the root's value
    rows = {r.answer: r for r in table.rows()}
    # No pruning on the tiny tree is the key: full marks by luck on one tree of two.
    assert rows["no-pruning"].key_share == 0.5 and rows["no-pruning"].trees == 1
    assert rows["no-pruning"].worst_seed == "aima"
    assert rows["key"].sd == 0.0 and rows["key"].key_share == 0.0


def test_spread_is_the_population_deviation_with_the_seeds_of_its_ends():
    measured = spread("leaves", [(0, 10), (1, 14), (2, 12)])
    assert (measured.mean, measured.low, measured.high) == (12.0, 10, 14)
    assert (measured.low_seed, measured.high_seed) == (0, 1)
    assert measured.sd == round((8 / 3) ** 0.5, 3)


def test_calibrate_tables_keeps_each_slots_spread_beside_its_rows():
    params = GeneratorParams.from_dict({**BASE, "kind": "prune", "pruned_nodes": "8-10"})
    (table,) = calibrate_tables([params], 3)
    assert table.trees == 3
    pruned = next(s for s in table.spreads() if s.measure == "pruned")
    assert 8 <= pruned.low <= pruned.high <= 10 and pruned.low_seed in range(3)


BEST_ORDER = {
    "kind": "best-order",
    "depth": 3,
    "branching": "2-3",
    "values": "-20..20",
    "answers": "7-8",
    "leaves_evaluated": "17-20",
    "never_key": ["as-given"],
    "max_tries": 10_000,
}


@pytest.mark.parametrize("seed", range(4))
def test_a_best_order_band_is_met_on_every_tree(seed):
    # Best-order has no misconception variants: its band bounds the nodes to order and keeps
    # the order as given (the answer given blind) from being a best one.
    params = GeneratorParams.from_dict(BEST_ORDER)
    tree = generate(params, seed)
    kind = KINDS["best-order"]
    assert 17 <= len(solve(tree, params.conventions).leaf_order) <= 20
    assert 7 <= tree_measures("best-order", tree, params.conventions)["answers"] <= 8
    # Graded as a student's answer, leaving every node as given earns less than full marks.
    assert kind.grade(tree, params.conventions, {"order": {}}).score < 1.0


def test_best_order_blind_facts_count_the_nodes_to_order_and_score_the_order_as_given():
    # AIMA's tree: MIN nodes B, C, D under MAX A. The best order searches B (value 3) first;
    # then C's first leaf 2 and D's leaf 2 each cut: A, B, C and D have children to order.
    tree = Tree.from_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    facts = KINDS["best-order"].blind_facts(tree, Conventions())
    fewest = KINDS["best-order"].key(tree, Conventions())["leaves"]
    assert fewest == 5 and facts.answers == 4
    assert facts.scores == {"as-given": round(5 / 7, 6)}  # as given, alpha-beta evaluates 7
    # Already in a best order: the blind answer gives the key.
    best = Tree.from_nested([[3, 12, 8], [2, 4, 6], [2, 5, 14]])
    assert KINDS["best-order"].blind_facts(best, Conventions()).scores["as-given"] == 1.0


# AIMA's tree with D's leaves 2, 1, 14: every node is already in a best order (5 leaves). A
# slip swaps the first two children searched at one of B, C and D (the deepest nodes to order),
# drawn in the order the search enters them.
SLIP_TREE = [[3, 12, 8], [2, 4, 6], [2, 1, 14]]


def test_a_best_order_slip_swaps_the_first_two_children_searched_at_a_deepest_node():
    kind = KINDS["best-order"]
    tree = Tree.from_nested(SLIP_TREE)
    key = kind.key(tree, Conventions())
    assert key == {
        "order": {"": [0, 1, 2], "0": [0, 1, 2], "1": [0, 1, 2], "2": [0, 1, 2]},
        "leaves": 5,
    }
    facts = {draw: kind.blind_facts(tree, Conventions(), Draws(draw)) for draw in (0.0, 0.5, 0.99)}
    assert {f.answers for f in facts.values()} == {4}
    assert {f.scores["as-given"] for f in facts.values()} == {1.0}
    # B (drawn first): 12 before 3, and B still evaluates its three leaves: another best order.
    # C: 4 (above A's 3) before 2, then 2 cuts: 6 leaves, 5/6. D: 1 before 2, either cuts.
    assert [f.slip for f in facts.values()] == [None, round(5 / 6, 6), None]
    assert kind.blind_facts(tree, Conventions()).slip is None  # no source, no slip


def test_right_to_left_a_slip_swaps_the_last_two_children_listed():
    # The same tree mirrored, searched right to left: B' ("2"), then D' ("0"), then C' ("1").
    kind = KINDS["best-order"]
    tree = Tree.from_nested([list(reversed(node)) for node in reversed(SLIP_TREE)])
    rtl = Conventions(order=Order.RTL)
    assert kind.key(tree, rtl) == {
        "order": {"": [1, 0, 2], "2": [2, 1, 0], "0": [2, 0, 1], "1": [1, 0, 2]},
        "leaves": 5,
    }
    facts = [kind.blind_facts(tree, rtl, Draws(draw)) for draw in (0.0, 0.5, 0.99)]
    assert {(f.answers, f.scores["as-given"]) for f in facts} == {(4, 1.0)}
    # B': 12 before 8, both above 3: another best order. D': 14 before 1 (the key's 1 first),
    # then 1 cuts: 6 leaves. C': 6 before 2 (the key's 2 first), then 2 cuts: 6 leaves.
    assert [f.slip for f in facts] == [None, round(5 / 6, 6), round(5 / 6, 6)]


def test_best_order_blind_facts_are_of_the_tree_the_depth_limit_leaves():
    # At depth 1, A's two children are leaves (evaluations 1 and 7): one node to order, and
    # either order evaluates both.
    kind = KINDS["best-order"]
    tree = Tree.from_nested(
        [{"eval": 1, "children": [3, 12, 8]}, {"eval": 7, "children": [2, 4, 6]}]
    )
    assert kind.blind_facts(tree, Conventions(depth=1), Draws(0.0)) == (1, {"as-given": 1.0}, None)


def test_best_order_calibrates_against_the_order_as_given():
    params = GeneratorParams.from_dict({**BEST_ORDER, "answers": None, "never_key": []})
    (table,) = calibrate_tables([params], 6)
    rows = {r.answer: r for r in table.rows()}
    assert set(rows) <= {"key", "slip", "as-given"} and {"key", "as-given"} <= set(rows)
    assert rows["key"].mean == 1.0
    assert rows["as-given"].trees + round(rows["as-given"].key_share * 6) == 6
    assert {s.measure for s in table.spreads()} == {"answers", "cutoffs", "pruned", "leaves"}


def test_a_best_order_band_is_held_to_the_request_cpu_budget():
    # The same bounded CPU budget as every band: a deadline already passed refuses in words.
    import time

    params = GeneratorParams.from_dict(BEST_ORDER)
    with pytest.raises(GenerationError, match="no tree met the constraints within the time"):
        generate(params, 0, deadline=time.thread_time() - 1)
