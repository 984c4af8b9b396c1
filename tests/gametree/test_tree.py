"""The game tree (grader/gametree/tree.py): paths, players, the limits on what may be read (exactly at
and one past each), the words of every refusal, depth cuts, the canonical form, and the CS188
file written and read back.

Surviving mutants judged equivalent (mutmut names of 2026-11-22):
- ``_where`` 4 and 17: ``text.count("\n", None, at)`` and ``text.rfind("\n", None, at)``: a start
  of None is the start of the text, as 0 is.
- ``read_cs188`` 66: ``continue`` changed to ``break`` where a number field is absent: ``depth``
  is the last field of that loop, so nothing is left to skip.
- ``read_cs188`` 233 and 236: the players written "MAX" or "MIN": ``Tree`` lowercases them.
- ``Tree.__hash__`` 3, ``hash(None)``: every tree hashes alike; sets and caches stay right (equal
  trees are still equal, unequal ones unequal), only slower.
"""

from __future__ import annotations

import pytest

from grader.gametree import Node, Tree, TreeFormatError, parse_leaves, parse_nested
from grader.gametree.tree import (
    MAX_PLAYERS,
    ancestors,
    child_path,
    is_ancestor,
    parent_path,
    parse_players,
    path_depth,
    read_cs188,
    validate_path,
)


def _refused(call, *args: object) -> str:
    """The message of the TreeFormatError ``call(*args)`` raises."""
    with pytest.raises(TreeFormatError) as caught:
        call(*args)
    return str(caught.value)


# -- paths ----------------------------------------------------------------------------------------


def test_path_helpers():
    assert child_path("", 3) == "3" and child_path("0.2", 11) == "0.2.11"
    assert parent_path("0.2.11") == "0.2" and parent_path("4") == "" and parent_path("") == ""
    assert [path_depth(p) for p in ("", "7", "0.12", "1.0.3")] == [0, 1, 2, 3]
    assert is_ancestor("", "0.1") and is_ancestor("0", "0.1") and is_ancestor("0.1", "0.1")
    assert not is_ancestor("0.1", "0") and not is_ancestor("1", "10") and not is_ancestor("1", "")
    assert ancestors("") == [] and ancestors("3") == [""]
    assert ancestors("0.10.2") == ["", "0", "0.10"]


def test_validate_path_and_has():
    tree = Tree.from_nested([[1, 2], 3])
    assert validate_path(tree, "0.1") == "0.1" and validate_path(tree, "") == ""
    for bad in ("0.2", "2", None, 0, ["0"]):
        assert _refused(validate_path, tree, bad) == f"no node at path {bad!r}"
        assert not tree.has(bad)
    assert _refused(tree.node, "1.0") == "no node at path '1.0'"


def test_walk_is_breadth_first_and_counts():
    tree = Tree.from_nested([[1, [2, 3]], 4, [5]])
    assert [p for p, _ in tree.walk()] == ["", "0", "1", "2", "0.0", "0.1", "2.0", "0.1.0", "0.1.1"]
    assert tree.node_count() == 9 and tree.leaf_count() == 5 and tree.depth() == 3
    assert tree.leaves() == ["1", "0.0", "2.0", "0.1.0", "0.1.1"]
    assert Tree.from_nested([[1, 2], 3]).depth() == 2  # the deepest leaf, not the first


# -- players --------------------------------------------------------------------------------------


def test_players_parsed():
    assert parse_players(None) == ("max", "min")
    assert parse_players(" MAX ,min,Min ") == ("max", "min", "min")
    assert parse_players(["min"]) == ("min",)
    assert parse_players(("max",) * MAX_PLAYERS) == ("max",) * 16
    assert _refused(parse_players, ["max"] * 17) == "at most 16 players in the sequence, got 17"
    assert _refused(parse_players, []) == "players must be a list of 'max' and 'min', got []"
    assert _refused(parse_players, "max,mini") == (
        "players must be a list of 'max' and 'min', got 'max,mini'"
    )


def test_the_player_sequence_repeats_by_depth():
    tree = Tree.from_nested([[[1]]], ["min", "max", "max"])
    assert [tree.player_at(d) for d in range(7)] == ["min", "max", "max"] * 2 + ["min"]
    assert [tree.player(p) for p in ("", "0", "0.0", "0.0.0")] == ["min", "max", "max", "min"]


# -- reading nested lists: limits and words -------------------------------------------------------


def _deep(levels: int) -> list:
    nested: list = [1]
    for _ in range(levels - 1):
        nested = [nested]
    return nested


def test_depth_64_is_read_and_65_refused():
    assert Tree.from_nested(_deep(64)).depth() == 64
    assert _refused(Tree.from_nested, _deep(65)) == (
        "a tree may have at most 200000 nodes and depth 64"
    )


def test_200000_nodes_are_read_and_one_more_refused():
    # the root and 199,999 leaves; then one leaf more
    assert Tree.from_nested([0] * 199_999).node_count() == 200_000
    assert _refused(Tree.from_nested, [0] * 200_000) == (
        "a tree may have at most 200000 nodes and depth 64"
    )


@pytest.mark.parametrize(
    ("nested", "words"),
    [
        ([[1], []], "an internal node needs at least one child, got []"),
        (7, "a tree must be a nested list, e.g. [[3, 12, 8], [2, 4, 6]]"),
        ([1, True], "a leaf value must be a number, got True"),
        ([1, "2"], "a leaf value must be a number, got '2'"),
        ([1, float("inf")], "a leaf value must be finite, got inf"),
        ([{"eval": "3", "children": [1]}], "an evaluation must be a number, got '3'"),
        ([{"eval": float("nan"), "children": [1]}], "an evaluation must be finite, got nan"),
        (
            [{"eval": 1, "children": [2], "kids": 3, "alpha": 0}],
            "unknown key 'alpha' in a node object (eval, children, terminal, chance)",
        ),
        ([{"eval": 1}], 'a node object needs "children": a non-empty list'),
        ([{"eval": 1, "children": []}], 'a node object needs "children": a non-empty list'),
        ([{"eval": 1, "children": 5}], 'a node object needs "children": a non-empty list'),
        ([{"eval": 1, "children": [2], "terminal": 1}], '"terminal" must be true or false, got 1'),
        ([{"children": [2], "terminal": True}], 'a terminal node needs an evaluation ("eval")'),
    ],
)
def test_refusals_in_words(nested, words):
    assert _refused(Tree.from_nested, nested) == words


def test_node_objects_read():
    tree = Tree.from_nested({"eval": 4, "children": [[1, 2], {"children": (3,)}]})
    assert tree.root == Node(4, (Node(None, (Node(1), Node(2))), Node(None, (Node(3),))))
    terminal = Tree.from_nested([{"eval": 2.5, "terminal": True, "children": [1]}, 3])
    assert terminal.root.children[0] == Node(2.5, (Node(1),), True)
    plain = Tree.from_nested([{"eval": None, "terminal": False, "children": [1]}])
    assert plain.root.children[0] == Node(None, (Node(1),), False)
    assert _refused(Tree.from_dict, {"players": "max"}) == (
        'a tree object needs a "tree" key holding nested lists'
    )
    assert Tree.from_dict({"tree": [1], "players": "min"}).players == ("min",)


# -- export, evaluations, cuts --------------------------------------------------------------------


def test_to_nested_writes_evaluations_and_terminals_only_where_they_are():
    nested = {
        "eval": 1,
        "children": [
            [1, 2],
            {"eval": 0, "children": [3]},
            {"eval": 5, "terminal": True, "children": [4]},
        ],
    }
    tree = Tree.from_nested(nested)
    assert tree.to_nested() == nested
    assert tree.to_dict() == {"tree": nested, "players": ["max", "min"]}
    assert Tree.from_nested([[1, 2], 3]).to_nested() == [[1, 2], 3]
    assert repr(Tree.from_nested([[1], 2], "min")) == "Tree([[1], 2], players='min')"
    assert repr(Tree.from_nested([1], "min,max")) == "Tree([1], players='min,max')"


def test_has_evaluations():
    assert not Tree.from_nested([[1, 2], 3]).has_evaluations
    assert Tree.from_nested([{"eval": 0, "children": [1]}]).has_evaluations
    assert Tree.from_nested({"eval": 0, "children": [1]}).has_evaluations  # the root too
    terminal = Tree(Node(None, (Node(None, (Node(1),), True),)))  # built directly, no eval
    assert terminal.has_evaluations


def test_cut():
    plain = Tree.from_nested([[1, [2, 3]], 4])
    assert plain.cut() is plain and plain.cut(3) is plain and plain.cut(9) is plain
    assert _refused(plain.cut, 0) == "a depth limit is at least 1 ply, got 0"
    assert _refused(plain.cut, 2) == "node E lies at the depth limit (2) but has no evaluation"
    evaluated = Tree.from_nested(
        [{"eval": 7, "children": [1, {"eval": 6, "children": [2, 3]}]}, 4], "min,max"
    )
    assert evaluated.cut(1) == Tree.from_nested([7, 4], "min,max")
    assert evaluated.cut(2) == Tree.from_nested([[1, 6], 4], "min,max")
    assert evaluated.cut() == Tree.from_nested([[1, [2, 3]], 4], "min,max")  # evals dropped
    assert evaluated.cut(3) == evaluated.cut()
    terminal = Tree.from_nested([{"eval": 9, "terminal": True, "children": [[1]]}, 2])
    assert terminal.cut() == Tree.from_nested([9, 2])
    bare = Tree(Node(None, (Node(None, (Node(1),), True), Node(2))))
    assert _refused(bare.cut) == "node B is terminal but has no evaluation"
    bare_root = Tree(Node(None, (Node(1),), True))
    assert _refused(bare_root.cut) == "node A is terminal but has no evaluation"


def test_canonical_ignores_order_only():
    a = Tree.from_nested([[3, [1, 2]], 4.0])
    assert a.canonical() == Tree.from_nested([4, [[2, 1], 3]]).canonical()
    assert a.canonical() != Tree.from_nested([[3, [1, 2]], 4], "min,max").canonical()
    assert a.canonical() != Tree.from_nested([[3, [1, 5]], 4]).canonical()
    evaluated = Tree.from_nested([{"eval": 1, "children": [2]}, 3])
    assert evaluated.canonical() != Tree.from_nested([{"eval": 2, "children": [2]}, 3]).canonical()
    assert evaluated.canonical() != Tree.from_nested([[2], 3]).canonical()
    terminal = Tree.from_nested([{"eval": 1, "terminal": True, "children": [2]}, 3])
    assert terminal.canonical() != evaluated.canonical()
    assert a.canonical() == (
        ("max", "min"),
        (None, False, ((4.0,), (None, False, ((3.0,), (None, False, ((1.0,), (2.0,))))))),
    )


def test_canonical_by_order_ignores_a_map_that_keeps_the_key():
    a = Tree.from_nested([[3, [1, 2]], {"eval": 2, "children": [4]}, 3])
    for f in (lambda v: 2 * v + 1, lambda v: v**3 - 7, lambda v: v / 8):
        b = Tree.from_nested([[f(3), [f(1), f(2)]], {"eval": f(2), "children": [f(4)]}, f(3)])
        assert b.canonical(values="order") == a.canonical(values="order")
        assert b.canonical() != a.canonical()
    # Another order, or a tie broken, is another tree.
    assert Tree.from_nested([[3, [1, 2]], {"eval": 2, "children": [4]}, 4]).canonical(
        values="order"
    ) != a.canonical(values="order")
    assert Tree.from_nested([[-3, [-1, -2]], {"eval": -2, "children": [-4]}, -3]).canonical(
        values="order"
    ) != a.canonical(values="order")
    # With chance nodes, only a positive affine map keeps the expectations' key.
    chance = Tree.from_nested([[1, 4], [2, 9]], "chance,max")
    assert Tree.from_nested([[3, 9], [5, 19]], "chance,max").canonical(
        values="order"
    ) == chance.canonical(values="order")
    assert Tree.from_nested([[1, 16], [4, 81]], "chance,max").canonical(
        values="order"
    ) != chance.canonical(values="order")


def test_equality_and_hash():
    a, b = Tree.from_nested([[1, 2], 3]), Tree.from_nested([[1, 2], 3])
    assert a == b and hash(a) == hash(b) and a != [[1, 2], 3]
    assert a != Tree.from_nested([[1, 2], 3], "min,max") and a != Tree.from_nested([[2, 1], 3])
    assert len({a, b, Tree.from_nested([[2, 1], 3])}) == 2


def test_reordered():
    tree = Tree.from_nested([[1, 2, 3], {"eval": 5, "terminal": True, "children": [4, 6]}])
    turned = tree.reordered({"": [1, 0], "1": [1, 0]})
    assert turned.root.children[0] == Node(5, (Node(6), Node(4)), True)
    assert turned.root.children[1] == tree.root.children[0]
    for bad in ([0, 0, 1], [0, 1], [1, 2, 3]):
        assert _refused(tree.reordered, {"0": bad}) == (
            "the order at '0' must be a permutation of 0..2"
        )


# -- the Delphi leaves string and typed nested lists -----------------------------------------------


def test_parse_leaves_limits_and_words():
    assert _refused(parse_leaves, "1", 1, 0) == "branching and depth must be at least 1"
    assert _refused(parse_leaves, "1", 0, 1) == "branching and depth must be at least 1"
    assert parse_leaves("5,,6", 2, 1) == [5, 6] and parse_leaves("5;6", 2, 1) == [5, 6]
    assert [type(v) for v in parse_leaves("5.0,6.5", 2, 1)] == [int, float]
    assert _refused(parse_leaves, "", 2, 18) == "a tree may have at most 200000 leaves"
    assert _refused(parse_leaves, "1,b", 2, 1) == "not a number: 'b'"
    assert _refused(parse_leaves, "1,2,3", 2, 1) == (
        "branching 2 and depth 1 need 2 leaf values, got 3"
    )
    assert _refused(parse_leaves, "1", 2, 17) == (
        "branching 2 and depth 17 need 131072 leaf values, got 1"
    )


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "[1, ]",
            "a number or a list is missing at character 5, between \u201c[1, \u201d and \u201c]\u201d",
        ),
        ("[1 2]", "a comma is missing at character 4, between \u201c[1 \u201d and \u201c2]\u201d"),
        ("[1, y]", "\u201cy\u201d is not a number at character 5"),
        ("[1, 2]]", "a \u201c]\u201d closes nothing at character 7"),
        (
            "[[1]\n,[2]\n,[3 4]]",
            "a comma is missing at line 3, column 5, between \u201c1] ,[2] ,[3 \u201d and \u201c4]]\u201d",
        ),
        ("[1, 2] [3]", "something follows the end of the list at character 8"),
        ('[1, "2]', "the list cannot be read at character 5"),
        ("[1, X]", "\u201cX\u201d is not a number at character 5"),
        ("[[[", "3 \u201c[\u201d never closed; the first unclosed one is at character 1"),
    ],
)
def test_parse_nested_in_words(text, words):
    assert words in _refused(parse_nested, text)


def test_parse_nested_64_levels_are_read():
    text = "[" * 64 + "1" + "]" * 64
    assert Tree.from_nested(parse_nested(text)).depth() == 64
    assert "nested more than 64 levels deep at character 65" in _refused(
        parse_nested, "[" * 65 + "1" + "]" * 65
    )


# -- CS188 ----------------------------------------------------------------------------------------

_SMALL = """class: "GraphGameTreeTest"
alg: "MinimaxAgent"
depth: "1"

num_agents: "2"

start_state: "A"
win_states: "C D E"
lose_states: ""

successors: \"\"\"
A a0 B
A a1 C
B a0 D
B a1 E
\"\"\"

evaluation: \"\"\"
C 3.0
D 1.0
E 2.5
\"\"\"
"""


def test_to_cs188_writes_the_file():
    tree = Tree.from_nested([[1, 2.5], 3])
    assert tree.to_cs188("MinimaxAgent") == _SMALL
    # depth counts whole rounds, rounded up: 3 plies of max,min is 2 rounds
    deeper = Tree.from_nested([[[1]], 2])
    assert 'depth: "2"' in deeper.to_cs188()
    assert 'alg: "AlphaBetaAgent"' in deeper.to_cs188()
    assert 'depth: "1"' in Tree.from_nested([[[1]]], "max,min,min").to_cs188()
    evaluated = Tree.from_nested([{"eval": -1.5, "children": [4]}], "max,min,min")
    text = evaluated.to_cs188(plies=3)
    assert 'depth: "1"' in text and 'num_agents: "3"' in text
    assert "B -1.5\n" in text and 'win_states: "C"' in text


def test_to_cs188_refuses_one_agent():
    assert _refused(Tree.from_nested([1], "max").to_cs188) == (
        "CS188 trees have one maximizer followed by minimizers (max,min or max,min,min...), not max"
    )


def test_read_cs188_reads_the_file_back():
    problem = read_cs188(_SMALL)
    assert problem.tree == Tree.from_nested([[1, 2.5], 3])
    assert problem.plies == 2 and problem.depth == 1 and problem.alg == "MinimaxAgent"
    assert problem.states == {"": "A", "0": "B", "1": "C", "0.0": "D", "0.1": "E"}
    assert problem.actions == {"0": "a0", "1": "a1", "0.0": "a0", "0.1": "a1"}
    assert problem.state_names(["0.1", ""]) == ["E", "A"]
    assert [type(problem.tree.node(p).value) for p in ("1", "0.1")] == [int, float]


def test_read_cs188_defaults():
    text = (
        _SMALL.replace('class: "GraphGameTreeTest"\n', "")
        .replace('alg: "MinimaxAgent"\n', "")
        .replace('depth: "1"\n', "")
        .replace('num_agents: "2"\n', "")
    )
    problem = read_cs188("# a comment\n   \n" + text)
    assert problem.plies is None and problem.depth is None and problem.alg == ""
    assert problem.tree.players == ("max", "min")


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ('start_state: "A"\n', "", "a CS188 game tree test needs a 'start_state' field"),
        (
            'successors: """\nA a0 B\nA a1 C\nB a0 D\nB a1 E\n"""\n',
            "",
            "a CS188 game tree test needs a 'successors' field",
        ),
        (
            'evaluation: """\nC 3.0\nD 1.0\nE 2.5\n"""\n',
            "",
            "a CS188 game tree test needs a 'evaluation' field",
        ),
        ('num_agents: "2"', 'num_agents: "two"', "num_agents must be a whole number, got 'two'"),
        ('num_agents: "2"', 'num_agents: "17"', "num_agents must be 2..16, got 17"),
        ('depth: "1"', 'depth: "-1"', "depth must be at least 1, got -1"),
        ("A a1 C\n", "A a1 C x\n", "a successors line is 'state action next', got 'A a1 C x'"),
        ("C 3.0\n", "C 3.0 4.0\n", "an evaluation line is 'state value', got 'C 3.0 4.0'"),
        ("C 3.0\n", "C three\n", "not a number in evaluation line 'C three'"),
        ("C 3.0\n", "C inf\n", "the evaluation of C must be finite, got inf"),
        ("C 3.0\n", "", "state 'C' is a win or lose state but has no evaluation"),
        ("D 1.0\n", "", "state 'D' is a win or lose state but has no evaluation"),
        ('depth: "1"', 'depth: "1"\nwhat is this', "cannot read CS188 line 'what is this'"),
    ],
)
def test_read_cs188_refusals_in_words(old, new, words):
    assert old in _SMALL
    assert _refused(read_cs188, _SMALL.replace(old, new, 1)) == words


def test_read_cs188_limits():
    # a chain of 65 plies past the start is refused, 64 is read
    def chain(n: int) -> str:
        lines = "\n".join(f"s{i} a s{i + 1}" for i in range(n))
        return f'start_state: "s0"\nsuccessors: """\n{lines}\n"""\nevaluation: """\ns{n} 1\n"""\n'

    assert read_cs188(chain(64)).tree.depth() == 64
    assert _refused(read_cs188, chain(65)) == "a tree may have at most 200000 nodes and depth 64"
    # a state at the depth limit without successors is a leaf scored there
    limited = _SMALL.replace("B a1 E\n", "B a1 E\nE a0 F\n")
    problem = read_cs188(limited.replace("E 2.5\n", "E 2.5\nF 9\n"))
    assert problem.tree.node("0.1").value == 2.5 and problem.tree.node("0.1.0").value == 9


def test_read_cs188_refuses_a_leaf_without_evaluation_and_an_unclosed_block():
    no_eval = _SMALL.replace('win_states: "C D E"', 'win_states: "D E"').replace("C 3.0\n", "")
    assert _refused(read_cs188, no_eval) == "leaf state 'C' has no evaluation"
    unclosed = _SMALL.rstrip().removesuffix('"""')
    assert _refused(read_cs188, unclosed) == 'the \'evaluation\' block is not closed with """'


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{}", "the tree must be a list in brackets, such as [[3, 12], [2, 4]]"),
        ("", "the nested list is empty: type one such as [[3, 12], [2, 4]]"),
        # the line and column count only the newlines before the mistake
        (
            "[1 2,\n3]",
            "a comma is missing at line 1, column 4, between \u201c[1 \u201d and \u201c2, 3]\u201d",
        ),
        (
            "\n[1 2,\n3]",
            "a comma is missing at line 2, column 4, between \u201c [1 \u201d and \u201c2, 3]\u201d",
        ),
        # twelve characters either side, newlines shown as spaces
        (
            "[1 2, 3, 4, 5, 6,\n7]",
            "a comma is missing at line 1, column 4, between \u201c[1 \u201d and \u201c2, 3, 4, 5, \u201d",
        ),
        (
            "[1 2,\n3,\n4]",
            "a comma is missing at line 1, column 4, between \u201c[1 \u201d and \u201c2, 3, 4]\u201d",
        ),
    ],
)
def test_parse_nested_exact_words(text, words):
    assert _refused(parse_nested, text) == words


def test_parse_leaves_accepts_exactly_200000_leaves():
    assert _refused(parse_leaves, "1", 200_000, 1) == (
        "branching 200000 and depth 1 need 200000 leaf values, got 1"
    )
    assert _refused(parse_leaves, "1", 200_001, 1) == "a tree may have at most 200000 leaves"


def test_node_objects_count_towards_the_depth_limit():
    def chain(levels: int) -> object:
        nested: object = 1
        for _ in range(levels):
            nested = {"eval": 0, "children": [nested]}
        return nested

    assert Tree.from_nested(chain(64)).depth() == 64
    assert _refused(Tree.from_nested, chain(65)) == (
        "a tree may have at most 200000 nodes and depth 64"
    )


def test_read_cs188_reading_details():
    # an indented comment, blank lines inside blocks, quotes and X's in names
    text = (
        _SMALL.replace('start_state: "A"', '  # the start\nstart_state: "A"')
        .replace("A a1 C\n", "A a1 C\n\n")
        .replace("D 1.0\n", "\nD 1.0\n")
    )
    problem = read_cs188(text)
    assert problem.tree == Tree.from_nested([[1, 2.5], 3])
    named = read_cs188(
        'start_state: "Xs"\nsuccessors: """\nXs aX XX\n"""\nevaluation: """\nXX 4\n"""\n'
    )
    assert named.states == {"": "Xs", "0": "XX"} and named.actions == {"0": "aX"}
    # without win_states and lose_states no state is terminal, whatever it is named
    bare = 'start_state: "S"\nsuccessors: """\nS a XXXX\nXXXX a L\n"""\n'
    bare += 'evaluation: """\nXXXX 1\nL 2\n"""\n'
    assert read_cs188(bare).tree == Tree.from_nested([{"eval": 1, "children": [2]}])


def test_read_cs188_agent_and_state_limits():
    assert read_cs188(_SMALL.replace('num_agents: "2"', 'num_agents: "16"')).tree.players == (
        "max",
        *("min",) * 15,
    )

    # 200,000 states (the start and 199,999 successors) are read; one more is refused
    def flat(states: int) -> str:
        lines = "\n".join(f"S a{i} s{i}" for i in range(states - 1))
        values = "\n".join(f"s{i} 0" for i in range(states - 1))
        return f'start_state: "S"\nsuccessors: """\n{lines}\n"""\nevaluation: """\n{values}\n"""\n'

    assert read_cs188(flat(200_000)).tree.node_count() == 200_000
    assert _refused(read_cs188, flat(200_001)) == (
        "a tree may have at most 200000 nodes and depth 64"
    )


def test_the_walk_and_the_leaves_are_found_once_and_lent_as_copies():
    tree = Tree.from_nested([[3, [5, 1]], [2]])
    walked = list(tree.walk())
    assert [path for path, _ in walked] == ["", "0", "1", "0.0", "0.1", "1.0", "0.1.0", "0.1.1"]
    assert walked == list(tree.walk())  # read again, the same order
    leaves = tree.leaves()
    leaves.append("9")  # a caller's list is its own
    leaves.clear()
    assert tree.leaves() == ["0.0", "1.0", "0.1.0", "0.1.1"]
    assert tree.leaf_count() == 4 and tree.node_count() == 8 and tree.depth() == 3
    assert tree.node("0.1") is walked[4][1]
