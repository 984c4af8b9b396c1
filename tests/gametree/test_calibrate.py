"""grader/gametree/calibrate.py in detail: the rule each row passes by (at and just past each
limit), the single slips drawn for each kind (each differs from the key in exactly one place, in
the way the kind's slip is defined), and how the table counts, averages and rounds the scores.
The shipped presets against the goal: tests/cli/test_calibrate.py.

Surviving mutants of grader/gametree/calibrate.py judged equivalent (mutmut names of 2026-11-22):
- ``calibrate`` 17 and 21 (the seed None, or the default), ``calibrate_trees`` 1 and 2 (another
  default seed) and 10 (``random.Random(None)``): the seed only picks which slips are drawn, and
  every single slip is one error to every kind's score (0.8), so the table is the same.
- ``calibrate_trees`` 21, 40 and 68: ``kind.score(None, ...)``: no kind's ``score`` reads the tree.
- ``calibrate_trees`` 95: the worst score rounded to 4 places, not 3: a score is always one of
  ``error_score``'s 1, 0.8, 0.5, 0.1 and 0, which round alike.
"""

from __future__ import annotations

import math
import random

import pytest

from grader.gametree import KINDS, Conventions, GeneratorParams, Tree, solve, solver
from grader.gametree.calibrate import (
    MISCONCEPTION_CEILING,
    SLIP_FLOOR,
    Row,
    SlotError,
    calibrate,
    calibrate_slots,
    calibrate_trees,
)
from grader.gametree.generator import GenerationError, generate
from grader.gametree.kinds import normalize_pruned
from grader.gametree.variants import variants_for

# A MAX root over two MIN nodes over MAX nodes: E's 9 and all of G are pruned.
AG = Tree.from_nested([[[2, 3], [5, 9]], [[0, 1], [7, 5]]])
NO_CUTOFF = Tree.from_nested([[3, 1], [2, 8]])
# C (MIN) enters with alpha = 5 and its first leaf 3 cuts the other three: three pruned leaves.
WIDE = Tree.from_nested([[5], [3, 1, 2, 8]])


def _key(kind: str, tree: Tree) -> object:
    return KINDS[kind].analysis(tree, Conventions())[1]


def test_the_goal_is_half_for_misconceptions_and_four_fifths_for_a_slip():
    assert (MISCONCEPTION_CEILING, SLIP_FLOOR) == (0.5, 0.8)


@pytest.mark.parametrize(
    ("row", "passes"),
    [
        (Row("key", 1.0, 1.0, 5), True),
        (Row("key", 0.999, 1.0, 5), False),
        (Row("slip", 0.1, 0.8, 5), True),
        (Row("slip", 1.0, 0.799, 5), False),
        (Row("slip", 0.9, 0.9, 5), True),  # a slip is held to its worst, not to the ceiling
        (Row("no-pruning", 0.5, 1.0, 5), True),
        (Row("no-pruning", 0.501, 0.0, 5), False),
        (Row("players-swapped", 0.0, 0.0, 1), True),
    ],
)
def test_a_row_passes_by_the_rule_of_its_answer(row, passes):
    assert row.passes() is passes
    assert row.to_dict() == {
        "answer": row.answer,
        "mean": row.mean,
        "worst": row.worst,
        "trees": row.trees,
        "sd": 0.0,
        "high": 0.0,
        "worst_seed": None,
        "key_share": 0.0,
        "passes": passes,
    }


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root + ".")


@pytest.mark.parametrize(
    ("tree", "expected_roots"), [(AG, {"0.1.1", "1.1"}), (WIDE, {"1.1", "1.2", "1.3"})]
)
@pytest.mark.parametrize("seed", range(6))
def test_prune_slips_change_the_value_or_drop_one_pruned_subtree_or_add_one_leaf(
    tree, expected_roots, seed
):
    pruned, value = key = _key("prune", tree)
    roots = solve(tree).pruned  # the roots of the pruned subtrees (AG: K and G)
    assert set(roots) == expected_roots
    wrong_value, dropped, added = KINDS["prune"].slips(tree, key, random.Random(seed))
    assert wrong_value == (pruned, value + 1)
    assert dropped[1] == value
    assert dropped[0] in [frozenset(p for p in pruned if not _under(p, r)) for r in roots]
    assert added[1] == value
    assert len(pruned - dropped[0]) < len(pruned)  # the other subtrees stay marked
    visited_leaves = [p for p in tree.leaves() if p not in pruned]
    assert added[0] in [normalize_pruned(tree, set(pruned) | {leaf}) for leaf in visited_leaves]
    assert added[0] > pruned


def test_prune_slips_without_a_cutoff_have_no_subtree_to_drop():
    pruned, value = key = _key("prune", NO_CUTOFF)
    assert pruned == frozenset()
    slips = KINDS["prune"].slips(NO_CUTOFF, key, random.Random(0))
    assert len(slips) == 2
    assert slips[0] == (pruned, value + 1)
    assert (
        slips[1][1] == value
        and len(slips[1][0]) == 1
        and set(slips[1][0]) <= set(NO_CUTOFF.leaves())
    )


@pytest.mark.parametrize("kind", ["values", "minimax"])
@pytest.mark.parametrize("seed", range(4))
def test_a_value_slip_is_one_node_off_by_one(kind, seed):
    key = _key(kind, AG)
    (slip,) = KINDS[kind].slips(AG, key, random.Random(seed))
    assert slip.keys() == key.keys()
    changed = [p for p in key if slip[p] != key[p]]
    assert len(changed) == 1 and slip[changed[0]] == key[changed[0]] + 1


@pytest.mark.parametrize("seed", range(4))
def test_a_bounds_slip_moves_one_finite_alpha_up_by_one(seed):
    key = _key("bounds", AG)
    (slip,) = KINDS["bounds"].slips(AG, key, random.Random(seed))
    changed = [p for p in key if slip[p] != key[p]]
    assert len(changed) == 1
    (alpha, beta), (new_alpha, new_beta) = key[changed[0]], slip[changed[0]]
    assert new_beta == beta
    assert new_alpha == (alpha + 1 if math.isfinite(alpha) else 1)


def test_a_bounds_slip_of_an_infinite_alpha_starts_from_zero():
    tree = Tree.from_nested([3, 5], ("min", "max"))  # the MIN root: alpha stays -inf
    key = _key("bounds", tree)
    assert key == {"": (-math.inf, 3)}
    assert KINDS["bounds"].slips(tree, key, random.Random(0)) == [{"": (1, 3)}]


@pytest.mark.parametrize("seed", range(4))
def test_leaf_order_slips_forget_the_first_leaf_or_swap_two_neighbours(seed):
    key = _key("leaf-order", AG)
    assert key == ("0.0.0", "0.0.1", "0.1.0", "1.0.0", "1.0.1")
    forgot, swapped = KINDS["leaf-order"].slips(AG, key, random.Random(seed))
    assert forgot == key[1:]
    neighbours = []
    for i in range(len(key) - 1):
        order = list(key)
        order[i], order[i + 1] = order[i + 1], order[i]
        neighbours.append(tuple(order))
    assert swapped in neighbours


def test_leaf_order_slips_of_two_leaves_and_of_one():
    two = Tree.from_nested([4, 6])
    assert KINDS["leaf-order"].slips(two, ("0", "1"), random.Random(0)) == [("1",), ("1", "0")]
    one = Tree.from_nested([4])
    assert KINDS["leaf-order"].slips(one, ("0",), random.Random(0)) == [()]


def test_best_order_is_calibrated_on_the_order_as_given_and_a_slip():
    # No misconception slips: its rows are the key, a slip at the last level ordered, and the
    # answer a student gives without thinking (the order as given), each scored by the kind.
    assert KINDS["best-order"].slips(AG, _key("best-order", AG), random.Random(0)) == []
    params = GeneratorParams.from_dict({"kind": "best-order", "depth": 3, "branching": 2})
    rows = {row.answer: row for row in calibrate(params, 6)}
    assert list(rows) == ["key", "slip", "as-given"]
    assert rows["key"].mean == 1.0 and rows["key"].trees == 6
    assert 0 < rows["slip"].mean < 1 and 0 < rows["as-given"].worst < 1


@pytest.mark.parametrize("kind_name", ["prune", "values", "minimax", "bounds", "leaf-order"])
def test_the_table_counts_each_answer_on_the_trees_where_it_differs_from_the_key(kind_name):
    trees = [AG, NO_CUTOFF, Tree.from_nested([[[4, 1], [6, 2]], [[9, 3], [0, 8]]])]
    conventions = Conventions()
    kind = KINDS[kind_name]
    rows = {row.answer: row for row in calibrate_trees(kind_name, trees, conventions)}
    assert rows.pop("key") == Row("key", 1.0, 1.0, 3)
    slip = rows.pop("slip")
    assert 3 <= slip.trees <= 9 and slip.worst >= SLIP_FLOOR
    codes = {v.code: v for tree in trees for v in variants_for(kind_name, tree, conventions)}
    assert codes
    for code, variant in codes.items():
        scores = []
        for tree in trees:
            key = kind.analysis(tree, conventions)[1]
            if variant not in variants_for(kind_name, tree, conventions):
                continue
            answer = kind.project(variant.run(tree, conventions), variant)
            if answer != key:
                scores.append(kind.score(tree, key, answer)[0])
        if scores:
            row = rows.pop(code)
            assert row.trees == len(scores) and row.worst == round(min(scores), 3)
            assert row.mean == round(sum(scores) / len(scores), 3)
        else:
            assert code not in rows  # the key on every tree: not scored, no row
    assert rows == {}


def test_means_are_rounded_to_three_places():
    # On three generated trees, swapping the players scores 0.1 once and 0 twice: 0.0333...
    params = GeneratorParams.from_dict(
        {"kind": "values", "depth": 2, "branching": 3, "values": "0..20", "min_cutoffs": 1}
    )
    rows = {row.answer: row for row in calibrate(params, 3)}
    assert rows["key"] == Row("key", 1.0, 1.0, 3)
    assert rows["players-swapped"] == Row("players-swapped", 0.033, 0.0, 3)


def test_calibrate_runs_seeds_zero_to_n_of_the_generator_a_hundred_by_default():
    params = GeneratorParams.from_dict({"kind": "values", "depth": 2, "branching": 2})
    assert {row.answer: row for row in calibrate(params)}["key"].trees == 100
    trees = [generate(params, seed) for seed in range(7)]
    assert calibrate(params, 7) == calibrate_trees("values", trees, params.conventions)


def test_each_tree_is_cut_to_the_depth_limit_first():
    # B and C carry evaluations (4 and 6) that stand in for them at a depth limit of one ply.
    deep = Tree.from_nested(
        [{"eval": 4, "children": [[2, 3], [5, 9]]}, {"eval": 6, "children": [[0, 1], [7, 5]]}]
    )
    limited = Conventions(depth=1)
    rows = calibrate_trees("values", [deep], limited)
    assert rows == calibrate_trees("values", [deep.cut(1)], limited)
    assert rows != calibrate_trees("values", [deep], Conventions())  # the limit matters here
    assert {row.answer: row for row in rows}["key"] == Row("key", 1.0, 1.0, 1)


@pytest.mark.parametrize(
    "params",
    [
        {"kind": "prune", "depth": 4, "branching": "2-3", "discriminating": True},
        {
            "kind": "values",
            "depth": 4,
            "branching": "2-3",
            "values": "0..6",
            "players": "max,chance",
            "min_star1_cutoffs": 2,
            "misconception_errors": 2,
            "conventions": {"bounds": [0, 6]},
        },
    ],
)
def test_calibration_searches_no_tree_again_that_its_generator_checked(params, monkeypatch):
    """The searches the generator made of a tree it accepted (the reference's, every variant's)
    are the calibration's own: calibrating the trees adds none to generating them, and the table
    is the one searching every time gives."""
    params = GeneratorParams.from_dict(params)
    fresh = []
    run = solver._Search.run
    monkeypatch.setattr(solver._Search, "run", lambda self: fresh.append(1) or run(self))
    solver._kept_search.cache_clear()
    for seed in range(5):
        generate(params, seed)
    generated, fresh[:] = len(fresh), []
    solver._kept_search.cache_clear()
    rows = calibrate(params, 5)
    assert len(fresh) == generated > 0
    monkeypatch.setattr(solver, "KEPT_LEAVES", 0)  # nothing kept
    fresh[:] = []
    assert calibrate(params, 5) == rows
    assert len(fresh) > generated


def test_slots_calibrated_together_get_each_its_own_table_and_the_first_failure():
    values = GeneratorParams.from_dict({"kind": "values", "depth": 3, "branching": 2})
    prune = GeneratorParams.from_dict({"kind": "prune", "depth": 3, "branching": 2})
    tables = calibrate_slots([values, prune, values], 6)
    assert tables == [calibrate(values, 6), calibrate(prune, 6), calibrate(values, 6)]
    assert tables[0] != tables[1]
    never = {"kind": "values", "depth": 2, "branching": 2, "max_tries": 3}
    late = GeneratorParams.from_dict({**never, "min_cutoffs": 1})  # fails at some seed only
    first = GeneratorParams.from_dict({**never, "min_cutoffs": 3})  # fails at seed 0
    with pytest.raises(GenerationError) as alone:
        calibrate(late, 40)
    with pytest.raises(SlotError) as together:
        calibrate_slots([values, late, first], 40)
    assert together.value.slot == 1 and str(together.value) == str(alone.value)
    best = GeneratorParams.from_dict({"kind": "best-order", "depth": 3, "branching": 2})
    assert calibrate_slots([values, best], 6) == [calibrate(values, 6), calibrate(best, 6)]
