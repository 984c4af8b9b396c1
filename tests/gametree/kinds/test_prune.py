"""The prune kind (`grader/gametree/kinds/prune.py`): the steps its `first_wrong` points at, its
answers read and refused, its key and paper.

Mutants of this kind's module no test here kills (docs/testing.md, "Mutation testing"), each
judged equivalent unless it says otherwise:
- ``_roots`` and ``PruneKind.to_answer``: ``p == ""`` changed, or ``if p`` always true: the root
  is never in a pruned set (``normalize`` refuses it and a search never prunes it).
- ``PruneKind.project``: ``pruned |= cut nodes`` changed to ``pruned = cut nodes``: every pruned
  node lies below a node where a cutoff happened, and marking a node marks its subtree.
"""

from __future__ import annotations

import pytest

from grader.gametree import KINDS, Conventions, Tree, grade
from grader.gametree.kinds import error_score
from tests.gametree.kinds._helpers import AG, AG_NODES, AIMA, first_wrong_step, refused_words


def test_prune_points_at_the_enter_step_of_a_visited_node_marked():
    graded = grade("prune", AG, Conventions(), {"pruned": ["0.1.1", "1.1", "1.0.1"], "value": 3})
    step = first_wrong_step(graded)
    assert (step.kind, step.path) == ("enter", "1.0.1")
    assert graded.first_wrong["step"] == 23  # counted by hand on the trace of A..G


def test_prune_points_at_the_cutoff_step_of_a_missed_cut():
    graded = grade("prune", AG, Conventions(), {"pruned": ["1.1"], "value": 3})
    step = first_wrong_step(graded)
    assert (step.kind, step.path, step.pruned) == ("cutoff", "0.1", ("0.1.1",))
    assert graded.first_wrong["step"] == next(
        c.step for c in graded.search.cutoffs if c.path == "0.1"
    )


def test_prune_points_at_the_last_step_for_a_wrong_root_value():
    graded = grade("prune", AG, Conventions(), {"pruned": ["0.1.1", "1.1"], "value": 9})
    assert graded.first_wrong["step"] == len(graded.search.trace) - 1
    assert first_wrong_step(graded).kind == "return" and first_wrong_step(graded).path == ""
    assert graded.first_wrong["label"] == "A"


def test_values_for_a_pruned_node_point_nowhere_in_the_trace():
    key = KINDS["values"].key(AG, Conventions())["values"]
    graded = grade("values", AG, Conventions(), {"values": dict(key, **{"1.1": 7})})
    assert graded.first_wrong["path"] == "1.1" and graded.first_wrong["step"] is None


def test_pruned_nodes_none_of_them_right_share_nothing() -> None:
    # AIMA prunes F and G (1.1, 1.2); marking only E (0.0) shares no node with the key: 0 of 3.
    graded = grade("prune", AIMA, Conventions(), {"pruned": ["0.0"], "value": 3})
    assert graded.parts == {"pruned": 0.0, "value": 1.0}
    assert graded.score == round(error_score(3), 6)


def test_the_pruned_key_lists_subtrees_in_the_order_of_the_tree() -> None:
    # C (a MIN node) is cut off after its first child: its 11 other children are pruned, listed
    # 1.1, 1.2, ..., 1.10, 1.11 (by child number, not as text, where "1.10" < "1.2").
    tree = Tree.from_nested([5, [1, *([9] * 11)]])
    key = KINDS["prune"].key(tree, Conventions())
    assert key == {"pruned": [f"1.{i}" for i in range(1, 12)], "value": 5}


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
    assert refused_words("prune", answer) == message


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
