"""The solver as grading depends on it: ties for the best move, the trace and the bound's source when a value equals a bound, the
shallow-cutoffs variant with non-alternating players, minimax under its conventions, the
conventions' keys, numbers typed as text, and every field of ``to_dict()``.

Surviving mutants judged equivalent (mutmut on solver.py; no behaviour changes, so no test can
kill them):
- ``minimax()``: ``pruning=False`` changed to ``pruning=None`` (both falsy).
- ``_Search.visit``: the best move's start value ``None`` changed to ``""``: leaf values are
  finite (``tree._check_value``), so the first child searched always replaces it.
- ``_Search.visit_chance``: ``crossed``'s start value ``None`` changed to ``""``: it is read only
  where ``cut_at`` is set too, and the two are set together.
- ``search()``: ``leaf_count() > KEPT_LEAVES`` changed to ``>=``: a tree of exactly that size is
  searched afresh instead of from the kept searches, with the same result.
- ``SearchResult._build_dict``: each node's probabilities read whether or not the tree has a
  chance node (``Tree.probabilities`` is None for MAX, MIN and leaves); a cutoff's interval
  written when either end is set, not both (Star1's cutoffs set both, the others neither).
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import pytest
from hypothesis import example, given, settings

from grader.gametree import (
    KINDS,
    Conventions,
    Order,
    Role,
    Side,
    StepKind,
    Ties,
    Tree,
    ValuesRule,
    minimax,
    solve,
    solver,
)
from grader.gametree.numbers import read_number
from grader.gametree.solver import (
    INF,
    Cutoff,
    NodeResult,
    Step,
    TreeSearchRules,
    jsonable,
    search,
)
from grader.gametree.variants import VARIANTS
from tests.gametree._helpers import conventions, trees, true_minimax


def cut(path, kind, alpha, beta, value, deep, source, pruned, step):
    return Cutoff(path, kind, alpha, beta, value, deep, source, pruned, step)


# -- the best move on ties ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nested", "players", "order", "best"),
    [
        ([1, 1], "min,max", "ltr", 0),  # the first child reaching the value, in search order
        ([1, 1], "min,max", "rtl", 1),
        ([1, 1], "max,min", "ltr", 0),
        ([3, 1, 1], "min,max", "ltr", 1),
        ([3, 1, 1], "min,max", "rtl", 2),
        ([1, 3, 3], "max,min", "ltr", 1),
        ([1, 3, 3], "max,min", "rtl", 2),
    ],
)
def test_the_best_move_on_ties_is_the_first_searched(nested, players, order, best):
    tree = Tree.from_nested(nested, players)
    for ties in ("prune", "explore"):
        conv = Conventions(ties=ties, order=order)
        assert solve(tree, conv).best_move == best
        assert minimax(tree, conv).best_move == best


@settings(max_examples=200, deadline=None)
@given(trees(), conventions)
def test_each_nodes_best_child_is_kept_once_as_the_first_best_in_search_order(tree, conv):
    """The rule the replay's "Best line" and the kinds read: at a MAX or MIN node, the first
    child searched whose returned value is best for its player (the root's is ``best_move``)."""
    for result in (solve(tree, conv), minimax(tree, conv)):
        for path, node in result.tree.walk():
            if node.is_leaf or path not in result.nodes or result.player(path) == "chance":
                assert path not in result.best_children
                continue
            searched = [c for c in _children(path, len(node.children), conv) if c in result.nodes]
            values = [result.nodes[c].value for c in searched]
            best = max(values) if result.player(path) == "max" else min(values)
            assert result.best_child(path) == searched[values.index(best)]
        assert result.best_children.get("") == result.best_move
        line = result.best_line()
        assert line[0] == "" and all(b == result.best_child(a) for a, b in itertools.pairwise(line))
        assert result.best_child(line[-1]) is None
        nodes = result.to_dict()["nodes"]
        assert {p: e["best"] for p, e in nodes.items() if "best" in e} == {
            p: result.best_child(p) for p in result.best_children
        }


def _children(path: str, n: int, conv: Conventions) -> list[str]:
    order = range(n - 1, -1, -1) if conv.order == "rtl" else range(n)
    return [f"{path}.{i}" if path else str(i) for i in order]


# -- a child's value equal to a bound ------------------------------------------------------------

EQUAL = [[3, 5], [3, 9]]


def test_trace_when_a_child_equals_the_bound_under_prune():
    # A (MAX) = [B, C]; B = min(3, 5) = 3 sets A's alpha = 3 (source A). C's first leaf 3 sets
    # C's beta = 3 = alpha: prune stops and skips C's 9. C returns 3, which equals A's alpha:
    # no new bound step at A (only a larger value raises alpha), and A's best move stays B.
    result = solve(Tree.from_nested(EQUAL), Conventions())
    assert result.trace == (
        Step(0, "enter", "", -INF, INF),
        Step(1, "enter", "0", -INF, INF),
        Step(2, "enter", "0.0", -INF, INF),
        Step(3, "leaf", "0.0", -INF, INF, 3),
        Step(4, "bound", "0", -INF, 3, 3, "beta"),
        Step(5, "enter", "0.1", -INF, 3),
        Step(6, "leaf", "0.1", -INF, 3, 5),
        Step(7, "return", "0", -INF, 3, 3),
        Step(8, "bound", "", 3, INF, 3, "alpha"),
        Step(9, "enter", "1", 3, INF),
        Step(10, "enter", "1.0", 3, INF),
        Step(11, "leaf", "1.0", 3, INF, 3),
        Step(12, "bound", "1", 3, 3, 3, "beta"),
        Step(13, "cutoff", "1", 3, 3, 3, None, ("1.1",)),
        Step(14, "return", "1", 3, 3, 3),
        Step(15, "return", "", 3, INF, 3),
    )
    assert result.cutoffs == (cut("1", "alpha", 3, 3, 3, False, "", ("1.1",), 13),)
    assert result.best_move == 0 and result.value == 3
    assert result.visited == ("", "0", "0.0", "0.1", "1", "1.0")
    assert result.nodes == {
        "0.0": NodeResult(3, -INF, INF),
        "0.1": NodeResult(5, -INF, 3),
        "0": NodeResult(3, -INF, 3),
        "1.0": NodeResult(3, 3, INF),
        "1": NodeResult(3, 3, 3),
        "": NodeResult(3, 3, INF),
    }


def test_trace_when_a_child_equals_the_bound_under_explore():
    # CS188: C's 3 is not strictly below alpha = 3, so C goes on to its 9 and returns 3.
    result = solve(Tree.from_nested(EQUAL), Conventions(ties="explore"))
    assert [(s.kind, s.path, s.value) for s in result.trace[9:]] == [
        ("enter", "1", None),
        ("enter", "1.0", None),
        ("leaf", "1.0", 3),
        ("bound", "1", 3),
        ("enter", "1.1", None),
        ("leaf", "1.1", 9),
        ("return", "1", 3),
        ("return", "", 3),
    ]
    assert result.cutoffs == () and result.pruned == ()
    assert result.nodes["1.1"] == NodeResult(9, 3, 3)


def test_fail_hard_clamps_into_the_window_it_was_given():
    # A = [B, C, D]: B = min(4, 6) = 4; C = min(max(9, 8), 7) = 7 sets A's alpha = 7; D's first
    # leaf 2 <= 7 cuts its 5: fail-soft reports 2, fail-hard the alpha 7 it crossed.
    tree = Tree.from_nested([[4, 6], [[9, 8], 7], [2, 5]])
    hard = solve(tree, Conventions(values="hard"))
    soft = solve(tree, Conventions())
    assert hard.value == soft.value == 7
    assert soft.nodes["1.0"].value == 9 and hard.nodes["1.0"].value == 9
    assert soft.nodes["1"].value == 7 and hard.nodes["1"].value == 7
    assert soft.nodes["2"] == NodeResult(2, 7, 2)
    assert hard.nodes["2"] == NodeResult(7, 7, 2)
    # A MIN node whose leaves all lie above the beta it was given reports that beta (fail-hard).
    above = Tree.from_nested([[2, 3], [5, 6]], "max,max")
    assert solve(above, Conventions(values="hard")).value == 6
    assert solve(Tree.from_nested([[5, [1, 9]], 4]), Conventions(values="hard")).nodes["0.1"] == (
        NodeResult(5, 9, 5)
    )


def test_the_bound_source_is_the_node_that_set_it():
    # A (MAX) = [B, C]; B (MIN) = [5, D]; D (MAX) = [6, 2]: D inherits B's beta = 5 set at B,
    # its parent, so D's cut after 6 is shallow with source B. C (MIN) = [E, 1, 8] with E (MAX)
    # = [4, 9]: C's beta becomes 9, then 1 <= alpha 5 (set at A, C's parent) cuts the 8.
    tree = Tree.from_nested([[5, [6, 2]], [[4, 9], 1, 8]])
    result = solve(tree, Conventions())
    assert [(c.path, c.kind, c.deep, c.source) for c in result.cutoffs] == [
        ("0.1", "beta", False, "0"),
        ("1", "alpha", False, ""),
    ]
    # E = max(4, 9) = 9 is searched whole (9 > beta inf); C's beta 9, then 1 <= 5 is the leaf.
    assert result.leaf_order == ("0.0", "0.1.0", "1.0.0", "1.0.1", "1.1")


# -- the shallow-cutoffs variant --------------------------------------------------------------


def test_shallow_cutoffs_with_two_minimizers_miss_the_deep_cutoff():
    # Players max,min,min: A = [4, C]; C (MIN) = [D, 9]; D (MIN) = [2, 7]. The reference cuts D's 7
    # with A's alpha (deep) and C's 9 (shallow). Passing down only the parent's bound, D is
    # entered with (-inf, inf) from C (a MIN node: its own beta so far) and evaluates its 7.
    tree = Tree.from_nested([4, [[2, 7], 9]], "max,min,min")
    shallow = VARIANTS["shallow-cutoffs"].run(tree, Conventions())
    assert shallow.leaf_order == ("0", "1.0.0", "1.0.1")
    assert shallow.nodes["1.0"] == NodeResult(2, -INF, 2)
    assert shallow.cutoffs == (cut("1", "alpha", 4, 2, 2, False, "", ("1.1",), 13),)
    reference = solve(tree, Conventions())
    assert [c.deep for c in reference.cutoffs] == [True, False]


@settings(max_examples=150, deadline=None)
@given(trees(), conventions)
@example(Tree.from_nested([4, [[2, 7], 9]], "max,min,min"), Conventions())
@example(Tree.from_nested([5, [[[3, 9], 7], 4, 6]]), Conventions(ties="explore"))
def test_shallow_cutoffs_are_never_deep_and_the_value_is_still_exact(tree, conv):
    result = search(tree, TreeSearchRules(conv, shallow=True))
    assert not any(c.deep for c in result.cutoffs)
    assert all(c.source in (c.path, c.path.rpartition(".")[0]) for c in result.cutoffs)
    assert result.value == true_minimax(tree)[""]
    # Its window is never narrower than the reference's, so it evaluates at least those leaves.
    assert set(solve(tree, conv).leaf_order) <= set(result.leaf_order)


# -- minimax() under its conventions ---------------------------------------------------------


def test_minimax_follows_the_order_and_depth_of_its_conventions():
    tree = Tree.from_nested([[1, 2], [3, 4]])
    rtl = minimax(tree, Conventions(order="rtl"))
    assert rtl.leaf_order == ("1.1", "1.0", "0.1", "0.0")
    assert rtl.conventions.order == "rtl" and rtl.value == 3 and rtl.best_move == 1
    assert [s.path for s in rtl.trace if s.kind == "enter"] == [
        "",
        "1",
        "1.1",
        "1.0",
        "0",
        "0.1",
        "0.0",
    ]
    assert rtl.cutoffs == () and rtl.pruned_all == ()
    deep = Tree.from_nested([{"eval": 9, "children": [1, 2]}, {"eval": 0, "children": [3, 4]}])
    limited = minimax(deep, Conventions(depth=1))
    assert limited.value == 9 and limited.leaf_order == ("0", "1")


def test_minimax_never_prunes_even_where_alpha_beta_does():
    tree = Tree.from_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    for conv in (Conventions(), Conventions(values="hard"), Conventions(ties="explore")):
        result = minimax(tree, conv)
        assert len(result.leaf_order) == 9 and result.value == 3
        assert result.nodes["1"].value == 2 and result.nodes["2"].value == 2


# -- conventions ---------------------------------------------------------------------------------


def test_conventions_from_dict_refuses_unknown_keys_and_bad_values():
    assert Conventions.from_dict(None) == Conventions()
    assert Conventions.from_dict({}) == Conventions()
    assert Conventions.from_dict({"order": "rtl", "depth": 3}) == Conventions(order="rtl", depth=3)
    with pytest.raises(ValueError, match="unknown convention 'tie'"):
        Conventions.from_dict({"tie": "prune"})
    with pytest.raises(ValueError, match="unknown convention 'a'"):
        Conventions.from_dict({"b": 1, "a": 2, "ties": "prune"})
    for bad in (["ta"], "ties", 3):
        with pytest.raises(ValueError, match="conventions are an object"):
            Conventions.from_dict(bad)
    for bad in (
        {"ties": "Prune"},
        {"values": None},
        {"order": ["ltr"]},
        {"depth": "3"},
        {"depth": True},
        {"depth": 0},
        {"depth": 65},
        {"depth": 2.0},
    ):
        with pytest.raises(ValueError):
            Conventions.from_dict(bad)
    assert Conventions(depth=1).depth == 1 and Conventions(depth=64).depth == 64


def test_conventions_to_dict_round_trips():
    for conv in (Conventions(), Conventions("explore", "soft", "rtl", 5)):
        assert Conventions.from_dict(conv.to_dict()) == conv
    assert Conventions().to_dict() == {"ties": "prune", "values": "soft", "order": "ltr"}
    assert Conventions(depth=2).to_dict()["depth"] == 2


# The sentences students read beside every exercise, word for word.
DESCRIBED = [
    (
        Conventions(),
        None,
        "Children are searched left to right; a node stops as soon as alpha >= beta; a cut node "
        "returns its best value so far.",
    ),
    (
        Conventions(values="hard", order="rtl", depth=2),
        None,
        "Children are searched right to left; a node stops as soon as alpha >= beta; a node returns "
        "its value clamped to its window (a cut node returns the bound). The search stops 2 plies "
        "below the root: a node there is scored by its evaluation and never expanded.",
    ),
    (
        Conventions(ties="explore"),
        "values",
        "Children are searched left to right; a node stops only when its value is strictly outside "
        "(alpha, beta); a cut node returns its best value so far.",
    ),
    (
        Conventions(),
        "prune",
        "Children are searched left to right; a node stops as soon as alpha >= beta.",
    ),
    (
        Conventions(order="rtl"),
        "leaf-order",
        "Children are searched right to left; a node stops as soon as alpha >= beta.",
    ),
    (
        Conventions(ties="explore"),
        "best-order",
        "Children are searched left to right; a node stops only when its value is strictly outside "
        "(alpha, beta).",
    ),
    (
        Conventions(depth=3),
        "minimax",
        "Plain minimax: every node is searched and nothing is pruned; a MAX node takes the largest "
        "value of its children, a MIN node the smallest. The search stops 3 plies below the root: a "
        "node there is scored by its evaluation and never expanded.",
    ),
]


@pytest.mark.parametrize(("conv", "kind", "text"), DESCRIBED)
def test_describe_word_for_word(conv, kind, text):
    assert (conv.describe() if kind is None else KINDS[kind].conventions_words(conv)) == text


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"depth": 0}, "depth must be a whole number of plies 1..64, got 0"),
        ({"bounds": (5, 1)}, "bounds [L, U] need L <= U, got (5, 1)"),
        ({"bounds": [1, 2, 3]}, "bounds are [L, U], got [1, 2, 3]"),
        ({"ties": "x"}, "ties must be one of prune, explore, got 'x'"),
        ({"values": "x"}, "values must be one of soft, hard, got 'x'"),
        ({"order": "x"}, "order must be one of ltr, rtl, got 'x'"),
        (
            {"ties": "explore", "values": "hard"},
            "ties=explore needs values=soft (fail-hard returns the bound itself)",
        ),
    ],
)
def test_convention_errors_word_for_word(fields, message):
    with pytest.raises(ValueError) as caught:
        Conventions(**fields)
    assert str(caught.value) == message
    with pytest.raises(ValueError) as caught:
        Conventions.from_dict([1])
    assert str(caught.value) == "conventions are an object, got list"


def test_describe_names_each_convention():
    hard = Conventions(values="hard", order="rtl", depth=2)
    text = hard.describe()
    assert "right to left" in text and "alpha >= beta" in text and "clamped" in text
    assert "2 plies below the root" in text
    explore = KINDS["values"].conventions_words(Conventions(ties="explore"))
    assert (
        "left to right" in explore
        and "strictly outside" in explore
        and "best value so far" in explore
    )
    assert "values" not in KINDS["prune"].conventions_words(Conventions()).split(";")[-1]
    assert KINDS["minimax"].conventions_words(Conventions()).startswith("Plain minimax")
    assert "plies" not in KINDS["minimax"].conventions_words(Conventions())


# -- numbers typed as text -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("3", 3),
        (" -7 ", -7),
        ("2.5", 2.5),
        ("4.0", 4),
        ("inf", INF),
        ("+inf", INF),
        ("Infinity", INF),
        ("∞", INF),
        ("-∞", -INF),
        ("-infinity", -INF),
        (" -INF ", -INF),
        ("9007199254740993", 9007199254740993),  # above 2**53: exact, not rounded through float
        (5, 5),
        (-1.5, -1.5),
        (INF, INF),
    ],
)
def test_read_number_reads_numbers_and_infinities(text, number):
    # The answer grammar (gametree.numbers) reads what from_jsonable read, except an exponent.
    got = read_number(text)
    assert got == number and type(got) is type(number)


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "abc",
        "nan",
        "NaN",
        "1e400",
        "-1e400",
        "inf inf",
        "3 4",
        True,
        False,
        None,
        [],
        {},
        math.nan,
        "0x10",
        "1e3",  # an exponent is not in the answer grammar
    ],
)
def test_read_number_refuses_what_is_not_a_number(bad):
    with pytest.raises(ValueError, match="must be a number"):
        read_number(bad)


def test_jsonable_writes_infinities_as_text():
    assert [jsonable(x) for x in (INF, -INF, 0, 2.5, -3)] == ["inf", "-inf", 0, 2.5, -3]


def test_jsonable_writes_a_fraction_exactly_and_a_whole_one_as_an_int():
    assert jsonable(Fraction(14, 3)) == "14/3"
    assert jsonable(Fraction(-1, 2)) == "-1/2"
    whole = jsonable(Fraction(6, 2))
    assert whole == 3 and type(whole) is int


# -- to_dict() -------------------------------------------------------------------------------


def test_to_dict_holds_every_field():
    result = solve(Tree.from_nested(EQUAL, "max,min"), Conventions())
    d = result.to_dict()
    assert result.to_dict() is d  # built once
    assert d == {
        "value": 3,
        "best_move": 0,
        "leaf_order": ["0.0", "0.1", "1.0"],
        "pruned": ["1.1"],
        "pruned_all": ["1.1"],
        "conventions": {"ties": "prune", "values": "soft", "order": "ltr"},
        "players": ["max", "min"],
        "cutoffs": [
            {
                "path": "1",
                "label": "C",
                "kind": "alpha",
                "alpha": 3,
                "beta": 3,
                "value": 3,
                "deep": False,
                "source": "",
                "pruned": ["1.1"],
                "step": 13,
            },
        ],
        "nodes": {
            "": {
                "label": "A",
                "player": "max",
                "visited": True,
                "value": 3,
                "alpha": 3,
                "beta": "inf",
                "best": "0",
            },
            "0": {
                "label": "B",
                "player": "min",
                "visited": True,
                "value": 3,
                "alpha": "-inf",
                "beta": 3,
                "best": "0.0",
            },
            "1": {
                "label": "C",
                "player": "min",
                "visited": True,
                "value": 3,
                "alpha": 3,
                "beta": 3,
                "best": "1.0",
            },
            "0.0": {
                "label": "D",
                "player": "max",
                "visited": True,
                "value": 3,
                "alpha": "-inf",
                "beta": "inf",
            },
            "0.1": {
                "label": "E",
                "player": "max",
                "visited": True,
                "value": 5,
                "alpha": "-inf",
                "beta": 3,
            },
            "1.0": {
                "label": "F",
                "player": "max",
                "visited": True,
                "value": 3,
                "alpha": 3,
                "beta": "inf",
            },
            "1.1": {"label": "G", "player": "max", "visited": False},
        },
        "trace": [
            {"step": 0, "kind": "enter", "path": "", "alpha": "-inf", "beta": "inf"},
            {"step": 1, "kind": "enter", "path": "0", "alpha": "-inf", "beta": "inf"},
            {"step": 2, "kind": "enter", "path": "0.0", "alpha": "-inf", "beta": "inf"},
            {"step": 3, "kind": "leaf", "path": "0.0", "alpha": "-inf", "beta": "inf", "value": 3},
            {
                "step": 4,
                "kind": "bound",
                "path": "0",
                "alpha": "-inf",
                "beta": 3,
                "value": 3,
                "bound": "beta",
            },
            {"step": 5, "kind": "enter", "path": "0.1", "alpha": "-inf", "beta": 3},
            {"step": 6, "kind": "leaf", "path": "0.1", "alpha": "-inf", "beta": 3, "value": 5},
            {"step": 7, "kind": "return", "path": "0", "alpha": "-inf", "beta": 3, "value": 3},
            {
                "step": 8,
                "kind": "bound",
                "path": "",
                "alpha": 3,
                "beta": "inf",
                "value": 3,
                "bound": "alpha",
            },
            {"step": 9, "kind": "enter", "path": "1", "alpha": 3, "beta": "inf"},
            {"step": 10, "kind": "enter", "path": "1.0", "alpha": 3, "beta": "inf"},
            {"step": 11, "kind": "leaf", "path": "1.0", "alpha": 3, "beta": "inf", "value": 3},
            {
                "step": 12,
                "kind": "bound",
                "path": "1",
                "alpha": 3,
                "beta": 3,
                "value": 3,
                "bound": "beta",
            },
            {
                "step": 13,
                "kind": "cutoff",
                "path": "1",
                "alpha": 3,
                "beta": 3,
                "value": 3,
                "pruned": ["1.1"],
            },
            {"step": 14, "kind": "return", "path": "1", "alpha": 3, "beta": 3, "value": 3},
            {"step": 15, "kind": "return", "path": "", "alpha": 3, "beta": "inf", "value": 3},
        ],
    }


def test_player_of_a_path_repeats_the_sequence():
    result = solve(Tree.from_nested([[[1, 2]]], "max,min,min"), Conventions())
    assert [result.player(p) for p in ("", "0", "0.0", "0.0.0")] == ["max", "min", "min", "max"]
    assert result.to_dict()["nodes"]["0.0.1"]["player"] == "max"


def test_a_value_equal_to_the_bound_moves_no_bound():
    # B (MIN) = [3, 3]: the second 3 equals B's beta, so there is no second bound step, and the
    # bound keeps the source that set it first (a MAX node alike: A's alpha stays from B).
    result = solve(Tree.from_nested([[3, 3], [4, 3, 9]]), Conventions())
    bounds = [(s.path, s.bound, s.value) for s in result.trace if s.kind == "bound"]
    assert bounds == [("0", "beta", 3), ("", "alpha", 3), ("1", "beta", 4), ("1", "beta", 3)]
    assert result.cutoffs == (cut("1", "alpha", 3, 3, 3, False, "", ("1.2",), 16),)


def test_closed_sets_are_enums_equal_to_the_stored_text():
    """Conventions, step kinds, window sides and roles are enum members; each equals the text
    stored and sent, so a stored exercise and the trace's JSON read the same."""
    conv = Conventions.from_dict({"ties": "explore", "values": "soft", "order": "rtl"})
    assert (conv.ties, conv.values, conv.order) == (Ties.EXPLORE, ValuesRule.SOFT, Order.RTL)
    assert json.dumps(conv.to_dict()) == '{"ties": "explore", "values": "soft", "order": "rtl"}'
    assert conv == Conventions(Ties.EXPLORE, ValuesRule.SOFT, Order.RTL)
    assert hash(conv) == hash(Conventions("explore", "soft", "rtl"))

    result = solve(Tree.from_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]]))
    kinds = {step.kind for step in result.trace}
    assert kinds == {StepKind.ENTER, StepKind.LEAF, StepKind.BOUND, StepKind.CUTOFF, "return"}
    assert all(type(step.kind) is StepKind for step in result.trace)
    assert {c.kind for c in result.cutoffs} == {Side.ALPHA}
    sent = json.loads(json.dumps(result.to_dict()))
    assert {s["kind"] for s in sent["trace"]} == {"enter", "leaf", "bound", "cutoff", "return"}

    tree = Tree.from_dict({"tree": [[1, 2], [3, 4]], "players": ["max", "chance"]})
    assert tree.players == ("max", "chance")  # stored as text
    assert (tree.player(""), tree.player("0")) == (Role.MAX, Role.CHANCE)
    assert json.dumps(tree.to_dict()["players"]) == '["max", "chance"]'


def test_a_kept_search_is_the_one_a_fresh_search_gives_and_a_big_tree_is_not_kept(monkeypatch):
    nested = [[[2, 3], [5, 9]], [[0, 1], [7, 5]]]
    rules = TreeSearchRules(Conventions(), pruning=False)
    kept = search(Tree.from_nested(nested), rules)
    assert search(Tree.from_nested(nested), rules) is kept  # an equal tree finds it
    assert kept == solver._Search(Tree.from_nested(nested), rules).run()
    assert search(Tree.from_nested(nested), TreeSearchRules(Conventions())) != kept
    monkeypatch.setattr(solver, "KEPT_LEAVES", 7)  # a tree of 8 leaves is searched again
    again = search(Tree.from_nested(nested), rules)
    assert again is not kept and again == kept
