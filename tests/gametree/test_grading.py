"""Grading: answer keys, partial credit (the formulas at the top of grader/gametree/kinds.py),
normalization, ungradable answers, feedback, and each misconception on a hand-made example."""

from __future__ import annotations

import math

import pytest

from grader.gametree import KINDS, Conventions, Tree, UngradableAnswer, grade
from grader.gametree.kinds import normalize_pruned

AIMA = Tree.from_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
AG = Tree.from_nested([[[2, 3], [5, 9]], [[0, 1], [7, 5]]])
DEEP = Tree.from_nested([5, [[[3, 9], 7], 4, 6]])
TIE = Tree.from_nested([[3, 5], [3, 1], [2, 8]])
AIMA_CONV = Conventions()

# A..G by hand (see test_golden.py): pruned K (0.1.1) and G (1.1); values D=3, E=5, B=3, F=1,
# C=1, A=3; bounds at return as below; leaves H I J L M.
AG_KEYS = {
    "prune": {"pruned": ["0.1.1", "1.1"], "value": 3},
    "values": {"values": {"": 3, "0": 3, "0.0": 3, "0.1": 5, "1": 1, "1.0": 1}},
    "bounds": {
        "bounds": {
            "": [3, "inf"],
            "0": ["-inf", 3],
            "0.0": [3, "inf"],
            "0.1": [5, 3],
            "1": [3, 1],
            "1.0": [3, "inf"],
        }
    },
    "leaf-order": {"leaf_order": ["0.0.0", "0.0.1", "0.1.0", "1.0.0", "1.0.1"]},
    # plain minimax: D=3, E=9, F=1, G=7, B=3, C=1, A=3
    "minimax": {"values": {"": 3, "0": 3, "1": 1, "0.0": 3, "0.1": 9, "1.0": 1, "1.1": 7}},
}


def ag(kind: str, answer, conv: Conventions | None = None):
    return grade(kind, AG, conv or Conventions(), answer)


# -- keys ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(AG_KEYS))
def test_keys_by_hand(kind):
    assert KINDS[kind].key(AG, Conventions()) == AG_KEYS[kind]


@pytest.mark.parametrize("kind", sorted(AG_KEYS))
def test_the_key_scores_one_with_every_part_one(kind):
    result = ag(kind, AG_KEYS[kind])
    assert result.score == 1.0
    assert result.parts == {part: 1.0 for part in KINDS[kind].parts}
    assert result.feedback == ["Correct."]
    assert result.diagnosis is None and result.first_wrong is None


def test_best_order_key_and_scores():
    # AIMA: b = 3, d = 2, so no ordering evaluates fewer than 3 + 3 - 1 = 5 leaves. The given order
    # evaluates 7 (see test_golden). Searching D's 2 first makes D cost one leaf: 5 in all.
    key = KINDS["best-order"].key(AIMA, AIMA_CONV)
    assert key["leaves"] == 5
    assert grade("best-order", AIMA, AIMA_CONV, key).score == 1.0
    best = grade("best-order", AIMA, AIMA_CONV, {"order": {"2": [2, 0, 1]}})
    assert best.score == 1.0 and best.parts == {"leaves": 1.0}
    given = grade("best-order", AIMA, AIMA_CONV, {"order": {}})
    assert given.score == pytest.approx(5 / 7, abs=1e-6)
    assert given.feedback[0] == "Your ordering evaluates 7 leaves; the best evaluates 5."
    # searching the 14 first at D and C's 2 last costs 3 + 3 + 3 = 9 leaves
    worst = grade("best-order", AIMA, AIMA_CONV, {"order": {"1": [1, 2, 0], "2": [0, 1, 2]}})
    assert worst.score == pytest.approx(5 / 9, abs=1e-6)


# -- partial credit ------------------------------------------------------------------------------


def test_prune_one_missed_node():
    # K = {0.1.1, 1.1, 1.1.0, 1.1.1}; the answer misses K: J = 3/4; value right.
    result = ag("prune", {"pruned": ["1.1"], "value": 3})
    assert result.parts == {"pruned": 0.75, "value": 1.0}
    assert result.score == pytest.approx(0.8)  # one error: one slip
    assert result.first_wrong["path"] == "0.1"
    assert result.first_wrong["label"] == "E"
    assert result.first_wrong["message"] == (
        "At E, alpha = 5 >= beta = 3, so E's second child, K, is never evaluated."
    )
    assert result.feedback == [result.first_wrong["message"]]


def test_prune_one_extra_mark():
    # M (1.0.1) is searched; marking it too: J = 4/5.
    result = ag("prune", {"pruned": ["0.1.1", "1.1", "1.0.1"], "value": 3})
    assert result.score == pytest.approx(0.8)  # one extra subtree: one slip
    assert result.first_wrong["label"] == "M"
    assert result.first_wrong["message"] == (
        "M is searched, not pruned: when F reaches it, alpha = 3 and beta = +∞, "
        "so no cutoff has happened yet."
    )


def test_prune_wrong_value_only():
    result = ag("prune", {"pruned": ["0.1.1", "1.1"], "value": 5})
    assert result.parts == {"pruned": 1.0, "value": 0.0}
    assert result.score == pytest.approx(0.8)
    assert result.first_wrong["path"] == ""
    assert result.first_wrong["message"].startswith("The root's value is 3:")


def test_prune_nothing_marked_on_a_tree_with_nothing_pruned():
    # rtl on A..G prunes nothing (test_golden): both sets empty gives J = 1.
    result = ag("prune", {"pruned": [], "value": 3}, Conventions(order="rtl"))
    assert result.score == 1.0


def test_values_partial_credit():
    wrong_c = dict(AG_KEYS["values"]["values"], **{"1": 3})
    assert ag("values", {"values": wrong_c}).score == pytest.approx(0.8)  # one wrong value
    # a value for the pruned G counts against: one error
    extra = dict(AG_KEYS["values"]["values"], **{"1.1": 7})
    result = ag("values", {"values": extra})
    assert result.score == pytest.approx(0.8)
    assert result.parts == {"values": pytest.approx(6 / 7, abs=1e-6)}
    assert result.first_wrong["label"] == "G"
    assert result.first_wrong["message"].startswith("G is never evaluated: At C,")
    # leaving a node empty ("" or None) is the same as leaving it out
    blank = dict(AG_KEYS["values"]["values"], **{"1": "", "1.0": None})
    assert ag("values", {"values": blank}).score == pytest.approx(0.5)  # two errors


def test_bounds_partial_credit_half_a_point_each():
    bounds = dict(AG_KEYS["bounds"]["bounds"], **{"1": [3, "inf"]})  # beta at C wrong
    result = ag("bounds", {"bounds": bounds})
    assert result.score == pytest.approx(0.8)  # one wrong bound
    assert result.parts == {"bounds": pytest.approx(5.5 / 6, abs=1e-6)}
    assert result.first_wrong["label"] == "C"
    # infinity may be written the ways people type it
    spelled = dict(AG_KEYS["bounds"]["bounds"], **{"": [3, "∞"], "0": ["-Infinity", 3]})
    assert ag("bounds", {"bounds": spelled}).score == 1.0
    assert ag("bounds", {"bounds": dict(bounds, **{"1": None})}).score == pytest.approx(0.5)


def test_leaf_order_partial_credit():
    key = AG_KEYS["leaf-order"]["leaf_order"]
    missing = [p for p in key if p != "0.1.0"]
    assert ag("leaf-order", {"leaf_order": missing}).score == pytest.approx(0.8)
    # K inserted where a student who forgot E's cutoff would put it: LCS 5 of 6, one error
    with_k = [*key[:3], "0.1.1", *key[3:]]
    result = ag("leaf-order", {"leaf_order": with_k})
    assert result.score == pytest.approx(0.8)
    assert result.parts == {"leaf_order": pytest.approx(5 / 6, abs=1e-6)}
    swapped = [key[1], key[0], *key[2:]]  # two leaves swapped: one slip
    assert ag("leaf-order", {"leaf_order": swapped}).score == pytest.approx(0.8)
    assert result.first_wrong["path"] == "0.1.1"  # K, the leaf the student got wrong
    assert result.first_wrong["label"] == "K"
    assert result.first_wrong["message"] == (
        "The fourth leaf evaluated is L, not K. K is never evaluated: "
        "At E, alpha = 5 >= beta = 3, so E's second child, K, is never evaluated."
    )
    assert ag("leaf-order", {"leaf_order": []}).score == 0.0


def test_minimax_partial_credit():
    values = dict(AG_KEYS["minimax"]["values"], **{"0.1": 5})  # E's alpha-beta value, not 9
    assert ag("minimax", {"values": values}).score == pytest.approx(0.8)


# -- normalization -------------------------------------------------------------------------------


def test_normalize_marks_subtrees_and_parents_of_all_marked_children():
    assert normalize_pruned(AG, {"1"}) == {"1", "1.0", "1.1", "1.0.0", "1.0.1", "1.1.0", "1.1.1"}
    # both children of G marked: G is marked; then G alone under C is not all of C's children
    assert normalize_pruned(AG, {"1.1.0", "1.1.1"}) == {"1.1", "1.1.0", "1.1.1"}
    # all of C's grandchildren: F and G, and then C itself
    grand = {"1.0.0", "1.0.1", "1.1.0", "1.1.1"}
    assert normalize_pruned(AG, grand) == grand | {"1", "1.0", "1.1"}
    assert normalize_pruned(AG, set()) == frozenset()


def test_equivalent_markings_grade_the_same():
    # G's two leaves instead of G itself; G plus its leaves; all give the key.
    for pruned in (["0.1.1", "1.1.0", "1.1.1"], ["0.1.1", "1.1", "1.1.0"], ["1.1", "0.1.1"]):
        assert ag("prune", {"pruned": pruned, "value": 3}).score == 1.0
    # marking C marks its subtree: C's visited part (C, F, L, M) is one extra subtree
    assert ag("prune", {"pruned": ["0.1.1", "1"], "value": 3}).score == pytest.approx(0.8)


# -- ungradable answers --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "answer", "quoted"),
    [
        ("prune", {"value": 3}, "'pruned'"),
        ("prune", {"pruned": []}, "'value'"),
        ("prune", [], "JSON object"),
        ("prune", {"pruned": "1.1", "value": 3}, "list"),
        ("prune", {"pruned": ["9"], "value": 3}, "'9'"),
        ("prune", {"pruned": [1], "value": 3}, "1"),
        ("prune", {"pruned": [""], "value": 3}, "root"),
        ("prune", {"pruned": [], "value": "three"}, "'three'"),
        ("prune", {"pruned": [], "value": True}, "True"),
        ("prune", {"pruned": [], "value": None}, "None"),
        ("values", {"values": {"0.0.0": 2}}, "leaf"),
        ("values", {"values": {"0.9": 2}}, "'0.9'"),
        ("values", {"values": [3]}, "map"),
        ("values", {"values": {"": "x"}}, "'x'"),
        ("values", {"values": {"": False}}, "False"),
        ("values", {}, "'values'"),
        ("bounds", {"bounds": {"": [3]}}, "alpha, beta"),
        ("bounds", {"bounds": {"": [3, "up"]}}, "'up'"),
        ("bounds", {"bounds": {"0.0.1": [3, 4]}}, "leaf"),
        ("bounds", {"bounds": {"": 3}}, "alpha, beta"),
        ("leaf-order", {"leaf_order": ["0.0.0", "0.0.0"]}, "twice"),
        ("leaf-order", {"leaf_order": ["0.0"]}, "'0.0'"),
        ("leaf-order", {"leaf_order": ["9.9.9"]}, "'9.9.9'"),
        ("leaf-order", {"leaf_order": "0.0.0"}, "list"),
        ("minimax", {"values": {"1.1.1": 5}}, "leaf"),
        ("best-order", {"order": {"": [0, 0]}}, "0..1"),
        ("best-order", {"order": {"": [0]}}, "0..1"),
        ("best-order", {"order": {"": [1, 0, 2]}}, "0..1"),
        ("best-order", {"order": {"": "01"}}, "0..1"),
        ("best-order", {"order": {"0.0.0": [0]}}, "leaf"),
        ("best-order", {"order": {"7": [0, 1]}}, "'7'"),
        ("best-order", {"order": [[1, 0]]}, "'order'"),
        ("best-order", {}, "'order'"),
        ("no-such-kind", {}, "unknown exercise kind"),
    ],
)
def test_ungradable_answers(kind, answer, quoted):
    with pytest.raises(UngradableAnswer, match=quoted):
        ag(kind, answer)


def test_ungradable_answer_is_a_value_error():
    assert issubclass(UngradableAnswer, ValueError)


# -- misconceptions, each reasoned through by hand -----------------------------------------------


def test_no_pruning():
    # Plain minimax marks nothing; the value is still 3. Two pruned subtrees missed: 0.5.
    result = grade("prune", AIMA, AIMA_CONV, {"pruned": [], "value": 3})
    assert result.diagnosis == "no-pruning"
    assert result.score == 0.5
    assert result.diagnosis_text in result.feedback


def test_players_swapped():
    # Root treated as MIN over MAX nodes: B = max(3,12,8) = 12, beta 12; C in (-inf, 12):
    # max(2,4,6) = 6, beta 6; D in (-inf, 6): 14 >= 6 cuts D's 5 and 2. Root = min(12, 6, 14) = 6.
    result = grade("prune", AIMA, AIMA_CONV, {"pruned": ["2.1", "2.2"], "value": 6})
    assert result.diagnosis == "players-swapped"
    assert result.diagnosis_text.startswith("You treated the root as MIN: the root is MAX here")
    # the same mistake in a minimax exercise: B = 12, C = 6, D = 14, root 6
    swapped = {"values": {"": 6, "0": 12, "1": 6, "2": 14}}
    assert grade("minimax", AIMA, AIMA_CONV, swapped).diagnosis == "players-swapped"


def test_wrong_order():
    # Right to left on A..G nothing is pruned (test_golden), so the student lists all eight
    # leaves from the right. LCS with the key (increasing paths) against decreasing paths is 1:
    # 7 errors, no credit.
    rtl = ["1.1.1", "1.1.0", "1.0.1", "1.0.0", "0.1.1", "0.1.0", "0.0.1", "0.0.0"]
    result = ag("leaf-order", {"leaf_order": rtl})
    assert result.diagnosis == "wrong-order"
    assert result.score == 0.0
    assert "right to left" in result.diagnosis_text
    # the mirror image: an rtl exercise answered left to right
    ltr = grade("leaf-order", AG, Conventions(order="rtl"), AG_KEYS["leaf-order"])
    assert ltr.diagnosis == "wrong-order"


def test_cut_node_marked():
    # The cutoffs happen at E (0.1) and C (1); marking them marks their subtrees:
    # A = {E, J, K} u {C, F, L, M, G, N, O}, K = {K, G, N, O}: the extra marks are the subtrees
    # rooted at E (E, J) and C (C, F, L, M): two errors, 0.5.
    result = ag("prune", {"pruned": ["0.1", "1"], "value": 3})
    assert result.diagnosis == "cut-node-marked"
    assert result.score == pytest.approx(0.5)
    assert result.first_wrong["label"] == "E"  # E is entered, yet marked


def test_shallow_cutoffs_on_the_deep_cutoff_tree():
    # Passing only the parent's bound, G (1.0.0) gets (-inf, +inf) from D, whose best so far is
    # -inf: it sees 3 and 9, nothing cut. D = 7; B's window from A is (5, inf) either way, so the
    # 4 still cuts the 6 (1.2). Root 5. The key also prunes J (1.0.0.1), the deep cutoff.
    result = grade("prune", DEEP, Conventions(), {"pruned": ["1.2"], "value": 5})
    assert result.diagnosis == "shallow-cutoffs"
    assert result.score == pytest.approx(0.8)  # one deep cutoff on this tree: one subtree
    assert result.first_wrong["label"] == "G"
    assert "a deep cutoff: alpha = 5 was set at A" in result.first_wrong["message"]


def test_shallow_cutoffs_in_leaf_order():
    # Without the deep cutoff the 9 (1.0.0.1) is evaluated right after the 3.
    answer = {"leaf_order": ["0", "1.0.0.0", "1.0.0.1", "1.0.1", "1.1"]}
    assert grade("leaf-order", DEEP, Conventions(), answer).diagnosis == "shallow-cutoffs"


def test_ties_flipped():
    # TIE: C's first leaf 3 meets alpha = 3. The key (prune) stops there, skipping C's 1; a
    # student using CS188's strict rule goes on and only prunes D's 8 (2 < 3).
    result = grade("prune", TIE, Conventions(), {"pruned": ["2.1"], "value": 3})
    assert result.diagnosis == "ties-flipped"
    assert result.diagnosis_text.startswith("You kept searching when alpha = beta")
    assert result.score == pytest.approx(0.8)  # one subtree missed
    # and the other way round: an explore exercise answered with the tie pruned
    explore = grade("prune", TIE, Conventions("explore"), {"pruned": ["1.1", "2.1"], "value": 3})
    assert explore.diagnosis == "ties-flipped"
    assert explore.diagnosis_text.startswith("You stopped when alpha = beta")


def test_ties_flipped_is_not_offered_when_it_cannot_differ():
    # AIMA's tie (two 2s) never meets a bound: the strict answer is the key itself.
    result = grade("prune", AIMA, Conventions("explore"), {"pruned": ["1.1", "1.2"], "value": 3})
    assert result.score == 1.0 and result.diagnosis is None


def test_values_convention():
    # Fail-hard on A..G: E returns min(3, 5) clamped into (-inf, 3) = 3, F returns 1 clamped into
    # (3, inf) = 3, C returns 3: every internal node reports 3. The key (soft) has E = 5, C = F = 1.
    hard = {"values": {"": 3, "0": 3, "0.0": 3, "0.1": 3, "1": 3, "1.0": 3}}
    result = ag("values", hard)
    assert result.diagnosis == "values-convention"
    assert result.score == pytest.approx(0.1)  # three wrong values (E, C, F)
    assert result.diagnosis_text.startswith("You reported the bound at cut nodes (fail-hard)")
    assert result.first_wrong["label"] == "E"
    assert result.first_wrong["message"] == (
        "E is MAX and stops after J = 5 because of a cutoff, so it returns the largest value "
        "seen so far: 5."
    )
    # the other way round: a fail-hard exercise answered fail-soft
    soft = ag("values", AG_KEYS["values"], Conventions(values="hard"))
    assert soft.diagnosis == "values-convention"
    assert soft.diagnosis_text.startswith("You reported the best value so far")


def test_infinite_values_compare_exactly():
    assert math.isinf(KINDS["bounds"].normalize(AG, {"bounds": {"": [3, "+inf"]}})[""][1])
