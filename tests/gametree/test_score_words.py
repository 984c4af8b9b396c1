"""How a score came about, in words (``Grade.scoring`` and the kind's ``scoring_words``): the
errors counted, where they are, and the rule, for every kind; 0, 1 and many errors, and
best-order's partial credit.

The known answers are the textbook's: AIMA's Figure 5.5 tree ([[3, 12, 8], [2, 4, 6], [14, 5,
2]]: root 3, C's second and third leaves I and J pruned, leaves evaluated E F G H K L M), and a
depth-3 tree worked by hand below. The rule's numbers are the ones the module promises (1, 0.8,
0.5, 0.1, then 0)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.gametree import KINDS, Conventions, Tree, grade
from grader.gametree.kinds import error_rule
from tests.gametree._helpers import conventions, trees

AIMA = Tree.from_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]])  # A; B C D; E F G, H I J, K L M
LABELS = AIMA.labels()
RULE = "no error 1, 1 error 0.80, 2 errors 0.50, 3 errors 0.10, 4 or more 0"
# By hand: A max; B min over D (max of 2, 3 = 3) and E (5 >= beta 3: cut, 9 pruned), so 3;
# C min with alpha 3 over F (max of 0, 1 = 1): 1 <= 3 cuts, G and its leaves pruned.
DEEP = Tree.from_nested([[[2, 3], [5, 9]], [[0, 1], [7, 5]]])  # A; B C; D E F G; H..O


def words(kind: str, tree: Tree, answer: dict, named: bool = True) -> tuple[float, str]:
    graded = grade(kind, tree, Conventions(), answer)
    labels = tree.labels() if named else None
    return graded.score, KINDS[kind].scoring_words(graded.scoring, labels)


def test_the_rule_is_read_off_the_scoring_function() -> None:
    assert error_rule() == RULE


@pytest.mark.parametrize(
    ("answer", "score", "said"),
    [
        ({"pruned": ["1.1", "1.2"], "value": 3}, 1.0, "No error: score 1"),
        (
            {"pruned": ["1.1", "1.2", "2.1"], "value": 3},
            0.8,
            "1 error: 1 extra mark at L (searched, not pruned). Score 0.80",
        ),
        (
            {"pruned": [], "value": 3},
            0.5,
            "2 errors: 2 missing marks at I and J (pruned, not marked). Score 0.50",
        ),
        (
            {"pruned": [], "value": 2},
            pytest.approx(0.1),
            "3 errors: 2 missing marks at I and J (pruned, not marked); 1 wrong root value. "
            "Score 0.10",
        ),
        (
            # D marked whole: one subtree searched yet marked, one error however many leaves.
            {"pruned": ["2"], "value": 2},
            0.0,
            "4 errors: 1 extra mark at D (searched, not pruned); 2 missing marks at I and J "
            "(pruned, not marked); 1 wrong root value. Score 0",
        ),
    ],
)
def test_prune_says_each_error_and_the_rule(answer: dict, score: float, said: str) -> None:
    got, text = words("prune", AIMA, answer)
    assert got == score
    assert text == f"{said}, by the rule: {RULE}."


def test_before_the_key_is_shown_the_errors_are_counted_not_placed() -> None:
    _, text = words("prune", AIMA, {"pruned": ["2"], "value": 2}, named=False)
    assert text.startswith(
        "4 errors: 1 extra mark (searched, not pruned); 2 missing marks (pruned, not marked); "
        "1 wrong root value. Score 0"
    )
    assert not re.search(r"\bat [A-M]\b", text)


def test_values_wrong_missing_and_given_for_a_pruned_node() -> None:
    right = {"": 3, "0": 3, "1": 1, "0.0": 3, "0.1": 5, "1.0": 1}
    assert words("values", DEEP, {"values": right})[0] == 1.0
    score, text = words("values", DEEP, {"values": {**right, "1.1": 7}})
    assert score == 0.8
    assert text.startswith("1 error: 1 value given at G (pruned, so no value). Score 0.80")
    wrong = {**right, "1": 2}
    del wrong["0.1"]
    score, text = words("values", DEEP, {"values": wrong})
    assert score == 0.5
    assert text.startswith("2 errors: 1 wrong value at C; 1 missing value at E. Score 0.50")


def test_minimax_counts_like_values() -> None:
    score, text = words("minimax", AIMA, {"values": {"": 3, "0": 3, "1": 2, "2": 5}})
    assert score == 0.8  # D's minimax value is 2
    assert text.startswith("1 error: 1 wrong value at D. Score 0.80")


def test_bounds_count_alpha_and_beta_apart() -> None:
    # Nothing given on the textbook tree: A, B, C and D are searched, two bounds each.
    score, text = words("bounds", AIMA, {"bounds": {}})
    assert score == 0.0
    assert text.startswith(
        "8 errors: 4 missing alphas at A, B, C and D; 4 missing betas at A, B, C and D. Score 0,"
    )
    key = KINDS["bounds"].key(DEEP, Conventions())["bounds"]
    score, text = words("bounds", DEEP, {"bounds": {**key, "1.1": [3, "inf"]}})
    assert score == 0.8
    assert text.startswith("1 error: 1 bounds given at G (pruned, so no bounds). Score 0.80")
    alpha = key[""][0]
    score, text = words("bounds", DEEP, {"bounds": {**key, "": [alpha, 99]}})
    assert score == 0.8 and text.startswith("1 error: 1 wrong beta at A.")
    # By hand, AIMA's C returns with alpha 3 (A's best so far) and beta 2 (H): alpha given -inf.
    score, text = words(
        "bounds",
        AIMA,
        {"bounds": {"": [3, "inf"], "0": ["-inf", 3], "1": ["-inf", 2], "2": [3, 2]}},
    )
    assert score == 0.8 and text.startswith("1 error: 1 wrong alpha at C.")


@pytest.mark.parametrize(
    ("order", "score", "said"),
    [
        ("E F G H K L M", 1.0, "No error: score 1"),
        ("F E G H K L M", 0.8, "1 error: 1 leaf out of order. Score 0.80"),
        (
            "E F G I K L M",
            0.8,
            "1 error: 1 wrong leaf at I (never evaluated, in place of one that is). Score 0.80",
        ),
        (
            "E F G H I J K L M",
            0.5,
            "2 errors: 2 extra leaves at I and J (never evaluated). Score 0.50",
        ),
        ("E F G H K", 0.5, "2 errors: 2 missing leaves at L and M. Score 0.50"),
    ],
)
def test_leaf_order_errors(order: str, score: float, said: str) -> None:
    paths = {label: path for path, label in LABELS.items()}
    got, text = words("leaf-order", AIMA, {"leaf_order": [paths[x] for x in order.split()]})
    assert got == score
    assert text == f"{said}, by the rule: {RULE}."


def test_best_order_is_partial_credit_by_leaves() -> None:
    # Knuth and Moore: a uniform tree of branching 3 and depth 2 needs at least 3 + 3 - 1 = 5
    # leaves; the textbook order evaluates 7.
    score, text = words("best-order", AIMA, {"order": {}})
    assert score == pytest.approx(5 / 7)
    assert text == (
        "Your ordering evaluates 7 leaves; the fewest possible is 5. Score 0.71 = 5/7 "
        "(the fewest leaves any ordering evaluates over the leaves yours evaluates)."
    )
    best = {"order": {"1": [0, 2, 1], "2": [2, 1, 0]}}  # C: H first; D: M first
    score, text = words("best-order", AIMA, best)
    assert score == 1.0
    assert text.startswith("Your ordering evaluates 5 leaves, the fewest possible: score 1")


COUNTING = ["prune", "values", "bounds", "minimax", "leaf-order"]
_COUNT = re.compile(r"^(No error|(\d+) errors?):")
_ITEMS = re.compile(r"(?:: |; )(\d+) ")


@settings(max_examples=150, deadline=None)
@given(trees(max_depth=4), conventions, st.sampled_from(COUNTING), st.data())
def test_the_words_agree_with_the_score_on_any_answer(tree, conv, kind, data) -> None:
    """Whatever the answer (the key or a misconception's), the errors the words count give
    the score under the rule they state, and their items add up to that count."""
    exercise = KINDS[kind]
    cut = tree.cut(conv.depth)
    if cut.root.is_leaf:
        return
    answers = [exercise.key(cut, conv)] + [
        exercise.to_answer(a) for _, a in exercise.variant_answers(cut, conv)
    ]
    answer = data.draw(st.sampled_from(answers))
    graded = grade(kind, cut, conv, answer)
    text = exercise.scoring_words(graded.scoring, cut.labels())
    found = _COUNT.match(text)
    assert found, text
    count = 0 if found.group(1) == "No error" else int(found.group(2))
    assert graded.score == pytest.approx({0: 1.0, 1: 0.8, 2: 0.5, 3: 0.1}.get(count, 0.0)), text
    head, said = text.split(". Score ") if count else (text, "")
    assert sum(int(n) for n in _ITEMS.findall(head)) == count, text
    shown = "0" if graded.score == 0 else f"{graded.score:.2f}"
    assert not count or said.startswith(f"{shown}, by the rule"), text


@pytest.mark.parametrize(
    ("wrong", "places"),
    [
        (8, "B, C, D, E, F, G, H and I"),
        (9, "B, C, D, E, F, G, H, I and 1 more"),
        (10, "B, C, D, E, F, G, H, I and 2 more"),
    ],
)
def test_at_most_eight_nodes_are_named_per_kind_of_error_and_the_rest_counted(
    wrong: int, places: str
) -> None:
    # A MAX root over ten MIN nodes B..K, each over one leaf of 1..10: every node is searched,
    # each MIN node is worth its leaf and the root 10. The first `wrong` of them answered 0.
    tree = Tree.from_nested([[v] for v in range(1, 11)])
    values = {str(i): 0 if i < wrong else i + 1 for i in range(10)}
    _, text = words("values", tree, {"values": {"": 10, **values}})
    assert (
        text == f"{wrong} errors: {wrong} wrong values at {places}. Score 0, by the rule: {RULE}."
    )


def test_error_words_skip_a_kind_of_error_with_no_nodes_and_go_on() -> None:
    from grader.gametree.kinds.scoring import errors_words

    words = errors_words({"extra-mark": [], "missing-mark": ["1.1", "1.2"]}, {"1.1": "F"})
    # A node with no label is named by its path, the root as "root".
    assert (
        words
        == f"2 errors: 2 missing marks at F and 1.2 (pruned, not marked). Score 0.50, by the rule: {RULE}."
    )
    words = errors_words({"wrong-value": ["", "0"]}, {})
    assert words == f"2 errors: 2 wrong values at root and 0. Score 0.50, by the rule: {RULE}."


def test_a_score_is_written_whole_at_1_and_0_and_to_two_places_between() -> None:
    from grader.gametree.kinds.scoring import score_text

    assert [score_text(s) for s in (1, 1.0, 0, 0.8, 0.1, 0.125)] == [
        "1",
        "1",
        "0",
        "0.80",
        "0.10",
        "0.12",
    ]
