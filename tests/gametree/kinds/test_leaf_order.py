"""The leaf-order kind (`grader/gametree/kinds/leaf_order.py`): the step its `first_wrong` points
at, extra leaves, the longest common subsequence it scores by, its paper.

Mutants of this kind's module no test here kills (docs/testing.md, "Mutation testing"), each
judged equivalent unless it says otherwise:
- ``LeafOrderKind.assess``: ``1.0 if longest`` changed (always dividing, or 2.0 when empty): a
  search evaluates at least one leaf (a terminal root is its own leaf), so the key is never empty.
- ``_lcs_items``: ``before`` filled with +1 or -2, not -1: the loop sets every entry before the
  walk back reads it; -2 for "no item before" (a run's first item, or no run): the walk back
  stops at any negative index.
"""

from __future__ import annotations

from grader.gametree import KINDS, Conventions, grade
from grader.gametree import kinds as kinds_module
from tests.gametree.kinds._helpers import AG, AIMA, first_wrong_step, refused_words


def test_leaf_order_points_at_the_leaf_step_of_the_expected_leaf():
    key = KINDS["leaf-order"].key(AG, Conventions())["leaf_order"]
    answer = [key[0], key[2], key[1], *key[3:]]
    graded = grade("leaf-order", AG, Conventions(), {"leaf_order": answer})
    step = first_wrong_step(graded)
    assert (step.kind, step.path) == ("leaf", key[1])
    assert graded.first_wrong["path"] == key[2]  # the leaf the student put there
    # One leaf short: the step of the missing leaf; one extra: no step.
    short = grade("leaf-order", AG, Conventions(), {"leaf_order": key[:-1]})
    assert (first_wrong_step(short).kind, first_wrong_step(short).path) == ("leaf", key[-1])
    assert short.first_wrong["path"] == key[-1]
    assert short.first_wrong["message"] == "The fifth leaf evaluated is M."
    longer = grade("leaf-order", AG, Conventions(), {"leaf_order": [*key, "1.1.0"]})
    assert longer.first_wrong["path"] == "1.1.0" and longer.first_wrong["step"] is None


def test_an_extra_leaf_in_the_order_says_why_it_is_never_evaluated() -> None:
    key = KINDS["leaf-order"].key(AG, Conventions())["leaf_order"]
    longer = grade("leaf-order", AG, Conventions(), {"leaf_order": [*key, "1.1.0"]})
    assert longer.first_wrong["message"] == (
        "N is never evaluated: At C, alpha = 3 >= beta = 1, so C's second child, G, is never "
        "evaluated."
    )
    assert longer.feedback[-1] == longer.first_wrong["message"]


def test_a_claimed_leaf_count_is_a_whole_number_of_leaves() -> None:
    # "leaves" is the key's own field, read back as a claim: 0 is a count, -1 and 2.0 are not.
    assert KINDS["best-order"].normalize(AG, {"order": {"": [1, 0]}, "leaves": 0}) == {"": [1, 0]}
    for claim in (-1, 2.0, "4", True):
        assert refused_words("best-order", {"order": {}, "leaves": claim}) == (
            "'leaves', when given, is a whole number of leaves"
        )


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
