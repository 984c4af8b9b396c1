"""Exercise kinds and grading: each kind turns a search into an answer key, checks and normalizes a
student's answer, scores it, names the misconception it matches, and points at the first step of
the reference search where it departs from the key.

- ``base``: the protocol (``ExerciseKind``), the error-counting kinds' template (``CountedKind``),
  ``Grade``, ``Paper`` and the answer's reading;
- ``scoring``: the error-counting rule and its words;
- ``registry``: ``KINDS``, filled by ``@register``;
- one module per kind, each saying what it counts as an error.

Registering a kind is importing its module: the list below, in the order pages offer the kinds.
"""

from __future__ import annotations

import importlib

from grader.gametree.kinds.base import (
    CACHED_LEAVES,
    AnswerPart,
    CountedKind,
    Example,
    ExerciseKind,
    Grade,
    Paper,
    UngradableAnswer,
    _analysis,
    _variant_answers,
    counted,
)
from grader.gametree.kinds.registry import (
    ANSWER_KEYS,
    KINDS,
    default_kind,
    register,
    unregister,
)
from grader.gametree.kinds.scoring import ERROR_WORDS, error_rule, error_score, errors_words
from grader.gametree.solver import INF, Conventions
from grader.gametree.tree import Tree

# The kinds this package registers, one module each, in the order pages offer them (the first is
# the default): the registry line a new kind adds its module's name to.
BUILT_IN = ("prune", "values", "bounds", "leaf_order", "best_order", "minimax")
for _module in BUILT_IN:
    importlib.import_module(f"{__name__}.{_module}")

# What the kinds' own tests reach into.
from grader.gametree.kinds.best_order import _original_paths  # noqa: E402
from grader.gametree.kinds.leaf_order import _lcs_items  # noqa: E402
from grader.gametree.kinds.prune import normalize_pruned  # noqa: E402


def grade(kind: str, tree: Tree, conventions: Conventions, answer: object) -> Grade:
    """Grade ``answer`` to an exercise of ``kind``; UngradableAnswer when it cannot be graded."""
    if kind not in KINDS:
        raise UngradableAnswer(f"unknown exercise kind {kind!r} ({', '.join(KINDS)})")
    return KINDS[kind].grade(tree, conventions, answer)


__all__ = [
    "ANSWER_KEYS",
    "BUILT_IN",
    "CACHED_LEAVES",
    "ERROR_WORDS",
    "INF",
    "KINDS",
    "AnswerPart",
    "CountedKind",
    "Example",
    "ExerciseKind",
    "Grade",
    "Paper",
    "UngradableAnswer",
    "_analysis",
    "_lcs_items",
    "_original_paths",
    "_variant_answers",
    "counted",
    "default_kind",
    "error_rule",
    "error_score",
    "errors_words",
    "grade",
    "normalize_pruned",
    "register",
    "unregister",
]
