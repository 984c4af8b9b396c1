"""Answers in words for the staff's side-by-side reading: each exercise kind says its own answer
(the registry, no ladder over kind names), nodes named by their labels."""

from __future__ import annotations

import json

import pytest

from grader.gametree import KINDS, Conventions, Tree

AIMA = Tree.from_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]])  # A; B C D; E..M
LABELS = AIMA.labels()
CONV = Conventions()


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("prune", "pruned: I, J; root value 3"),
        ("values", "A = 3, B = 3, C = 2, D = 2"),
        ("minimax", "A = 3, B = 3, C = 2, D = 2"),
        ("leaf-order", "E, F, G, H, K, L, M"),
    ],
)
def test_each_kind_says_its_key_in_words(kind, words):
    assert KINDS[kind].describe(KINDS[kind].key(AIMA, CONV), LABELS) == words


def test_bounds_and_best_order_in_words():
    assert (
        KINDS["bounds"].describe({"bounds": {"": [3, "inf"], "1": ["-inf", 3]}}, LABELS)
        == "A: α 3, β inf; C: α -inf, β 3"
    )
    assert (
        KINDS["best-order"].describe({"order": {"": [2, 0, 1], "2": [1, 0, 2]}}, LABELS)
        == "at A: D, B, C; at D: L, K, M"
    )
    assert KINDS["best-order"].describe({"order": {}}, LABELS) == "as given"


def test_no_answer_and_an_answer_of_another_shape():
    assert KINDS["prune"].describe(None, LABELS) == "—"
    assert (
        KINDS["prune"].describe({"pruned": [], "value": 3}, LABELS) == "pruned: none; root value 3"
    )
    odd = {"values": ["not", "a", "mapping"]}
    assert KINDS["values"].describe(odd, LABELS) == json.dumps(odd)
    # A path the labels do not know is shown as the path itself.
    assert KINDS["leaf-order"].describe({"leaf_order": ["0.0", "9.9"]}, LABELS) == "E, 9.9"


def test_every_kind_can_describe_its_own_key():
    for kind in KINDS.values():
        words = kind.describe(kind.key(AIMA, CONV), LABELS)
        assert words and words != "—" and not words.startswith("{"), kind.name
