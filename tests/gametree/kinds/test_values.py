"""The values and minimax kinds (`grader/gametree/kinds/values.py`, `minimax.py`): the steps their
`first_wrong` points at, their answers read and refused in words.
"""

from __future__ import annotations

import math

import pytest

from grader.gametree import KINDS, Conventions, grade
from tests.gametree.kinds._helpers import AG, AIMA, first_wrong_step, refused_words


@pytest.mark.parametrize(("kind", "part"), [("values", "values"), ("minimax", "values")])
def test_values_point_at_the_return_step_of_the_first_wrong_node(kind, part):
    key = KINDS[kind].key(AG, Conventions())[part]
    answer = dict(key, **{"1.0": key["1.0"] + 1, "0.1": key["0.1"] + 1})
    graded = grade(kind, AG, Conventions(), {part: answer})
    step = first_wrong_step(graded)
    # E (0.1) returns before F (1.0): the first wrong node in the search's order.
    assert (step.kind, step.path) == ("return", "0.1") and graded.first_wrong["label"] == "E"
    assert graded.first_wrong["message"] == graded.feedback[-1]


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
    assert refused_words("values", answer) == message


def test_minimax_points_at_the_first_wrong_node_its_search_returns_from() -> None:
    key = KINDS["minimax"].key(AG, Conventions())["values"]
    answer = {"values": dict(key, **{"0.0": 99, "1.1": 99})}
    ltr = grade("minimax", AG, Conventions(), answer)
    rtl = grade("minimax", AG, Conventions(order="rtl"), answer)
    assert ltr.first_wrong is not None and ltr.first_wrong["path"] == "0.0"
    # Right to left the search returns from G (1.1) before it reaches D (0.0).
    assert rtl.first_wrong is not None and rtl.first_wrong["path"] == "1.1"


def test_values_on_paper_are_written_as_a_hand_writes_them() -> None:
    # No ".0" on a whole number, infinity as ∞, a blank entry left blank.
    paper = KINDS["values"].paper(AIMA, {"values": {"": 3.0, "0": "inf", "1": -2, "2": None}})
    assert paper.marks == {"": "3", "0": "∞", "1": "-2", "2": ""}
    bounds = KINDS["bounds"].paper(AIMA, {"bounds": {"": ["-inf", 2.5], "1": ["", 0]}})
    assert bounds.marks == {"": "-∞\n2.5", "1": "\n0"}
