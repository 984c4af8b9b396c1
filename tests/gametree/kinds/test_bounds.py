"""The bounds kind (`grader/gametree/kinds/bounds.py`): the steps its `first_wrong` points at,
missing and extra entries, its answers read and refused in words.
"""

from __future__ import annotations

import math

import pytest

from grader.gametree import KINDS, Conventions, Tree, grade
from grader.gametree.kinds import error_score
from tests.gametree.kinds._helpers import AG, first_wrong_step, refused_words


def test_bounds_point_at_the_return_step_of_the_first_wrong_node():
    key = KINDS["bounds"].key(AG, Conventions())["bounds"]
    graded = grade("bounds", AG, Conventions(), {"bounds": dict(key, **{"1": [3, 2]})})
    step = first_wrong_step(graded)
    assert (step.kind, step.path) == ("return", "1")
    assert graded.first_wrong["message"] == (
        "C is entered with alpha = 3, beta = +∞; then beta = 1 (step 26); so when it returns "
        "alpha = 3 and beta = 1."
    )
    extra = grade("bounds", AG, Conventions(), {"bounds": dict(key, **{"1.1": [3, 1]})})
    assert extra.first_wrong["path"] == "1.1" and extra.first_wrong["step"] is None


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
    assert refused_words("bounds", answer) == message
