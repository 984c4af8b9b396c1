"""What the kinds' tests share: their trees and helpers."""

from __future__ import annotations

import pytest

from grader.gametree import KINDS, Tree
from grader.gametree import kinds as kinds_module

AIMA = Tree.from_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]])

AG = Tree.from_nested([[[2, 3], [5, 9]], [[0, 1], [7, 5]]])

TIE = Tree.from_nested([[3, 5], [3, 1], [2, 8]])


def first_wrong_step(graded):
    return graded.search.trace[graded.first_wrong["step"]]


def refused_words(kind: str, answer: object) -> str:
    with pytest.raises(kinds_module.UngradableAnswer) as refused:
        KINDS[kind].normalize(AG, answer)
    return str(refused.value)


DEPTH_TREE = Tree.from_nested(
    [{"eval": 1, "children": [3, 12, 8]}, {"eval": 7, "children": [2, 4, 6]}]
)

AG_NODES = [
    "0",
    "1",
    "0.0",
    "0.1",
    "1.0",
    "1.1",
    *(f"{a}.{b}.{c}" for a in "01" for b in "01" for c in "01"),
    "",
]
