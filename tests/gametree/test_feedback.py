"""Feedback that is always right: the first-wrong-step message (properties over random trees and
random wrong answers), the best-order hint, the leaf marked in leaf order, the conventions shown."""

from __future__ import annotations

import math
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.gametree import KINDS, Conventions, Tree, grade, solve
from grader.gametree.kinds import normalize_pruned
from tests.gametree._helpers import ALL_CONVENTIONS, nodes, players

PROPERTY = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

int_trees = st.builds(
    Tree,
    nodes(max_depth=4, max_branching=3, budget=30, values=st.integers(-9, 9)).filter(
        lambda n: not n.is_leaf
    ),
    players,
)


def _numbers(message: str) -> list[float]:
    """Every number a message quotes, ordinals ("10th") and labels left out."""
    text = re.sub(r"\b\d+(st|nd|rd|th)\b", "", message)
    found = [math.inf if m == "+∞" else -math.inf for m in re.findall(r"[+-]∞", text)]
    text = re.sub(r"[+-]∞", "", text)
    return found + [float(x) for x in re.findall(r"(?<![A-Za-z])-?\d+(?:\.\d+)?", text)]


def _trace_numbers(result) -> set[float]:
    numbers = {float(x) for s in result.trace for x in (s.alpha, s.beta) if x is not None}
    numbers |= {float(s.value) for s in result.trace if s.value is not None}
    numbers |= {float(s.index) for s in result.trace}  # "(step 7)"
    return numbers


def _mutate(kind: str, tree: Tree, key, data) -> object:
    """A random answer near the key (or far from it), in the JSON shape students send."""
    paths = tree.paths()
    internal = [p for p in paths if not tree.node(p).is_leaf]
    if kind == "prune":
        pruned, value = key
        marked = set(pruned)
        for p in data.draw(st.lists(st.sampled_from(paths[1:] or [""]), max_size=3)):
            if p:
                marked ^= {p}
        value = data.draw(st.sampled_from([value, value + 1, value - 2]))
        return {"pruned": sorted(marked), "value": value}
    if kind in ("values", "minimax"):
        answer = dict(key)
        for p in data.draw(st.lists(st.sampled_from(internal), min_size=1, max_size=3)):
            answer[p] = data.draw(st.integers(-9, 9))
        return {"values": answer}
    if kind == "bounds":
        answer = dict(key)
        for p in data.draw(st.lists(st.sampled_from(internal), min_size=1, max_size=3)):
            answer[p] = (data.draw(st.integers(-9, 9)), data.draw(st.sampled_from([math.inf, 3])))
        return {"bounds": {p: [a, b] for p, (a, b) in answer.items()}}
    leaves = tree.leaves()
    return {
        "leaf_order": data.draw(st.permutations(leaves)).__getitem__(
            slice(0, data.draw(st.integers(0, len(leaves))))
        )
    }


@PROPERTY
@given(
    int_trees,
    st.sampled_from(ALL_CONVENTIONS),
    st.sampled_from(["prune", "values", "bounds", "leaf-order", "minimax"]),
    st.data(),
)
def test_the_first_wrong_step_names_a_node_that_differs_and_quotes_the_trace(
    tree, conventions, kind, data
):
    exercise = KINDS[kind]
    result, key = exercise.analysis(tree, conventions)
    answer = _mutate(kind, tree, key, data)
    canonical = exercise.normalize(tree, answer)
    graded = grade(kind, tree, conventions, answer)
    if canonical == key:
        assert graded.score == 1.0 and graded.first_wrong is None
        return
    where = graded.first_wrong
    assert where is not None, "a wrong answer always gets its first wrong step"
    path, labels = where["path"], tree.labels()
    assert where["label"] == labels[path]
    if kind == "prune":
        (marked, value), (pruned, key_value) = canonical, key
        differ = (marked ^ pruned) | ({""} if value != key_value else set())
        named = {p for p, label in labels.items() if re.search(rf"\b{label}\b", where["message"])}
        assert path in differ or named & differ
    elif kind == "leaf-order":
        i = (
            next(i for i, (a, b) in enumerate(zip(canonical, key, strict=False)) if a != b)
            if any(a != b for a, b in zip(canonical, key, strict=False))
            else min(len(canonical), len(key))
        )
        assert path in {
            canonical[i] if i < len(canonical) else None,
            key[i] if i < len(key) else None,
        }
    else:
        assert canonical.get(path) != key.get(path)
    quoted = _numbers(where["message"])
    allowed = _trace_numbers(result) | {float(tree.node(p).value) for p in tree.leaves()}
    assert set(quoted) <= allowed, (where["message"], quoted)
    if where["step"] is not None:
        assert result.trace[where["step"]].path in set(tree.paths())


# -- best order -----------------------------------------------------------------------------------

ISSUE = [
    [[-1, -5, -9], [-5, -4, -4]],
    [[6, -2, -1], [-1, -3, -7], [3, 0]],
    [[-6, -2, 1], [-3, -9], [3, 4, 3]],
]


def test_best_order_hint_names_a_change_that_lowers_the_count_and_agrees_with_the_summary():
    tree = Tree.from_nested(ISSUE)
    graded = grade("best-order", tree, Conventions(), {"order": {"": [2, 0, 1]}})
    assert graded.feedback[0] == "Your ordering evaluates 19 leaves; the best evaluates 10."
    hint = graded.first_wrong
    assert hint["path"] == "" and hint["label"] == "A"
    first = re.search(r"search (\w+) first", hint["message"]).group(1)
    assert first != "D"  # D is already searched first in this answer
    child = next(p for p, label in tree.labels().items() if label == first)
    moved = [int(child), *[i for i in (2, 0, 1) if i != int(child)]]
    fewer = len(solve(tree.reordered({"": moved})).leaf_order)
    assert f"evaluates {fewer} leaves instead of 19" in hint["message"] and fewer < 19


@settings(max_examples=40, deadline=None)
@given(
    int_trees.filter(lambda t: t.leaf_count() <= 40), st.sampled_from(ALL_CONVENTIONS), st.data()
)
def test_every_best_order_hint_lowers_the_count_it_quotes(tree, conventions, data):
    orders = {
        p: data.draw(st.permutations(range(len(tree.node(p).children))))
        for p in tree.paths()
        if not tree.node(p).is_leaf
    }
    graded = grade(
        "best-order", tree, conventions, {"order": {p: list(o) for p, o in orders.items()}}
    )
    got = len(solve(tree.reordered(orders), conventions).leaf_order)
    if graded.score == 1.0:
        assert graded.first_wrong is None
        return
    assert f"evaluates {got} leaves" in graded.feedback[0]
    if graded.first_wrong is None:  # no single change at one node lowers the count
        return
    message = graded.first_wrong["message"]
    fewer, before = map(
        int, re.search(r"evaluates (\d+) leaves instead of (\d+)", message).groups()
    )
    assert before == got and fewer < got


# -- leaf order and conventions -------------------------------------------------------------------


def test_the_leaf_marked_wrong_is_the_one_the_student_listed():
    tree = Tree.from_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]])  # AIMA: C's 4 and 6 pruned
    key = KINDS["leaf-order"].key(tree, Conventions())["leaf_order"]
    answer = [*key[:4], "1.1", *key[4:]]  # the pruned 4 listed fifth
    where = grade("leaf-order", tree, Conventions(), {"leaf_order": answer}).first_wrong
    assert where["path"] == "1.1" and where["label"] == "I"
    assert where["message"].startswith("The fifth leaf evaluated is K, not I.")


def test_a_minimax_exercise_shows_only_what_applies():
    hard = Conventions(ties="prune", values="hard", order="rtl")
    text = KINDS["minimax"].conventions_words(hard)
    assert "Plain minimax" in text and "alpha" not in text and "clamped" not in text
    assert "clamped" not in KINDS["prune"].conventions_words(hard) and "right to left" in KINDS[
        "prune"
    ].conventions_words(hard)
    assert "clamped" in KINDS["values"].conventions_words(hard) and "clamped" in hard.describe()
    assert "3 plies" in KINDS["minimax"].conventions_words(Conventions(depth=3))
    assert normalize_pruned(Tree.from_nested([1, 2]), set()) == frozenset()


def test_best_order_replays_the_answer_and_the_best_order_on_the_drawing():
    tree = Tree.from_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    graded = grade("best-order", tree, Conventions(), {"order": {"": [2, 1, 0]}})
    yours, best = graded.replays["yours"], graded.replays["best"]
    # D (14, 5, 2) first, then C cut after its 2, then B: paths and labels as drawn
    assert yours["leaf_order"] == ["2.0", "2.1", "2.2", "1.0", "0.0", "0.1", "0.2"]
    assert yours["pruned"] == ["1.1", "1.2"] and yours["best_move"] == 0
    assert yours["nodes"]["2"]["label"] == "D" and yours["trace"][1]["path"] == "2"
    assert len(best["leaf_order"]) == graded.key["leaves"]
    assert {s["path"] for s in best["trace"]} <= set(tree.paths())
