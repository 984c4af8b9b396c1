"""Grading by the exercise kinds: best-order under the exercise's own
conventions, its key, feedback, hint and parts, and its answer drawn beside the key; the step each
``first_wrong`` points the replay to; parts kept to six decimals; trees above the grading cache's
size; the registry; what every kind shares (its page module, its facts, its words and paper).

Mutants of the kinds no test here kills (docs/testing.md, "Mutation testing"), each judged
equivalent but the last, which only never ending shows:
- ``LeafOrderKind.first_wrong``: ``len(answer) > len(key)`` changed to ``>=``: the line is reached
  only when the answer's first ``len(key)`` leaves are the key's, so equal lengths mean the answer
  is the key, which ``grade`` returns before asking for ``first_wrong``.
- ``LeafOrderKind.assess``: ``1.0 if longest`` changed (always dividing, or 2.0 when empty): a
  search evaluates at least one leaf (a terminal root is its own leaf), so the key is never empty.
- ``_lcs_items``: ``before`` filled with +1 or -2, not -1: the loop sets every entry before the
  walk back reads it; -2 for "no item before" (a run's first item, or no run): the walk back
  stops at any negative index.
- ``BestOrderKind.grade``: ``replays(..., least.orders)`` changed to no best order: ``replays``
  then solves the same Optimizer for the same cut tree and conventions, and gets the same orders.
- ``_search_on_drawing``: a cutoff's ``source`` always mapped: a cutoff has no source only when a
  value passes the initial window (-inf, +inf), and tree values are finite (TreeFormatError).
- ``_roots`` and ``PruneKind.to_answer``: ``p == ""`` changed, or ``if p`` always true: the root
  is never in a pruned set (``normalize`` refuses it and a search never prunes it).
- ``PruneKind.project``: ``pruned |= cut nodes`` changed to ``pruned = cut nodes``: every pruned
  node lies below a node where a cutoff happened, and marking a node marks its subtree.
- ``ExerciseKind.grade``: ``score(None, ...)``: no kind's ``score`` reads the tree; ``min(2.0,
  ...)`` and rounding to 7 places: ``error_score`` of a whole number of errors is 1, 0.8, 0.5,
  0.1 (to 7 places too) or 0, never above 1.
- ``CountedKind.grade`` and ``CountedKind.score``: ``assess(None, ...)``: no built-in kind's
  ``assess`` reads the tree (the protocol passes it for kinds that would); ``min(2.0, ...)`` and
  rounding to 7 places, as in ``ExerciseKind.grade``.
- ``BestOrderKind.generator_problems``: ``size > MAX_DP_SIZE`` changed to ``>=``: no uniform tree
  of at most 400 leaves (any branching, depth and number of values) has exactly 1,500,000 states.
- ``BestOrderKind.scoring_words``: the share rounded to 7 places, not 6, before it is written to
  2: a share fewest/got with got <= 400 leaves is never within 5e-7 of a 2-place rounding edge
  (|200 p - (2m + 1) q| / 200 q >= 1/80,000 unless it lies on one).
- ``BestOrderKind.graded_differences``: the tree walked for "the key's ordering" cut at no depth
  rather than the exercise's: the nodes below the horizon are in neither the key nor a graded
  answer (grading refuses an order at a node the search sees as a leaf), so both read as drawn.
- ``_original_paths``: ``child_path(old, i)`` changed to ``child_path(None, i)``: the old paths
  then cycle at depth 1 and the walk never ends; mutmut ends it with SIGKILL (exit -9, which it
  calls "segfault"), which ``scripts/mutation.py`` counts as caught: not equivalent, listed
  here because no test can show it except by never ending.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, ClassVar

import pytest

from grader.gametree import KINDS, Conventions, Tree, grade, solve
from grader.gametree import kinds as kinds_module
from grader.gametree.kinds import CACHED_LEAVES, error_score
from grader.gametree.optimum import dp_size
from grader.gametree.tree import child_path
from tests.gametree._helpers import ALL_CONVENTIONS, brute_force_least_leaves
from tests.kinds import built_in_kinds

AIMA = Tree.from_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
AG = Tree.from_nested([[[2, 3], [5, 9]], [[0, 1], [7, 5]]])
TIE = Tree.from_nested([[3, 5], [3, 1], [2, 8]])


# -- best order under the exercise's conventions -----------------------------------------------


@pytest.mark.parametrize("conv", ALL_CONVENTIONS, ids=str)
@pytest.mark.parametrize("tree", [AIMA, TIE, AG], ids=["aima", "tie", "ag"])
def test_best_order_counts_leaves_under_the_exercises_conventions(tree, conv):
    given = len(solve(tree, conv).leaf_order)
    least = brute_force_least_leaves(tree, conv)
    graded = grade("best-order", tree, conv, {"order": {}})
    assert graded.key["leaves"] == least
    assert KINDS["best-order"].key(tree, conv)["leaves"] == least
    assert graded.parts == {"leaves": round(least / given, 6)}
    assert graded.score == round(least / given, 6)
    if given == least:
        assert graded.feedback == ["Correct: no ordering evaluates fewer leaves."]
        assert graded.first_wrong is None
    else:
        assert graded.feedback[0] == (
            f"Your ordering evaluates {given} leaves; the best evaluates {least}."
        )
    # The key's own order reaches the least count under these conventions.
    assert grade("best-order", tree, conv, {"order": graded.key["order"]}).score == 1.0


def test_best_order_right_to_left_on_aima():
    # Right to left, AIMA's given order evaluates all 9 leaves (test_golden); 5 is the least.
    rtl = Conventions(order="rtl")
    graded = grade("best-order", AIMA, rtl, {"order": {}})
    assert graded.feedback[0] == "Your ordering evaluates 9 leaves; the best evaluates 5."
    assert graded.parts == {"leaves": 0.555556} and graded.score == 0.555556
    assert len(graded.replays["yours"]["leaf_order"]) == 9
    assert len(graded.replays["best"]["leaf_order"]) == 5
    assert graded.search.conventions == rtl and len(graded.search.leaf_order) == 9
    # The key's orders are the order searched, written for a right-to-left search.
    key_tree = AIMA.reordered(graded.key["order"])
    assert len(solve(key_tree, rtl).leaf_order) == 5


@pytest.mark.parametrize("conv", ALL_CONVENTIONS, ids=str)
def test_the_hint_moves_the_child_it_names_to_the_front_of_the_search(conv):
    # Whatever the order convention, "search X first" means X is searched first, and the count
    # quoted is that of the answer with only that change.
    tree = Tree.from_nested(
        [
            [[-1, -5, -9], [-5, -4, -4]],
            [[6, -2, -1], [-1, -3, -7], [3, 0]],
            [[-6, -2, 1], [-3, -9], [3, 4, 3]],
        ]
    )
    answer = {"": [2, 0, 1]}
    graded = grade("best-order", tree, conv, {"order": answer})
    got = len(solve(tree.reordered(answer), conv).leaf_order)
    hint = graded.first_wrong
    assert hint is not None and hint["step"] is None
    match = re.fullmatch(
        r"At (\w+), search (\w+) first: with the rest of your order unchanged, alpha-beta then "
        r"evaluates (\d+) leaves instead of (\d+)\.",
        hint["message"],
    )
    assert match, hint["message"]
    at, first, fewer, before = match.groups()
    labels = {label: path for path, label in tree.labels().items()}
    path, child = labels[at], int(labels[first].rpartition(".")[2])
    assert hint["path"] == path and hint["label"] == at
    current = list(answer.get(path, range(len(tree.node(path).children))))
    rest = [i for i in current if i != child]
    moved = [*rest, child] if conv.order == "rtl" else [child, *rest]
    changed = {**answer, path: moved}
    reordered = tree.reordered(changed)
    result = solve(reordered, conv)
    original = kinds_module._original_paths(tree, changed)  # reordered path -> path as drawn
    first_entered = next(
        original[s.path]
        for s in result.trace
        if s.kind == "enter" and s.path and original[s.path].rpartition(".")[0] == path
    )
    assert first_entered == child_path(path, child)
    assert int(before) == got and int(fewer) == len(result.leaf_order) < got
    assert graded.feedback == [
        f"Your ordering evaluates {got} leaves; the best evaluates {graded.key['leaves']}.",
        hint["message"],
    ]


def test_the_hint_search_is_bounded():
    kind = KINDS["best-order"]
    assert kind.HINT_SEARCHES == 300
    # A root of 14 leaves answered worst-first: 13 candidate changes at the root, each one search.
    tree = Tree.from_nested([list(range(14))], "min,max")
    graded = grade("best-order", tree, Conventions(), {"order": {}})
    assert graded.key["leaves"] == 1 + 13  # MIN root over one MAX node: no cut possible


# -- the steps first_wrong points at -----------------------------------------------------------


def _step(graded):
    return graded.search.trace[graded.first_wrong["step"]]


def test_prune_points_at_the_enter_step_of_a_visited_node_marked():
    graded = grade("prune", AG, Conventions(), {"pruned": ["0.1.1", "1.1", "1.0.1"], "value": 3})
    step = _step(graded)
    assert (step.kind, step.path) == ("enter", "1.0.1")
    assert graded.first_wrong["step"] == 23  # counted by hand on the trace of A..G


def test_prune_points_at_the_cutoff_step_of_a_missed_cut():
    graded = grade("prune", AG, Conventions(), {"pruned": ["1.1"], "value": 3})
    step = _step(graded)
    assert (step.kind, step.path, step.pruned) == ("cutoff", "0.1", ("0.1.1",))
    assert graded.first_wrong["step"] == next(
        c.step for c in graded.search.cutoffs if c.path == "0.1"
    )


def test_prune_points_at_the_last_step_for_a_wrong_root_value():
    graded = grade("prune", AG, Conventions(), {"pruned": ["0.1.1", "1.1"], "value": 9})
    assert graded.first_wrong["step"] == len(graded.search.trace) - 1
    assert _step(graded).kind == "return" and _step(graded).path == ""
    assert graded.first_wrong["label"] == "A"


@pytest.mark.parametrize(("kind", "part"), [("values", "values"), ("minimax", "values")])
def test_values_point_at_the_return_step_of_the_first_wrong_node(kind, part):
    key = KINDS[kind].key(AG, Conventions())[part]
    answer = dict(key, **{"1.0": key["1.0"] + 1, "0.1": key["0.1"] + 1})
    graded = grade(kind, AG, Conventions(), {part: answer})
    step = _step(graded)
    # E (0.1) returns before F (1.0): the first wrong node in the search's order.
    assert (step.kind, step.path) == ("return", "0.1") and graded.first_wrong["label"] == "E"
    assert graded.first_wrong["message"] == graded.feedback[-1]


def test_values_for_a_pruned_node_point_nowhere_in_the_trace():
    key = KINDS["values"].key(AG, Conventions())["values"]
    graded = grade("values", AG, Conventions(), {"values": dict(key, **{"1.1": 7})})
    assert graded.first_wrong["path"] == "1.1" and graded.first_wrong["step"] is None


def test_bounds_point_at_the_return_step_of_the_first_wrong_node():
    key = KINDS["bounds"].key(AG, Conventions())["bounds"]
    graded = grade("bounds", AG, Conventions(), {"bounds": dict(key, **{"1": [3, 2]})})
    step = _step(graded)
    assert (step.kind, step.path) == ("return", "1")
    assert graded.first_wrong["message"] == (
        "C is entered with alpha = 3, beta = +∞; then beta = 1 (step 26); so when it returns "
        "alpha = 3 and beta = 1."
    )
    extra = grade("bounds", AG, Conventions(), {"bounds": dict(key, **{"1.1": [3, 1]})})
    assert extra.first_wrong["path"] == "1.1" and extra.first_wrong["step"] is None


def test_leaf_order_points_at_the_leaf_step_of_the_expected_leaf():
    key = KINDS["leaf-order"].key(AG, Conventions())["leaf_order"]
    answer = [key[0], key[2], key[1], *key[3:]]
    graded = grade("leaf-order", AG, Conventions(), {"leaf_order": answer})
    step = _step(graded)
    assert (step.kind, step.path) == ("leaf", key[1])
    assert graded.first_wrong["path"] == key[2]  # the leaf the student put there
    # One leaf short: the step of the missing leaf; one extra: no step.
    short = grade("leaf-order", AG, Conventions(), {"leaf_order": key[:-1]})
    assert (_step(short).kind, _step(short).path) == ("leaf", key[-1])
    assert short.first_wrong["path"] == key[-1]
    assert short.first_wrong["message"] == "The fifth leaf evaluated is M."
    longer = grade("leaf-order", AG, Conventions(), {"leaf_order": [*key, "1.1.0"]})
    assert longer.first_wrong["path"] == "1.1.0" and longer.first_wrong["step"] is None


# -- scores and parts to six decimals -------------------------------------------------------------


def test_parts_keep_six_decimals():
    key = KINDS["values"].key(AG, Conventions())["values"]
    extra = grade("values", AG, Conventions(), {"values": dict(key, **{"1.1": 7})})
    assert extra.parts == {"values": 0.857143}  # 6 of 7
    bounds = KINDS["bounds"].key(AG, Conventions())["bounds"]
    one = grade("bounds", AG, Conventions(), {"bounds": dict(bounds, **{"1": [3, "inf"]})})
    assert one.parts == {"bounds": 0.916667}  # 5.5 of 6
    order = KINDS["leaf-order"].key(AG, Conventions())["leaf_order"]
    with_k = grade(
        "leaf-order", AG, Conventions(), {"leaf_order": [*order[:3], "0.1.1", *order[3:]]}
    )
    assert with_k.parts == {"leaf_order": 0.833333}  # 5 of 6
    # Marking only G: J = |{1.1, 1.1.0, 1.1.1}| / |{0.1.1, 1.1, 1.1.0, 1.1.1}| = 3/4; and a third.
    prune = grade("prune", AG, Conventions(), {"pruned": ["1.1"], "value": 3})
    assert prune.parts == {"pruned": 0.75, "value": 1.0}
    third = grade("prune", TIE, Conventions(), {"pruned": ["1.1", "2.1", "0.1"], "value": 4})
    assert third.parts == {"pruned": 0.666667, "value": 0.0}
    assert third.score == error_score(2) == 0.5


def test_error_score_by_count():
    assert [error_score(e) for e in range(6)] == [1.0, 0.8, 0.5, pytest.approx(0.1), 0.0, 0.0]


def test_scores_stay_in_zero_to_one():
    graded = grade("leaf-order", AG, Conventions(), {"leaf_order": []})
    assert graded.score == 0.0 and graded.parts == {"leaf_order": 0.0}


# -- the grading cache ----------------------------------------------------------------------------


def _wide(leaves: int) -> Tree:
    return Tree.from_nested(
        [[1] * 10 for _ in range(leaves // 10)] + ([[2] * (leaves % 10)] if leaves % 10 else [])
    )


@pytest.mark.parametrize(("leaves", "cached"), [(CACHED_LEAVES, 1), (CACHED_LEAVES + 1, 0)])
def test_trees_above_the_cache_size_are_graded_but_not_kept(leaves, cached):
    assert CACHED_LEAVES == 2000
    tree = _wide(leaves)
    assert tree.leaf_count() == leaves
    key = KINDS["prune"].key(tree, Conventions())
    graded = grade("prune", tree, Conventions(), key)
    assert graded.score == 1.0
    wrong = grade("prune", tree, Conventions(), {"pruned": [], "value": key["value"] + 1})
    assert wrong.score == 0.0 and wrong.parts["value"] == 0.0
    assert kinds_module._analysis.cache_info().currsize == cached
    assert kinds_module._variant_answers.cache_info().currsize == cached


# -- the hint's search order and its budget, exactly --------------------------------------------

# Root MAX over B = [5] and C = [9, 8, 7, 6, 1]: searching B first, C cuts at once when its 1 is
# searched first (1 <= alpha = 5); in the order given C evaluates all five leaves.
BUDGET_TREE = Tree.from_nested([[5], [9, 8, 7, 6, 1]])
BUDGET_ANSWER = {"": [0, 1], "1": [0, 1, 2, 3, 4]}
HINT_AT_C = (
    "At C, search I first: with the rest of your order unchanged, alpha-beta then evaluates 2 "
    "leaves instead of 6."
)


def test_the_hint_is_found_after_leaves_were_evaluated() -> None:
    # C is entered after B's leaf: the walk over the trace goes on past leaf and return steps.
    graded = grade("best-order", BUDGET_TREE, Conventions(), {"order": BUDGET_ANSWER})
    assert graded.feedback == ["Your ordering evaluates 6 leaves; the best evaluates 2.", HINT_AT_C]
    assert graded.first_wrong == {"path": "1", "label": "C", "step": None, "message": HINT_AT_C}


@pytest.mark.parametrize(("budget", "found"), [(4, False), (5, True)])
def test_the_hint_budget_counts_each_candidate_search_once(
    monkeypatch: pytest.MonkeyPatch, budget: int, found: bool
) -> None:
    # The candidates: at A, C first (1 search); B has one child (none); at C, each of I..L's
    # siblings after the first searched (4 searches): the hint needs exactly 5 searches.
    monkeypatch.setattr(KINDS["best-order"], "HINT_SEARCHES", budget)
    graded = grade("best-order", BUDGET_TREE, Conventions(), {"order": BUDGET_ANSWER})
    assert graded.first_wrong == (
        {"path": "1", "label": "C", "step": None, "message": HINT_AT_C} if found else None
    )


def test_right_to_left_the_child_searched_last_can_be_the_hint() -> None:
    # Right to left C's order [0, 1, 2, 3, 4] searches 9, 8, 7, 6 and its 1 (E's first child,
    # path 1.0) last: moving it to the front of the search is the one change that helps.
    tree = Tree.from_nested([[5], [1, 6, 7, 8, 9]])
    answer = {"": [1, 0], "1": [0, 1, 2, 3, 4]}  # right to left: B first, then C
    graded = grade("best-order", tree, Conventions(order="rtl"), {"order": answer})
    assert graded.first_wrong["path"] == "1"
    assert graded.first_wrong["message"] == (
        "At C, search E first: with the rest of your order unchanged, alpha-beta then evaluates 2 "
        "leaves instead of 6."
    )


def test_the_hint_follows_the_search_order_of_the_exercises_conventions() -> None:
    # Right to left the search enters C before B, and both have a helpful change: the hint is
    # C's, the first node the search enters where one change helps.
    tree = Tree.from_nested([[[6, 3], [1, 7]], [[0, 6], [6, 9]]])
    rtl = Conventions(order="rtl")
    entered = [s.path for s in solve(tree, rtl).trace if s.kind == "enter" and len(s.path) == 1]
    assert entered == ["1", "0"]
    graded = grade("best-order", tree, rtl, {"order": {}})
    assert graded.first_wrong["path"] == "1" and graded.first_wrong["label"] == "C"
    assert graded.first_wrong["message"] == (
        "At C, search F first: with the rest of your order unchanged, alpha-beta then evaluates 7 "
        "leaves instead of 8."
    )


# -- the best-order kind's key, analysis and tree check ------------------------------------------


def test_the_best_order_key_is_written_for_the_exercises_conventions() -> None:
    kind = KINDS["best-order"]
    ltr, rtl = kind.key(AIMA, Conventions()), kind.key(AIMA, Conventions(order="rtl"))
    assert ltr["leaves"] == rtl["leaves"] == 5
    # The same search order, written for a right-to-left search: each list reversed.
    assert rtl["order"] == {p: order[::-1] for p, order in ltr["order"].items()}
    assert grade("best-order", AIMA, Conventions(order="rtl"), {"order": {}}).key == rtl


def test_the_best_order_key_under_a_depth_limit_orders_the_tree_the_search_sees() -> None:
    # Depth 1: B and C are leaves holding their evaluations, so the root's two children are all
    # there is to order (2 leaves); without the limit the least is 4 of 6 leaves.
    tree = Tree.from_nested(
        [{"eval": 1, "children": [3, 12, 8]}, {"eval": 7, "children": [2, 4, 6]}]
    )
    assert KINDS["best-order"].key(tree, Conventions(depth=1)) == {
        "order": {"": [0, 1]},
        "leaves": 2,
    }
    assert KINDS["best-order"].key(tree.cut(None), Conventions())["leaves"] == 4


def test_the_best_order_analysis_is_the_search_of_the_tree_as_given() -> None:
    rtl = Conventions(order="rtl")
    search, key = KINDS["best-order"].analysis(AIMA, rtl)
    assert key is None
    assert search.conventions == rtl
    assert search.leaf_order == ("2.2", "2.1", "2.0", "1.2", "1.1", "1.0", "0.2", "0.1", "0.0")


def test_the_best_order_tree_check_refuses_what_the_optimum_cannot_handle() -> None:
    KINDS["best-order"].check_tree(AIMA)
    with pytest.raises(ValueError, match="at most 14 children"):
        KINDS["best-order"].check_tree(Tree.from_nested([list(range(15))]))


# -- the stored grade --------------------------------------------------------------------------


def test_a_grade_is_stored_with_every_field_a_student_sees() -> None:
    kind = KINDS["values"]
    variant, canonical = next(
        (v, a)
        for v, a in kind.variant_answers(AG, Conventions())
        if a != kind.analysis(AG, Conventions())[1]
    )
    graded = grade("values", AG, Conventions(), kind.to_answer(canonical))
    assert graded.diagnosis == variant.code and graded.diagnosis_text
    assert graded.to_dict() == {
        "score": graded.score,
        "parts": graded.parts,
        "feedback": graded.feedback,
        "diagnosis": variant.code,
        "diagnosis_text": graded.diagnosis_text,
        "first_wrong": graded.first_wrong,
        "scoring": graded.scoring,
    }
    assert graded.first_wrong is not None and 0 <= graded.score < 1
    assert graded.scoring["errors"]  # a wrong answer has errors to explain its score


def test_replays_of_an_answer_alone_search_the_best_order_too() -> None:
    # Called with the answer only (the replay page), the best order is found here.
    replays = KINDS["best-order"].replays(AIMA, Conventions(), {"": [2, 1, 0]})
    assert len(replays["yours"]["leaf_order"]) == len(
        solve(AIMA.reordered({"": [2, 1, 0]}), Conventions()).leaf_order
    )
    assert len(replays["best"]["leaf_order"]) == 5


def test_replays_under_a_depth_limit_search_the_tree_the_search_sees() -> None:
    tree = Tree.from_nested(
        [{"eval": 1, "children": [3, 12, 8]}, {"eval": 7, "children": [2, 4, 6]}]
    )
    replays = KINDS["best-order"].replays(tree, Conventions(depth=1), {"": [1, 0]})
    assert replays["yours"]["leaf_order"] == ["1", "0"]  # B and C are the horizon's leaves
    assert replays["best"]["leaf_order"] == ["0", "1"]


def _drawn_paths(tree: Tree, reordered: Tree) -> dict[str, str]:
    """Each path of ``reordered`` to the path of the same node in ``tree``, found from the leaf
    values (distinct in the tree used): a node is where its first leaf is."""
    where = {node.value: path for path, node in tree.walk() if node.is_leaf}
    mapping = {}
    for path, node in reordered.walk():
        first = node
        depth = 0
        while not first.is_leaf:
            first, depth = first.children[0], depth + 1
        drawn = where[first.value]
        mapping[path] = ".".join(drawn.split(".")[: len(drawn.split(".")) - depth]) if path else ""
    return mapping


def test_a_replay_is_the_search_of_the_reordered_tree_with_every_path_as_drawn() -> None:
    # Distinct leaves, three levels reordered: cutoffs with a source, a best move, steps that
    # prune; every path, label and source is the drawn tree's.
    tree = Tree.from_nested([[[2, 3], [5, 9]], [[0, 1], [7, 4]], [[6, 8], [10, 11]]])
    order = {"": [2, 0, 1], "1": [1, 0], "0.1": [1, 0]}
    replay = KINDS["best-order"].replays(tree, Conventions(), order)["yours"]
    reordered = tree.reordered(order)
    data = solve(reordered, Conventions()).to_dict()
    drawn, labels = _drawn_paths(tree, reordered), tree.labels()
    assert drawn["0"] == "2" and drawn["2.0"] == "1.1"
    assert replay["best_move"] == int(drawn[str(data["best_move"])]) == 2
    assert replay["leaf_order"] == [drawn[p] for p in data["leaf_order"]]
    assert replay["pruned"] == [drawn[p] for p in data["pruned"]]
    assert replay["pruned_all"] == [drawn[p] for p in data["pruned_all"]]
    assert replay["cutoffs"] == [
        {
            **c,
            "path": drawn[c["path"]],
            "label": labels[drawn[c["path"]]],
            "pruned": [drawn[p] for p in c["pruned"]],
            "source": None if c["source"] is None else drawn[c["source"]],
        }
        for c in data["cutoffs"]
    ]
    assert [c["source"] for c in replay["cutoffs"]] == ["2", "", ""]
    assert replay["nodes"] == {
        drawn[p]: {
            **entry,
            "label": labels[drawn[p]],
            **({"best": drawn[entry["best"]]} if "best" in entry else {}),
        }
        for p, entry in data["nodes"].items()
    }
    # The best line read off the replay is the drawn tree's (the root's best child is C).
    assert replay["nodes"][""]["best"] == "2"
    assert replay["trace"] == [
        {
            **s,
            "path": drawn[s["path"]],
            **({"pruned": [drawn[p] for p in s["pruned"]]} if "pruned" in s else {}),
        }
        for s in data["trace"]
    ]
    assert any("pruned" in s for s in replay["trace"])
    assert {k: replay[k] for k in ("value", "conventions", "players")} == {
        k: data[k] for k in ("value", "conventions", "players")
    }


def test_a_replay_of_a_tree_whose_root_is_terminal_has_no_best_move() -> None:
    tree = Tree.from_nested({"eval": 3, "children": [1, 2], "terminal": True})
    replays = KINDS["best-order"].replays(tree, Conventions(), {})
    assert replays["yours"]["best_move"] is None and replays["yours"]["value"] == 3


# -- bounds: missing and extra entries, an empty key ---------------------------------------------


def test_bounds_count_every_missing_node_after_a_wrong_one() -> None:
    # B..G in the order of the key: D's alpha wrong (1 error), E missing (2 errors) and the rest
    # right: 3 errors, 4.5 of 6 nodes right.
    key = KINDS["bounds"].key(AG, Conventions())["bounds"]
    assert list(key) == ["0.0", "0.1", "0", "1.0", "1", ""]
    answer = dict(key, **{"0.0": [99, key["0.0"][1]]})
    del answer["0.1"]
    graded = grade("bounds", AG, Conventions(), {"bounds": answer})
    assert graded.score == round(error_score(3), 6) == 0.1 and graded.parts == {"bounds": 0.75}


def test_bounds_given_for_a_pruned_node_count_against_the_share_and_say_why() -> None:
    key = KINDS["bounds"].key(AG, Conventions())["bounds"]
    extra = grade("bounds", AG, Conventions(), {"bounds": dict(key, **{"1.1": [3, 1]})})
    assert extra.parts == {"bounds": 0.857143}  # 6 of 7
    assert extra.first_wrong["message"] == (
        "G is never evaluated: At C, alpha = 3 >= beta = 1, so C's second child, G, is never "
        "evaluated."
    )


def test_a_tree_with_no_internal_node_to_bound_scores_whole() -> None:
    # A terminal root is scored where it stands: no node has bounds, and the empty answer is right.
    tree = Tree.from_nested({"eval": 3, "children": [1, 2], "terminal": True})
    graded = grade("bounds", tree, Conventions(), {"bounds": {}})
    assert graded.score == 1.0 and graded.parts == {"bounds": 1.0}


def test_an_extra_leaf_in_the_order_says_why_it_is_never_evaluated() -> None:
    key = KINDS["leaf-order"].key(AG, Conventions())["leaf_order"]
    longer = grade("leaf-order", AG, Conventions(), {"leaf_order": [*key, "1.1.0"]})
    assert longer.first_wrong["message"] == (
        "N is never evaluated: At C, alpha = 3 >= beta = 1, so C's second child, G, is never "
        "evaluated."
    )
    assert longer.feedback[-1] == longer.first_wrong["message"]


# -- values and bounds answers read, and refused in words ------------------------------------------


def _refusal(kind: str, answer: object) -> str:
    with pytest.raises(kinds_module.UngradableAnswer) as refused:
        KINDS[kind].normalize(AG, answer)
    return str(refused.value)


def test_values_left_empty_are_skipped_and_zero_is_kept() -> None:
    # None and "" are the two ways a form leaves a node empty; 0 is a value like any other.
    read = KINDS["values"].normalize(AG, {"values": {"": 0, "0": None, "1": "", "0.0": "-inf"}})
    assert read == {"": 0, "0.0": -math.inf}


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"values": [3]}, "'values' must map paths to numbers"),
        ({"values": {"0.9": 2}}, "no node at path '0.9' in 'values'"),
        (
            {"values": {"0.0.0": 2}},
            "'0.0.0' in 'values' is a leaf; give values for internal nodes only",
        ),
        (
            {"values": {"0": "x"}},
            "the value at '0' must be a number, a fraction such as 14/3 (or inf, -inf), got 'x'",
        ),
    ],
)
def test_values_refused_say_which_entry_and_why(answer: object, message: str) -> None:
    assert _refusal("values", answer) == message


def test_bounds_left_empty_are_skipped_and_the_rest_still_read() -> None:
    # An empty node (None) before others: the ones after it are read all the same, a pair's first
    # number as alpha and its second as beta, as a list or a tuple.
    read = KINDS["bounds"].normalize(
        AG, {"bounds": {"": None, "0": [3, "inf"], "0.0": (-2, 5), "1": [0, "-inf"]}}
    )
    assert read == {"0": (3, math.inf), "0.0": (-2, 5), "1": (0, -math.inf)}


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"bounds": [[3, 4]]}, "'bounds' must map paths to [alpha, beta]"),
        ({"bounds": {"0.9": [3, 4]}}, "no node at path '0.9' in 'bounds'"),
        (
            {"bounds": {"0.0.1": [3, 4]}},
            "'0.0.1' in 'bounds' is a leaf; give values for internal nodes only",
        ),
        ({"bounds": {"0": "34"}}, "the bounds at '0' must be [alpha, beta]"),
        ({"bounds": {"0": {"alpha": 3, "beta": 4}}}, "the bounds at '0' must be [alpha, beta]"),
        ({"bounds": {"0": [3, 4, 5]}}, "the bounds at '0' must be [alpha, beta]"),
        ({"bounds": {"0": [3]}}, "the bounds at '0' must be [alpha, beta]"),
        (
            {"bounds": {"0": ["up", 4]}},
            "alpha at '0' must be a number, a fraction such as 14/3 (or inf, -inf), got 'up'",
        ),
        (
            {"bounds": {"0": [3, "up"]}},
            "beta at '0' must be a number, a fraction such as 14/3 (or inf, -inf), got 'up'",
        ),
    ],
)
def test_bounds_refused_say_which_entry_and_why(answer: object, message: str) -> None:
    assert _refusal("bounds", answer) == message


def test_a_claimed_leaf_count_is_a_whole_number_of_leaves() -> None:
    # "leaves" is the key's own field, read back as a claim: 0 is a count, -1 and 2.0 are not.
    assert KINDS["best-order"].normalize(AG, {"order": {"": [1, 0]}, "leaves": 0}) == {"": [1, 0]}
    for claim in (-1, 2.0, "4", True):
        assert _refusal("best-order", {"order": {}, "leaves": claim}) == (
            "'leaves', when given, is a whole number of leaves"
        )


@pytest.mark.parametrize(
    ("kind", "answer", "message"),
    [
        ("best-order", {"order": [[1, 0]]}, "'order' must map paths to lists of child indices"),
        ("best-order", {"order": {"7": [0, 1]}}, "no node at path '7' in 'order'"),
        ("leaf-order", {"leaf_order": "0.0.0"}, "'leaf_order' must be a list of leaf paths"),
        # AG's leaves are three deep: not a path, no node, an internal node.
        ("leaf-order", {"leaf_order": [0]}, "0 in 'leaf_order' is not a leaf of this tree"),
        (
            "leaf-order",
            {"leaf_order": ["2.0.0"]},
            "'2.0.0' in 'leaf_order' is not a leaf of this tree",
        ),
        ("leaf-order", {"leaf_order": ["0.0"]}, "'0.0' in 'leaf_order' is not a leaf of this tree"),
        (
            "leaf-order",
            {"leaf_order": ["0.0.0", "0.0.0"]},
            "a leaf is listed twice in 'leaf_order'",
        ),
    ],
)
def test_orders_refused_say_why(kind: str, answer: object, message: str) -> None:
    assert _refusal(kind, answer) == message


# -- answers in words, beside the key ----------------------------------------------------------


def test_an_empty_answer_in_words_for_each_kind() -> None:
    labels: dict[str, str] = {}
    assert KINDS["values"].describe({}, labels) == "none"
    assert KINDS["minimax"].describe({}, labels) == "none"
    assert KINDS["bounds"].describe({}, labels) == "none"
    assert KINDS["leaf-order"].describe({}, labels) == ""
    assert KINDS["best-order"].describe({}, labels) == "as given"
    assert KINDS["prune"].describe({"value": 3}, labels) == "pruned: none; root value 3"


def test_answers_in_words_name_nodes_by_label_shallow_first() -> None:
    labels = {"": "A", "0": "B", "1": "C", "0.0": "D", "1.1": "AA"}
    # Values shallow first: C (depth 1) before D (depth 2), though "0.0" < "1" as text; a node
    # with no label is named by its path, the root "root".
    values = {"0.0": 2, "1": 5, "0": 3, "0.1": 1}
    assert KINDS["values"].describe({"values": values}, labels) == "B = 3, C = 5, D = 2, 0.1 = 1"
    assert KINDS["values"].describe({"values": {"": 4}}, {}) == "root = 4"
    assert KINDS["prune"].describe({"pruned": ["1.1", "0.1"], "value": 3}, labels) == (
        "pruned: AA, 0.1; root value 3"  # shorter labels first, not "0.1" < "AA"
    )
    assert KINDS["bounds"].describe({"bounds": {"0": [3, "inf"], "": [-1, 9]}}, labels) == (
        "A: α -1, β 9; B: α 3, β inf"
    )


# -- best-order's grade and replays, and minimax, under the exercise's conventions ----------------


def test_a_best_order_grade_under_a_depth_limit_grades_the_tree_the_search_sees() -> None:
    tree = Tree.from_nested(
        [{"eval": 1, "children": [3, 12, 8]}, {"eval": 7, "children": [2, 4, 6]}]
    )
    graded = grade("best-order", tree, Conventions(depth=1), {"order": {}})
    # 2 leaves as given, and 2 at best: the root's two children are all the search sees.
    assert graded.key == {"order": {"": [0, 1]}, "leaves": 2}
    assert graded.score == 1.0 and graded.parts == {"leaves": 1.0}


def test_a_correct_best_order_keeps_its_search_and_replays() -> None:
    key = KINDS["best-order"].key(AIMA, Conventions())
    graded = grade("best-order", AIMA, Conventions(), {"order": key["order"]})
    assert graded.score == 1.0
    assert graded.search is not None
    assert graded.search.leaf_order == solve(AIMA, Conventions()).leaf_order
    assert graded.replays is not None
    assert len(graded.replays["yours"]["leaf_order"]) == len(graded.replays["best"]["leaf_order"])
    assert len(graded.replays["best"]["leaf_order"]) == 5


def test_replays_of_an_answer_alone_find_the_best_order_for_the_exercises_conventions() -> None:
    rtl = Conventions(order="rtl")
    replays = KINDS["best-order"].replays(AIMA, rtl, {})
    assert len(replays["yours"]["leaf_order"]) == 9  # AIMA as given, right to left
    assert len(replays["best"]["leaf_order"]) == 5  # the least right to left, not left to right


def test_minimax_points_at_the_first_wrong_node_its_search_returns_from() -> None:
    key = KINDS["minimax"].key(AG, Conventions())["values"]
    answer = {"values": dict(key, **{"0.0": 99, "1.1": 99})}
    ltr = grade("minimax", AG, Conventions(), answer)
    rtl = grade("minimax", AG, Conventions(order="rtl"), answer)
    assert ltr.first_wrong is not None and ltr.first_wrong["path"] == "0.0"
    # Right to left the search returns from G (1.1) before it reaches D (0.0).
    assert rtl.first_wrong is not None and rtl.first_wrong["path"] == "1.1"


def test_the_hint_at_a_node_the_answer_reordered_starts_from_the_answers_order() -> None:
    # C's children searched G, F: the hint is to search F (C's first child as drawn) first again,
    # which only the answer's own order at C shows is not already first.
    graded = grade("best-order", AG, Conventions(), {"order": {"1": [1, 0]}})
    assert graded.feedback == [
        "Your ordering evaluates 7 leaves; the best evaluates 5.",
        "At C, search F first: with the rest of your order unchanged, alpha-beta then evaluates 5 "
        "leaves instead of 7.",
    ]


def test_pruned_nodes_none_of_them_right_share_nothing() -> None:
    # AIMA prunes F and G (1.1, 1.2); marking only E (0.0) shares no node with the key: 0 of 3.
    graded = grade("prune", AIMA, Conventions(), {"pruned": ["0.0"], "value": 3})
    assert graded.parts == {"pruned": 0.0, "value": 1.0}
    assert graded.score == round(error_score(3), 6)


def test_numbers_typed_as_text_are_read_by_the_grammar_and_refusals_quoted_to_forty_characters() -> (
    None
):
    # The answer grammar reads a whole number typed as text ("3", "−3"); 50 digits are past its
    # 30, refused and quoted to forty characters.
    assert KINDS["values"].normalize(AG, {"values": {"0": "3", "1": "−3"}}) == {"0": 3, "1": -3}
    assert _refusal("values", {"values": {"0": "7" * 50}}) == (
        f"the value at '0' must be a number, a fraction such as 14/3 (or inf, -inf), got '{'7' * 40}'"
    )


DEPTH_TREE = Tree.from_nested(
    [{"eval": 1, "children": [3, 12, 8]}, {"eval": 7, "children": [2, 4, 6]}]
)


def test_under_a_depth_limit_an_answer_is_read_on_the_tree_the_search_sees() -> None:
    # Depth 1: B and C are leaves of the exercise, so a value given for B is a value for a leaf.
    depth1 = Conventions(depth=1)
    assert KINDS["values"].key(DEPTH_TREE, depth1) == {"values": {"": 7}}
    assert grade("values", DEPTH_TREE, depth1, {"values": {"": 7}}).score == 1.0
    with pytest.raises(kinds_module.UngradableAnswer, match="'0' in 'values' is a leaf"):
        grade("values", DEPTH_TREE, depth1, {"values": {"": 7, "0": 1}})


@pytest.mark.parametrize(
    "kind", ["prune", "values", "bounds", "leaf-order", "best-order", "minimax"]
)
def test_the_search_a_replay_shows_is_of_the_tree_the_depth_limit_leaves(kind: str) -> None:
    # By hand. Depth 1: B and C are leaves holding their evaluations 1 and 7, so A takes 7
    # after visiting its two children alone. No limit: B = min(3, 12, 8) = 3, then C's first
    # leaf 2 <= 3 cuts C off under alpha-beta (minimax, which prunes nothing, reads all six
    # leaves and C = 2), and A's value is 3.
    limited = KINDS[kind].search(DEPTH_TREE, Conventions(depth=1))
    assert (limited.value, limited.leaf_order, limited.pruned) == (7, ("0", "1"), ())
    whole = KINDS[kind].search(DEPTH_TREE, Conventions())
    read = ("0.0", "0.1", "0.2", "1.0")
    if KINDS[kind].prunes:
        assert (whole.value, whole.leaf_order, whole.pruned) == (3, read, ("1.1", "1.2"))
    else:
        assert (whole.value, whole.leaf_order, whole.pruned) == (3, (*read, "1.1", "1.2"), ())


class _OwnKind(kinds_module.ExerciseKind):
    """A kind that keeps the protocol's own search and analysis (every built-in kind has its
    own), never registered."""

    name = "own-search"


def test_the_protocols_search_is_alpha_beta_on_the_tree_the_depth_limit_leaves() -> None:
    # The same tree and hand-worked figures as above: at depth 1, A reads its two children's
    # evaluations 1 and 7; with no limit, C is cut off after its first leaf 2 <= 3.
    own = _OwnKind()
    limited = own.search(DEPTH_TREE, Conventions(depth=1))
    assert (limited.value, limited.leaf_order, limited.pruned) == (7, ("0", "1"), ())
    whole = own.search(DEPTH_TREE, Conventions())
    assert (whole.value, whole.leaf_order, whole.pruned) == (
        3,
        ("0.0", "0.1", "0.2", "1.0"),
        ("1.1", "1.2"),
    )
    # Its analysis is that search, with no key read off it.
    search, key = own.analysis(DEPTH_TREE, Conventions(depth=1))
    assert key is None
    assert (search.value, search.leaf_order) == (7, ("0", "1"))


def test_misconception_answers_are_those_of_the_tree_the_search_sees() -> None:
    depth1 = Conventions(depth=1)
    for kind in ("prune", "values", "bounds", "leaf-order"):
        assert KINDS[kind].variant_answers(DEPTH_TREE, depth1) == (
            KINDS[kind].variant_answers(DEPTH_TREE.cut(1), depth1)
        )


def test_the_pruned_key_lists_subtrees_in_the_order_of_the_tree() -> None:
    # C (a MIN node) is cut off after its first child: its 11 other children are pruned, listed
    # 1.1, 1.2, ..., 1.10, 1.11 (by child number, not as text, where "1.10" < "1.2").
    tree = Tree.from_nested([5, [1, *([9] * 11)]])
    key = KINDS["prune"].key(tree, Conventions())
    assert key == {"pruned": [f"1.{i}" for i in range(1, 12)], "value": 5}


@pytest.mark.parametrize(
    ("kind", "answer", "message"),
    [
        ("values", [3], "a values answer is a JSON object, got list"),
        ("values", {"values": {}, "zz": 1}, "a values answer has only 'values'; 'zz' is not one"),
        (
            "prune",
            {"pruned": [], "value": 3, "b": 0, 2: 0},
            "a prune answer has only 'pruned', 'value'; '2' is not one",
        ),  # keys of any type
    ],
)
def test_answers_of_the_wrong_shape_are_refused_in_words(
    kind: str, answer: object, message: str
) -> None:
    assert _refusal(kind, answer) == message


def test_an_unknown_kind_is_refused_with_the_kinds_there_are() -> None:
    with pytest.raises(kinds_module.UngradableAnswer) as refused:
        grade("nope", AG, Conventions(), {})
    assert str(refused.value) == f"unknown exercise kind 'nope' ({', '.join(KINDS)})"


AG_NODES = [
    "0",
    "1",
    "0.0",
    "0.1",
    "1.0",
    "1.1",
    *(f"{a}.{b}.{c}" for a in "01" for b in "01" for c in "01"),
    "",
]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"pruned": "1.1", "value": 3}, "'pruned' must be a list of paths"),
        (
            {"pruned": [*AG_NODES, "0"], "value": 3},
            "'pruned' lists more paths than the tree has nodes",
        ),
        # Every node once (as many paths as nodes, so read): the root is the one refused.
        ({"pruned": AG_NODES, "value": 3}, "the root is always searched; it cannot be pruned"),
        (
            {"pruned": [], "value": "x"},
            "'value' must be a number, a fraction such as 14/3 (or inf, -inf), got 'x'",
        ),
        (
            {"pruned": [], "value": 3, "z" * 50: 1},
            f"a prune answer has only 'pruned', 'value'; '{'z' * 40}' is not one",
        ),
    ],
)
def test_prune_answers_refused_say_why(answer: object, message: str) -> None:
    assert len(AG_NODES) == AG.node_count()
    assert _refusal("prune", answer) == message


def test_a_grade_keeps_the_key_and_names_no_misconception_it_did_not_find() -> None:
    key = KINDS["values"].key(AG, Conventions())
    right = grade("values", AG, Conventions(), key)
    assert right.score == 1.0 and right.key == key
    slip = grade("values", AG, Conventions(), {"values": dict(key["values"], **{"": 99})})
    assert slip.key == key
    assert slip.diagnosis is None and slip.diagnosis_text is None


# -- best-order: the answer beside the key (graded_differences, answer_replays) -----------------
# AIMA left to right by hand: as given, B's three leaves, C cut after H (2 <= 3), D's 14, 5, 2:
# 7 leaves. At best 5: B needs all three, C and D each cut after one leaf of 2 (H, and M first).


def _beside_the_key(answer: object, first_wrong: object = None, conv: Conventions | None = None):
    conv = conv or Conventions()
    kind = KINDS["best-order"]
    solution = {
        "key": kind.key(AIMA, conv),
        "replays": kind.answer_replays(AIMA, conv, answer),
    }
    return kind.graded_differences(AIMA, conv, answer, first_wrong, solution)


def test_the_keys_ordering_written_with_only_the_nodes_it_reorders_differs_nowhere() -> None:
    key = KINDS["best-order"].key(AIMA, Conventions())["order"]
    as_drawn = {p: o for p, o in key.items() if o != list(range(len(o)))}
    assert as_drawn and len(as_drawn) < len(key)  # the key reorders some nodes, not all
    for order in (key, as_drawn):
        assert _beside_the_key({"order": order}) == {
            "differ": [],
            "legend": "The answer is the key's ordering: alpha-beta evaluates 5 leaves, "
            "the fewest possible.",
        }


def test_a_key_written_with_only_the_nodes_it_reorders_matches_the_answer_written_out() -> None:
    kind, conv = KINDS["best-order"], Conventions()
    key = kind.key(AIMA, conv)
    short = {p: o for p, o in key["order"].items() if o != list(range(len(o)))}
    answer = {"order": key["order"]}
    solution = {
        "key": {"order": short, "leaves": 5},
        "replays": kind.answer_replays(AIMA, conv, answer),
    }
    assert kind.graded_differences(AIMA, conv, answer, None, solution)["legend"] == (
        "The answer is the key's ordering: alpha-beta evaluates 5 leaves, the fewest possible."
    )


def test_an_answer_with_no_order_on_a_tree_drawn_in_a_best_order_is_the_keys_ordering() -> None:
    # B's three leaves, then C and D each cut after their first leaf (2 <= 3): 5 leaves as drawn,
    # the least; the key written as the tree as drawn, and the answer giving only a count.
    kind, conv = KINDS["best-order"], Conventions()
    drawn = Tree.from_nested([[3, 12, 8], [2, 4, 6], [2, 14, 5]])
    answer = {"leaves": 5}
    solution = {
        "key": {"order": {}, "leaves": 5},
        "replays": kind.replays(drawn, conv, {}),
    }
    assert kind.graded_differences(drawn, conv, answer, None, solution) == {
        "differ": [],
        "legend": "The answer is the key's ordering: alpha-beta evaluates 5 leaves, "
        "the fewest possible.",
    }


def test_another_best_ordering_differs_nowhere_and_says_it_is_as_good() -> None:
    # B (MIN, window -inf..inf) evaluates its three leaves in any order: B's children reversed
    # is another ordering of 5 leaves.
    key = KINDS["best-order"].key(AIMA, Conventions())["order"]
    other = {**key, "0": list(reversed(key["0"]))}
    assert _beside_the_key({"order": other}) == {
        "differ": [],
        "legend": "Another best ordering: alpha-beta evaluates 5 leaves with it, as few as "
        "with the key's.",
    }


def test_a_worse_ordering_differs_at_the_node_its_grade_blames() -> None:
    # As given, 7 leaves; the hint (found by hand above): search M (2) first at D, then 5.
    graded = grade("best-order", AIMA, Conventions(), {"order": {}})
    why = (
        "At D, search M first: with the rest of your order unchanged, alpha-beta then "
        "evaluates 5 leaves instead of 7."
    )
    assert graded.first_wrong == {"path": "2", "label": "D", "step": None, "message": why}
    counts = "The answer's ordering evaluates 7 leaves; the best evaluates 5."
    assert _beside_the_key({"order": {}}, graded.first_wrong) == {
        "differ": ["2"],
        "legend": f"{counts} The grade blames D: {why}",
        "counts": counts,
        "blamed": "D",
        "why": why,
    }
    # A blamed node stored without its message: the legend names it, with no reason.
    assert _beside_the_key({"order": {}}, {"path": "2"})["legend"] == (
        f"{counts} The grade blames D: "
    )


@pytest.mark.parametrize("first_wrong", [None, "2", {"path": "9"}, {"message": "x"}])
def test_a_worse_ordering_whose_grade_blames_no_node_of_the_tree_blames_none(
    first_wrong: object,
) -> None:
    assert _beside_the_key({"order": {}}, first_wrong) == {
        "differ": [],
        "legend": "The answer's ordering evaluates 7 leaves; the best evaluates 5. "
        "The grade blames no single node.",
    }


@pytest.mark.parametrize("answer", [None, ["order"], {"order": {"9": [0]}}, {"order": {"": [0]}}])
def test_an_answer_whose_ordering_cannot_be_searched_has_no_replays_and_says_so(
    answer: object,
) -> None:
    # Stored before its shape was checked: no node 9, or an order that is not one of A's children.
    assert KINDS["best-order"].answer_replays(AIMA, Conventions(), answer) is None
    assert _beside_the_key(answer) == {
        "differ": [],
        "legend": "The answer's ordering cannot be searched on this tree.",
    }


def test_an_answer_not_an_object_cannot_be_searched_even_beside_replays() -> None:
    kind, conv = KINDS["best-order"], Conventions()
    solution = {"key": kind.key(AIMA, conv), "replays": kind.replays(AIMA, conv, {})}
    assert kind.graded_differences(AIMA, conv, ["order"], None, solution) == {
        "differ": [],
        "legend": "The answer's ordering cannot be searched on this tree.",
    }


def test_an_answers_replays_are_its_ordering_and_the_best_searched() -> None:
    replays = KINDS["best-order"].answer_replays(AIMA, Conventions(), {"order": {"2": [2, 1, 0]}})
    assert replays is not None
    # D reversed: B's 3, C cut after H, D cut after M: 5 leaves, in the drawn tree's paths.
    assert replays["yours"]["leaf_order"] == ["0.0", "0.1", "0.2", "1.0", "2.2"]
    assert len(replays["best"]["leaf_order"]) == 5
    # No order given is the tree as drawn: 7 leaves.
    as_given = KINDS["best-order"].answer_replays(AIMA, Conventions(), {})
    assert as_given is not None and len(as_given["yours"]["leaf_order"]) == 7


def test_a_best_order_on_paper_writes_each_reordered_nodes_children_by_label() -> None:
    # A box at each internal node (A, B, C, D), three labels of up to 3 characters wide.
    kind = KINDS["best-order"]
    paper = kind.paper(AIMA, {"order": {"": [2, 0, 1], "2": [2, 1, 0]}, "leaves": 5})
    assert paper.boxes.paths == ("", "0", "1", "2") and paper.boxes.chars == 9
    assert paper.marks == {"": "D B C", "2": "M L K"}
    assert paper.lines == (("Leaves evaluated", "5"),)
    assert paper.instruction == (
        "Write in the box of each node you reorder the labels of its children in the order "
        "alpha-beta should search them; then the number of leaves your ordering evaluates."
    )
    # A blank sheet, an answer that claims no count, and one that gives only the count.
    assert kind.paper(AIMA).marks == {} and kind.paper(AIMA).lines == (("Leaves evaluated", ""),)
    assert kind.paper(AIMA, {"order": {}}).lines == (("Leaves evaluated", ""),)
    assert kind.paper(AIMA, {"leaves": 7}).marks == {}
    # The widest node sets the box: four children, four labels.
    assert kind.paper(Tree.from_nested([[1, 2], [3, 4, 5, 6]])).boxes.chars == 12


def test_only_best_order_estimates_the_optimums_work_before_grading() -> None:
    # The estimate stored with an exercise is the optimum's own bound (optimum.dp_size).
    assert KINDS["best-order"].optimum_states(AIMA) == dp_size(AIMA) > 0
    assert [k for k in KINDS if KINDS[k].optimum_states(AIMA) is not None] == ["best-order"]


# -- the registry: a kind is a registered class ---------------------------------------------------


class _CoreOnlyKind(kinds_module.ExerciseKind):
    """A kind only these tests register: it names one misconception variant."""

    name = "core-only"
    answer_shape: ClassVar[dict[str, kinds_module.AnswerPart]] = {
        "guess": kinds_module.AnswerPart("count")
    }
    variants = ("no-pruning",)


def test_a_registered_kind_joins_the_registry_last_with_its_variants_and_leaves_it_whole() -> None:
    from grader.gametree import VARIANTS

    before = list(KINDS)
    assert kinds_module.register(_CoreOnlyKind) is _CoreOnlyKind  # a class decorator
    try:
        assert list(KINDS) == [*before, "core-only"]
        assert isinstance(KINDS["core-only"], _CoreOnlyKind)
        assert kinds_module.ANSWER_KEYS["core-only"] == ("guess",)
        assert len(kinds_module.ANSWER_KEYS) == len(before) + 1
        assert "core-only" in VARIANTS["no-pruning"].kinds
        assert "core-only" not in VARIANTS["ties-flipped"].kinds
        with pytest.raises(ValueError) as twice:
            kinds_module.register(_CoreOnlyKind)
        assert str(twice.value) == "an exercise kind named 'core-only' is registered already"
    finally:
        kinds_module.unregister("core-only")
    assert list(KINDS) == before and "core-only" not in kinds_module.ANSWER_KEYS
    assert "core-only" not in VARIANTS["no-pruning"].kinds


def test_the_default_kind_is_the_first_registered_and_every_kind_has_its_answer_keys() -> None:
    assert kinds_module.default_kind() == next(iter(KINDS)) == "prune"
    assert list(kinds_module.ANSWER_KEYS) == list(KINDS)
    assert len(kinds_module.ANSWER_KEYS) == len(KINDS)
    # The package's own come first, in BUILT_IN's order; a plugin's after them.
    assert list(built_in_kinds()) == list(KINDS)[: len(kinds_module.BUILT_IN)]
    assert kinds_module.ANSWER_KEYS["prune"] == ("pruned", "value")
    assert kinds_module.ANSWER_KEYS["best-order"] == ("order", "leaves")


# -- what every kind shares (base): its page module, its facts, its words ----------------------


def test_each_kind_gives_examples_a_wrong_answer_first_then_a_right_one() -> None:
    for name, kind in KINDS.items():
        examples = kind.examples()
        assert [e.name for e in examples][:2] == ["wrong", "right"], name
        assert len({e.name for e in examples}) == len(examples), name
        for example in examples:
            graded = kind.grade(example.tree, Conventions(), example.answer)
            if example.score is not None:
                assert graded.score == example.score, (name, example.name)
            assert (graded.score == 1) == (example.name != "wrong"), (name, example.name)
            assert all(example.tree.has(p) for p in example.wrong_at), (name, example.name)


def test_only_the_kinds_with_misconception_variants_calibrate() -> None:
    assert {name for name, kind in built_in_kinds().items() if kind.calibrates} == {
        "prune",
        "values",
        "bounds",
        "leaf-order",
        "minimax",
    }
    assert all(kind.calibrates == bool(kind.variants) for kind in KINDS.values())


def test_a_kind_that_counts_no_errors_is_refused_where_errors_are_counted() -> None:
    assert kinds_module.counted(KINDS["values"]) is KINDS["values"]
    with pytest.raises(TypeError) as refused:
        kinds_module.counted(KINDS["best-order"])
    assert str(refused.value) == "a best-order exercise counts no errors against a projected key"


def test_a_kind_that_does_not_grade_chance_trees_refuses_one_with_its_reason() -> None:
    tree = Tree.from_nested([[1, 2], [3, 4]], "max,chance")
    with pytest.raises(ValueError) as refused:
        KINDS["bounds"].check_tree(tree)
    assert str(refused.value) == (
        "a bounds exercise is not made on a tree with chance nodes: alpha and beta below a "
        "chance node are Star1's windows, which this kind does not grade"
    )


def test_on_a_chance_tree_the_conventions_say_how_values_are_written_only_where_answers_hold_them() -> (
    None
):
    tree = Tree.from_nested([[1, 2], [3, 4]], "max,chance")
    average = (
        " A chance node (a circle) takes the weighted average of its children: each child's "
        "value times the probability on its edge, summed."
    )
    unbounded = (
        " No bounds on the leaf values are stated, so nothing is cut at or below a chance node "
        "before all its children are seen (Star1 needs both bounds)."
    )
    exact = (
        " Values are exact: write a fraction (14/3) or its decimal rounded to 2 places (4.67); "
        "4.7 or 4.666 is not 14/3."
    )
    conv = Conventions()
    plain = conv.describe(with_values=False)
    assert KINDS["leaf-order"].conventions_words(conv, tree) == plain + average + unbounded
    assert KINDS["values"].conventions_words(conv, tree) == (
        conv.describe() + average + unbounded + exact
    )
    bounded = Conventions(bounds=(0, 10))
    assert KINDS["values"].conventions_words(bounded, tree) == bounded.describe() + average + exact
    # On a tree without chance nodes, the conventions alone.
    assert KINDS["values"].conventions_words(conv, AIMA) == conv.describe()
    assert KINDS["values"].conventions_words(conv) == conv.describe()


def test_values_on_paper_are_written_as_a_hand_writes_them() -> None:
    # No ".0" on a whole number, infinity as ∞, a blank entry left blank.
    paper = KINDS["values"].paper(AIMA, {"values": {"": 3.0, "0": "inf", "1": -2, "2": None}})
    assert paper.marks == {"": "3", "0": "∞", "1": "-2", "2": ""}
    bounds = KINDS["bounds"].paper(AIMA, {"bounds": {"": ["-inf", 2.5], "1": ["", 0]}})
    assert bounds.marks == {"": "-∞\n2.5", "1": "\n0"}


def test_two_answers_differ_at_the_nodes_where_their_entries_differ() -> None:
    values = KINDS["values"]
    assert values.distance({"": 3, "0": 2}, {"": 3, "0": 1, "1": 5}) == 2
    assert values.distance({"": 3}, {"": 3}) == 0
    assert values.distance(3, 3) == 0 and values.distance(3, 4) == 1


def test_leaf_orders_differ_at_each_place_and_orders_of_another_form_as_a_whole() -> None:
    leaf_order = KINDS["leaf-order"]
    # E F G against E G: the second and third places differ.
    assert leaf_order.distance(("0.0", "0.1", "0.2"), ("0.0", "0.2")) == 2
    # Not both canonical (tuples): equal or not, one place at most.
    assert leaf_order.distance(["0.0", "0.1"], ["0.0", "0.1"]) == 0
    assert leaf_order.distance(("0.0", "0.1"), ["0.0", "0.1"]) == 1
    assert leaf_order.distance(("0.0", "0.1"), None) == 1


def test_the_longest_common_subsequence_keeps_a_longer_run_found_before_a_shorter_one() -> None:
    # By hand: a d e f is the one common subsequence of 4 (a b f is 3); b's later, lower position
    # must not drop the run a d e that f extends.
    assert kinds_module._lcs_items(tuple("abcdef"), tuple("adebf")) == set("adef")
    assert kinds_module._lcs_items(tuple("abc"), tuple("xyz")) == set()


def test_an_answer_in_words_names_a_node_without_a_label_by_its_path_and_the_root_as_root() -> None:
    assert KINDS["values"].describe({"values": {"": 3, "0": 2}}, {}) == "root = 3, 0 = 2"


@pytest.mark.parametrize(
    "answer",
    [
        {"bounds": [["0", [1, 2]]]},  # no mapping: AttributeError
        {"bounds": {"": 3}},  # a pair that is a number: TypeError
        {"bounds": {"": [1]}},  # a pair of one: IndexError
    ],
)
def test_an_answer_of_another_shape_is_described_as_its_json(answer: object) -> None:
    assert KINDS["bounds"].describe(answer, AIMA.labels()) == json.dumps(answer)


def test_four_hundred_leaves_are_within_the_best_order_limit_and_the_work_refuses_them() -> None:
    # 20^2 is exactly the 400 leaves allowed; its ordering is too much work. By hand
    # (optimum.uniform_dp_size, 2 values so at most 3^2 = 9 windows): the root 1 x 1 x 20 x 2^20,
    # its 20 children 20 x 9 x 20 x 2^20, the 400 leaves 400 x 9: 3,795,848,720 states.
    assert KINDS["best-order"].generator_problems(20, 2, 2) == [
        "finding the best ordering of 20^2 leaves is too much work (3,795,848,720 states, at "
        "most 1,500,000): less branching or depth"
    ]
    assert KINDS["best-order"].generator_problems(3, 3, 10) == []


def test_the_leaf_order_on_paper_numbers_the_leaves_evaluated() -> None:
    # AIMA's key: E F G H, then K L M (I and J pruned): numbered 1..7, I and J left blank.
    kind = KINDS["leaf-order"]
    paper = kind.paper(AIMA, kind.key(AIMA, Conventions()))
    assert paper.boxes.paths == tuple(AIMA.leaves()) and paper.boxes.chars == 2
    assert paper.marks == {
        "0.0": "1",
        "0.1": "2",
        "0.2": "3",
        "1.0": "4",
        "2.0": "5",
        "2.1": "6",
        "2.2": "7",
    }
    assert paper.instruction == (
        "Number the leaves in the order alpha-beta evaluates them (1 for the first); leave "
        "the boxes of pruned leaves empty."
    )
    assert kind.paper(AIMA).marks == {}


def test_pruned_nodes_on_paper_are_crossed_and_struck_and_the_root_value_written_below() -> None:
    # AIMA's key: I and J (1.1, 1.2) pruned, root value 3. Every node but the root has a box.
    kind = KINDS["prune"]
    paper = kind.paper(AIMA, kind.key(AIMA, Conventions()))
    assert paper.boxes.paths == tuple(p for p, _ in AIMA.walk() if p) and paper.boxes.chars == 1
    assert paper.marks == {"1.1": "✗", "1.2": "✗"}
    assert paper.struck == ("1.1", "1.2")
    assert paper.lines == (("Root value", "3"),)
    assert paper.instruction == (
        "Cross (✗) the box of every node alpha-beta never visits: crossing the root of a "
        "pruned subtree is enough. Write the root's value below the tree."
    )
    blank = kind.paper(AIMA)
    assert (blank.marks, blank.struck, blank.lines) == ({}, (), (("Root value", ""),))


@pytest.mark.parametrize("kind", list(KINDS))
def test_an_answer_stored_in_another_shape_writes_nothing_on_paper(kind: str) -> None:
    # Stored answers are never refused: one without this kind's parts marks no box.
    paper = KINDS[kind].paper(AIMA, {"guess": 3})
    assert paper.marks == {} and paper.struck == ()
    assert all(written == "" for _, written in paper.lines)


def test_values_and_bounds_on_paper_have_a_box_at_each_internal_node() -> None:
    values, bounds = KINDS["values"].paper(AIMA), KINDS["bounds"].paper(AIMA)
    assert values.boxes.paths == bounds.boxes.paths == ("", "0", "1", "2")
    assert bounds.boxes.rows == ("α", "β") and values.marks == bounds.marks == {}
    assert values.instruction == (
        "Write in its box the value each internal node returns; leave the boxes of pruned "
        "nodes empty."
    )
    assert bounds.instruction == (
        "Write alpha (α) and beta (β) at each internal node when alpha-beta returns from it "
        "(∞ for infinity); leave the boxes of pruned nodes empty."
    )


def test_nodes_are_listed_by_child_number_not_as_text() -> None:
    from grader.gametree.kinds.base import in_order

    # As text "1.10" < "1.2"; in the tree the root's first child comes first, then 1.2, 1.10.
    assert in_order({"1.10", "1.2", "0", "1"}) == ["0", "1", "1.2", "1.10"]


def test_the_key_is_explained_by_no_misconception_even_one_that_gives_it() -> None:
    # By hand: B = min(1, 2) = 1, then C's first leaf 3 > 1 and its second 4: nothing is cut,
    # so plain minimax ("no-pruning") marks what the key marks.
    tree = Tree.from_nested([[1, 2], [3, 4]])
    kind, conventions = KINDS["prune"], Conventions()
    key = kind.analysis(tree, conventions)[1]
    assert any(answer == key for _, answer in kind.variant_answers(tree, conventions))
    assert kind.explaining(tree, conventions, key) == []


def test_a_grade_keeps_the_errors_it_counted() -> None:
    # AIMA's tree: C is cut off after its first leaf 2, so its leaves 1.1 and 1.2 are pruned;
    # an answer marking nothing misses both.
    graded = grade("prune", AIMA, Conventions(), {"pruned": [], "value": 3})
    missed = sorted(path for paths in graded.scoring["errors"].values() for path in paths)
    assert missed == ["1.1", "1.2"]
    right = grade("prune", AIMA, Conventions(), {"pruned": ["1.1", "1.2"], "value": 3})
    assert (right.score, right.scoring) == (1.0, {"errors": {}})  # stored: no error counted
    assert KINDS["prune"].scoring_words({}, None).startswith("No error: score 1, by the rule")


def test_the_counted_template_grades_by_its_own_score() -> None:
    """A kind that counts errors is graded by its `score` (the one scoring rule calibration and
    the generator read too), never by a copy of it inside `grade`."""
    values = KINDS["values"]

    class Halved(type(values)):  # type: ignore[misc]
        def score(self, tree: Tree, key: Any, answer: Any) -> Any:
            found = super().score(tree, key, answer)
            return found._replace(score=found.score / 2)

    wrong = values.examples()[0]
    graded = values.grade(wrong.tree, Conventions(), wrong.answer)
    assert 0 < graded.score < 1
    halved = Halved().grade(wrong.tree, Conventions(), wrong.answer)
    assert halved.score == graded.score / 2
    assert halved.scoring == graded.scoring
    canonical = values.normalize(wrong.tree, wrong.answer)
    key = values.analysis(wrong.tree, Conventions())[1]
    score, parts, errors = values.score(wrong.tree, key, canonical)
    assert (score, parts) == (graded.score, graded.parts)
    assert {what: paths for what, paths in errors.items() if paths} == graded.scoring["errors"]
