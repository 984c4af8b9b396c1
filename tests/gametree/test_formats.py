"""Tree formats: nested lists, the JSON object, the Delphi leaves string, CS188 ``.test`` files;
labels and paths; typed errors that quote the offending input."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings

from grader.gametree import Node, Tree, TreeFormatError, label_for, parse_leaves, solve
from tests.gametree._helpers import nested_trees

# The CS188 Pacman project's GraphGameTreeTest format (multiagent/test_cases/q2|q3/*.test),
# here the lecture-6 tree: max over min1(3,12,8), min2(5,4,6), min3(14,1,11).
LECTURE6_TEST = '''class: "GraphGameTreeTest"
alg: "AlphaBetaAgent"
depth: "2"

#  Tree from lecture 6 slides
diagram: """
           max
      /-/   |   \\--\\
     /      |      \\
    /       |       \\
 min1      min2      min3
  /|\\      /|\\       /|\\
 / | \\    / | \\     / | \\
A  B  C  D  E  F   G  H  I
3 12  8  5  4  6  14  1  11
"""

num_agents: "2"

start_state: "root"
win_states: "A B C D E F G H I"
lose_states: ""

successors: """
root pacLeft min1
root pacCenter min2
root pacRight min3
min1 gLeft A
min1 gCenter B
min1 gRight C
min2 gLeft D
min2 gCenter E
min2 gRight F
min3 gLeft G
min3 gCenter H
min3 gRight I
"""

evaluation: """
A 3.0
B 12.0
C 8.0
D 5.0
E 4.0
F 6.0
G 14.0
H 1.0
I 11.0
"""
'''


# -- nested lists and JSON ------------------------------------------------------------------------


def test_nested_round_trip_keeps_values_and_types():
    nested = [[3, 12.5, -8], [[2, 4], 6], 0]
    tree = Tree.from_nested(nested)
    assert tree.to_nested() == nested
    assert [type(x) for x in tree.to_nested()[0]] == [int, float, int]
    assert tree.players == ("max", "min")
    assert Tree.from_nested(tuple(map(tuple, [[1, 2], [3]]))).to_nested() == [[1, 2], [3]]


@settings(max_examples=50, deadline=None)
@given(nested_trees())
def test_nested_and_dict_round_trips(tree):
    assert Tree.from_nested(tree.to_nested(), tree.players) == tree
    assert Tree.from_dict(tree.to_dict()) == tree


def test_dict_form():
    tree = Tree.from_dict({"tree": [[1, 2], [3, 4]], "players": ["min", "max"]})
    assert tree.players == ("min", "max")
    assert tree.to_dict() == {"tree": [[1, 2], [3, 4]], "players": ["min", "max"]}
    assert Tree.from_dict({"tree": [1, 2]}).players == ("max", "min")
    assert Tree.from_nested([1, 2], "MAX, min, min").players == ("max", "min", "min")


def test_players_repeat_down_the_levels():
    tree = Tree.from_nested([[[[1]]]], "max,min,min")
    assert [tree.player_at(d) for d in range(5)] == ["max", "min", "min", "max", "min"]
    assert tree.player("0.0.0") == "max"


# -- the Delphi leaves string ---------------------------------------------------------------------


def test_parse_leaves():
    assert parse_leaves("3,12,8,2,4,6,14,5,2", branching=3, depth=2) == [
        [3, 12, 8],
        [2, 4, 6],
        [14, 5, 2],
    ]
    assert parse_leaves("1; 2.5, 3 ,4", branching=2, depth=2) == [[1, 2.5], [3, 4]]
    assert parse_leaves("1,2,3,4,5,6,7,8", 2, 3) == [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]
    assert parse_leaves("7", 1, 1) == [7]


@pytest.mark.parametrize(
    ("text", "branching", "depth", "quoted"),
    [
        ("3,12,x", 3, 1, "'x'"),
        ("3,12", 3, 1, "got 2"),
        ("1,2,3,4", 3, 1, "got 4"),
        ("1,nan", 2, 1, "nan"),
        ("1,inf", 2, 1, "inf"),
        ("1,2", 0, 1, "at least 1"),
    ],
)
def test_parse_leaves_errors(text, branching, depth, quoted):
    with pytest.raises(TreeFormatError, match=quoted):
        parse_leaves(text, branching, depth)


# -- CS188 ----------------------------------------------------------------------------------------


def test_cs188_import_of_the_lecture6_file():
    tree = Tree.from_cs188(LECTURE6_TEST)
    assert tree.to_nested() == [[3, 12, 8], [5, 4, 6], [14, 1, 11]]
    assert all(isinstance(tree.node(p).value, int) for p in tree.leaves())  # 3.0 reads as 3
    assert tree.players == ("max", "min")
    result = solve(tree)
    assert result.value == 4 and result.pruned == ("2.2",)


def test_cs188_multiple_agents():
    text = LECTURE6_TEST.replace('num_agents: "2"', 'num_agents: "3"')
    assert Tree.from_cs188(text).players == ("max", "min", "min")


def test_cs188_export_then_import_round_trip():
    tree = Tree.from_nested([[3, 12, 8], [5, 4, 6], [14, 1, 11]])
    text = tree.to_cs188()
    for field in ("class", "alg", "depth", "num_agents", "start_state", "successors", "evaluation"):
        assert f"{field}:" in text
    assert 'class: "GraphGameTreeTest"' in text
    assert 'depth: "1"' in text  # CS188's depth counts rounds of all agents: 2 plies = 1
    assert 'start_state: "A"' in text
    assert "A a0 B" in text and "B a2 G" in text and "G 8.0" in text
    assert Tree.from_cs188(text) == tree
    three = Tree.from_nested([[[1, 2], [3]], [[4], [5, 6]]], "max,min,min")
    assert Tree.from_cs188(three.to_cs188()) == three


@pytest.mark.parametrize("nested", [[[1, 2], 3], [1, 2], [{"eval": 4, "children": [[1, 2], 3]}, 5]])
def test_cs188_export_of_uneven_trees_marks_the_shallow_leaves_terminal(nested):
    # A leaf above CS188's horizon is a win state, scored where it stands: the trees round-trip.
    tree = Tree.from_nested(nested)
    text = tree.to_cs188()
    assert Tree.from_cs188(text) == tree
    assert solve(Tree.from_cs188(text)).to_dict() == solve(tree).to_dict()


@pytest.mark.parametrize(
    ("tree", "players", "plies", "quoted"),
    [
        ([[1, 2], [3, 4]], "max,min", 3, "multiple of 2"),  # 3 plies is a round and a half
        ([[1, 2], [3, 4]], "max,min,min", 2, "multiple of 3"),
        ([[1, 2], [3, 4]], "min,max", None, "min,max"),
        ([[1, 2], [3, 4]], "max,max", None, "max,max"),
    ],
)
def test_cs188_export_refuses_what_cs188_cannot_express(tree, players, plies, quoted):
    with pytest.raises(TreeFormatError, match=quoted):
        Tree.from_nested(tree, players).to_cs188(plies=plies)


@pytest.mark.parametrize(
    ("change", "quoted"),
    [
        (('start_state: "root"\n', ""), "start_state"),
        (("A 3.0\n", "A three\n"), "A three"),
        (("A 3.0\n", ""), "'A'"),  # a leaf without an evaluation
        (("min1 gLeft A\n", "min1 gLeft\n"), "min1 gLeft"),
        (("min1 gLeft A\n", "min1 gLeft min2\n"), "min2"),  # reached twice: not a tree
        (('num_agents: "2"', 'num_agents: "1"'), "2..16"),
        (('num_agents: "2"', 'num_agents: "1000000"'), "2..16"),
        (('evaluation: """\n', "evaluation: x\n"), "'A 3.0'"),
    ],
)
def test_cs188_import_errors(change, quoted):
    old, new = change
    assert old in LECTURE6_TEST
    with pytest.raises(TreeFormatError, match=quoted):
        Tree.from_cs188(LECTURE6_TEST.replace(old, new, 1))


def test_cs188_unclosed_block():
    with pytest.raises(TreeFormatError, match="not closed"):
        Tree.from_cs188(LECTURE6_TEST.rstrip().removesuffix('"""'))


# -- labels and paths -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("index", "label"),
    [(0, "A"), (1, "B"), (6, "G"), (25, "Z"), (26, "AA"), (27, "AB"), (51, "AZ"), (52, "BA")],
)
def test_label_for(index, label):
    assert label_for(index) == label


def test_label_for_three_letters():
    assert label_for(26 + 26 * 26 - 1) == "ZZ"
    assert label_for(26 + 26 * 26) == "AAA"


def test_labels_are_breadth_first_and_run_past_z():
    tree = Tree.from_nested([list(range(10)), list(range(10)), list(range(10))])
    labels = tree.labels()
    assert labels[""] == "A" and labels["0"] == "B" and labels["2"] == "D"
    assert labels["0.0"] == "E" and labels["2.9"] == "AH"  # 34th node
    assert labels["2.0"] == "Y" and labels["2.1"] == "Z" and labels["2.2"] == "AA"


def test_paths():
    tree = Tree.from_nested([[3, 12, 8], [2, [4, 5]], 6])
    assert tree.paths() == ["", "0", "1", "2", "0.0", "0.1", "0.2", "1.0", "1.1", "1.1.0", "1.1.1"]
    assert tree.leaves() == ["2", "0.0", "0.1", "0.2", "1.0", "1.1.0", "1.1.1"]
    assert tree.node("1.1.0") == Node(4)
    assert tree.node("1").children[1] == Node(None, (Node(4), Node(5)))
    assert tree.subtree("1") == ["1", "1.0", "1.1", "1.1.0", "1.1.1"]
    assert tree.depth() == 3 and tree.leaf_count() == 7
    assert tree.has("1.1") and not tree.has("3") and not tree.has("0.0.0") and not tree.has(1)
    reordered = tree.reordered({"": [2, 0, 1], "1.1": [1, 0]})
    assert reordered.to_nested() == [6, [3, 12, 8], [2, [5, 4]]]


@pytest.mark.parametrize("path", ["3", "0.3", "0.0.0", "a", ".0", "0.", "00"])
def test_unknown_paths_are_typed_errors(path):
    tree = Tree.from_nested([[3, 12, 8], [2, 4, 6]])
    with pytest.raises(TreeFormatError, match="path"):
        tree.node(path)


# -- typed errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nested", "quoted"),
    [
        ([], r"\[\]"),
        ([[1, 2], []], r"\[\]"),
        ([[1, "3"]], "'3'"),
        ([[1, None]], "None"),
        ([True, 2], "True"),
        ([1, False], "False"),
        ([1, math.nan], "nan"),
        ([1, math.inf], "inf"),
        ([1, -math.inf], "-inf"),
        ([1, {"a": 1}], "'a'"),
        (5, "nested list"),
        ("[1, 2]", "nested list"),
    ],
)
def test_bad_trees_raise_tree_format_error_quoting_the_input(nested, quoted):
    with pytest.raises(TreeFormatError, match=quoted):
        Tree.from_nested(nested)


def test_too_deep_a_tree_is_refused():
    nested: list = [1]
    for _ in range(70):
        nested = [nested]
    with pytest.raises(TreeFormatError, match="depth"):
        Tree.from_nested(nested)


@pytest.mark.parametrize("players", ["max,foo", "", [], ["max", "minimum"], "max;min", ["max", 1]])
def test_bad_players(players):
    with pytest.raises(TreeFormatError, match="players"):
        Tree.from_nested([1, 2], players)


@pytest.mark.parametrize("data", [[1, 2], {"players": ["max"]}, None, "tree"])
def test_bad_dicts(data):
    with pytest.raises(TreeFormatError, match='"tree"'):
        Tree.from_dict(data)


def test_tree_format_error_is_a_value_error():
    assert issubclass(TreeFormatError, ValueError)
