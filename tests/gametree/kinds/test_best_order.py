"""The best-order kind (`grader/gametree/kinds/best_order.py`): its key under the exercise's own
conventions, its grade, hint and replays, and its answer drawn beside the key.

Mutants of this kind's module no test here kills (docs/testing.md, "Mutation testing"), each
judged equivalent unless it says otherwise:
- ``BestOrderKind.grade``: ``replays(..., least.orders)`` changed to no best order: ``replays``
  then solves the same Optimizer for the same cut tree and conventions, and gets the same orders.
- ``_search_on_drawing``: a cutoff's ``source`` always mapped: a cutoff has no source only when a
  value passes the initial window (-inf, +inf), and tree values are finite (TreeFormatError).
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
- ``BestOrderKind.blind_facts``: the drawn node's index clamped to ``len(deepest) + 1`` rather
  than ``- 1``: ``random()`` is below 1, so ``int(random() * n)`` is at most ``n - 1`` and the
  clamp never acts.
- ``_another_best`` (the examples' other best ordering): counting leaves with no conventions
  rather than ``Conventions()``: ``solve`` takes None as the default conventions. ``_differing``
  with no default (or None) for a node missing from either ordering: ``_orderings`` lists every
  internal node, and so does the key of the one tree the examples use. ``_orderings``'
  ``zip(..., strict=True)`` without ``strict``: one choice is made for each internal node, so
  the two always have the same length.
"""

from __future__ import annotations

import re

import pytest

from grader.gametree import KINDS, Conventions, Tree, grade, solve
from grader.gametree import kinds as kinds_module
from grader.gametree.optimum import dp_size
from grader.gametree.tree import child_path
from tests.gametree._helpers import ALL_CONVENTIONS, brute_force_least_leaves
from tests.gametree.kinds._helpers import AG, AIMA, DEPTH_TREE, TIE, refused_words


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
    assert refused_words(kind, answer) == message


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


def test_the_hint_at_a_node_the_answer_reordered_starts_from_the_answers_order() -> None:
    # C's children searched G, F: the hint is to search F (C's first child as drawn) first again,
    # which only the answer's own order at C shows is not already first.
    graded = grade("best-order", AG, Conventions(), {"order": {"1": [1, 0]}})
    assert graded.feedback == [
        "Your ordering evaluates 7 leaves; the best evaluates 5.",
        "At C, search F first: with the rest of your order unchanged, alpha-beta then evaluates 5 "
        "leaves instead of 7.",
    ]


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


def test_four_hundred_leaves_are_within_the_best_order_limit_and_the_work_refuses_them() -> None:
    # 20^2 is exactly the 400 leaves allowed; its ordering is too much work. By hand
    # (optimum.uniform_dp_size, 2 values so at most 3^2 = 9 windows): the root 1 x 1 x 20 x 2^20,
    # its 20 children 20 x 9 x 20 x 2^20, the 400 leaves 400 x 9: 3,795,848,720 states.
    assert KINDS["best-order"].generator_problems(20, 2, 2) == [
        "finding the best ordering of 20^2 leaves is too much work (3,795,848,720 states, at "
        "most 1,500,000): less branching or depth"
    ]
    assert KINDS["best-order"].generator_problems(3, 3, 10) == []


def test_the_examples_other_best_differs_everywhere_and_its_wrong_one_is_blamed_at_a() -> None:
    # AIMA Figure 5.5 at its best evaluates 5 leaves: B first at the root, then C's 2 and D's 2
    # first, each cutting its node after one leaf; the root's last two children and B's three
    # leaves in any order. The key changes only D's order (2, then the rest as given). An
    # ordering can differ from it at all four internal nodes, and the example's is the first
    # such in the order of permutations: B, D, C at the root; 3, 8, 12 at B; 2, 6, 4 at C;
    # 2, 5, 14 at D.
    kind = KINDS["best-order"]
    examples = {example.name: example for example in kind.examples()}
    assert examples["another best"].tree == AIMA
    key = kind.key(AIMA, Conventions())
    assert key == {
        "order": {"": [0, 1, 2], "0": [0, 1, 2], "1": [0, 1, 2], "2": [2, 0, 1]},
        "leaves": 5,
    }
    other = examples["another best"].answer["order"]
    assert other == {"": [0, 2, 1], "0": [0, 2, 1], "1": [0, 2, 1], "2": [2, 1, 0]}
    assert all(other[p] != key["order"][p] for p in key["order"])
    assert grade("best-order", AIMA, Conventions(), {"order": other}).score == 1.0
    assert (examples["another best"].score, examples["right"].score) == (1.0, 1.0)
    # The wrong one searches that ordering's root backwards: C (2, 6, 4: all three), D (its 2
    # cuts), B (3, 8, 12): 7 leaves. B first at A would make it 5, so the grade blames A.
    wrong = examples["wrong"]
    assert wrong.answer["order"] == {**other, "": [1, 2, 0]}
    assert wrong.wrong_at == frozenset({""})
    blamed = grade("best-order", AIMA, Conventions(), wrong.answer).first_wrong
    assert blamed is not None and blamed["message"] == (
        "At A, search B first: with the rest of your order unchanged, alpha-beta then "
        "evaluates 5 leaves instead of 7."
    )


def test_the_hint_is_at_the_first_node_the_search_enters_not_the_first_it_bounds() -> None:
    # MAX A over MIN B = (D = max(6, 6), E = max(1, 3)) and MIN C = (F = max(1, 8),
    # G = max(6, 0)). As given: D's 6, 6, E's 1, 3 (B = 3), F's 1, 8, G's 6, 0 (C = 6): 8 leaves.
    # Searching C first at A: C = 6 in 4 leaves, then D = 6 >= 6 cuts B: 6 leaves. Searching E
    # first at B: E = 3, then D's 6 >= 3 cuts D: 7 leaves. The search enters A before B, but
    # B's window narrows (after D) before A's does, so the hint is at A, the node entered first.
    tree = Tree.from_nested([[[6, 6], [1, 3]], [[1, 8], [6, 0]]])
    graded = grade("best-order", tree, Conventions(), {"order": {}})
    assert graded.first_wrong == {
        "path": "",
        "label": "A",
        "step": None,
        "message": "At A, search C first: with the rest of your order unchanged, alpha-beta "
        "then evaluates 6 leaves instead of 8.",
    }
