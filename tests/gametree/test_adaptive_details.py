"""grader/gametree/adaptive.py in detail: the words for each standing, the level at and around
each of its steps, the generator's parameters for each level and target, and the aim of a tree.
The policy on scripted histories with real trees: tests/gametree/test_adaptive.py.

Surviving mutants judged equivalent (mutmut names of 2026-11-22; a partial run, see README):
- ``_shape`` 66: ``rng.random() <= 0.5`` for ``< 0.5``: they differ only when the draw is 0.5
  exactly, a chance of 2**-53.
"""

from __future__ import annotations

import random

import pytest

from grader.gametree import VARIANTS
from grader.gametree.adaptive import (
    MASTERED,
    MASTERY,
    NOT_SEEN,
    PRACTISING,
    Practised,
    Standing,
    _shape,
    aim,
    level,
    standings,
)


@pytest.mark.parametrize(
    ("standing", "words"),
    [
        (
            Standing("no-pruning", MASTERED, 1, 4, 3),
            "Mastered: your last 3 answers on trees that expose it were right.",
        ),
        (
            Standing("no-pruning", PRACTISING, 1, 2, 0),
            "Practising: your answers matched it once; 0 of 3 right in a row since.",
        ),
        (
            Standing("no-pruning", PRACTISING, 2, 4, 1),
            "Practising: your answers matched it 2 times; 1 of 3 right in a row since.",
        ),
        (
            Standing("no-pruning", NOT_SEEN, 0, 2, 2),
            "Not seen in your answers; 2 of 3 right in a row on trees that expose it.",
        ),
        (
            Standing("no-pruning", NOT_SEEN, 0, 0, 0),
            "Not seen: no tree you answered could show it yet.",
        ),
    ],
)
def test_the_words_for_each_standing(standing, words):
    assert standing.words() == words


RIGHT = Practised("prune", True)
WRONG = Practised("prune", False)


def _mastering(codes: list[str]) -> list[Practised]:
    """``MASTERY`` right answers on trees exposing ``codes``: those codes mastered."""
    return [Practised("prune", True, None, frozenset(codes))] * MASTERY


@pytest.mark.parametrize(
    ("history", "expected"),
    [
        ([], 0),
        ([RIGHT] * (MASTERY - 1), 0),  # a run needs MASTERY answers
        ([RIGHT] * MASTERY, 1),
        ([WRONG, RIGHT, RIGHT, RIGHT], 1),  # the latest MASTERY answers count, not the first
        ([RIGHT, RIGHT, RIGHT, WRONG], 0),
        ([*_mastering(list(VARIANTS)[:2]), WRONG], 1),  # two mastered, no run
        ([*_mastering(list(VARIANTS)[:3]), WRONG], 1),  # three mastered: still one step
        (_mastering(list(VARIANTS)[:2]), 2),  # two mastered and the run that mastered them
        ([*_mastering(list(VARIANTS)[:4]), WRONG], 2),
        (_mastering(list(VARIANTS)[:6]), 3),  # 3 + 1, capped
        (_mastering(list(VARIANTS)), 3),
    ],
)
def test_level_is_a_step_per_two_mastered_and_one_for_a_run_at_most_three(history, expected):
    states = standings(history)
    assert level(history, states) == expected


def _expected(**changes: object) -> dict:
    base: dict = {
        "depth": 4,
        "branching": (2, 3),
        "values": (-9, 9),
        "kind": "prune",
        "max_tries": 3000,
        "conventions": {},
    }
    base.update(changes)
    return base


@pytest.mark.parametrize(
    ("target", "kind", "step", "expected"),
    [
        ("no-pruning", "prune", 0, _expected(expose="no-pruning", expose_nodes=2)),
        (
            "shallow-cutoffs",
            "prune",
            0,
            _expected(min_deep_cutoffs=1, expose="shallow-cutoffs", expose_nodes=2),
        ),
        (
            "ties-flipped",
            "prune",
            0,
            _expected(values=(0, 4), expose="ties-flipped", expose_nodes=2),
        ),
        (
            "players-swapped",
            "values",
            1,
            _expected(kind="values", min_deep_cutoffs=1, expose="players-swapped", expose_nodes=2),
        ),
        (
            "bounds-swapped",
            "bounds",
            2,
            _expected(
                kind="bounds",
                depth=5,
                min_deep_cutoffs=1,
                expose="bounds-swapped",
                expose_nodes=2,
            ),
        ),
        (
            "bounds-swapped",
            "bounds",
            3,
            _expected(
                kind="bounds",
                branching=(2, 4),
                min_deep_cutoffs=1,
                expose="bounds-swapped",
                expose_nodes=2,
            ),
        ),
    ],
)
def test_shape_for_each_level_and_target(target, kind, step, expected):
    assert _shape(target, kind, step, random.Random(0)) == expected


def test_from_level_two_the_tie_rule_is_drawn_for_the_targets_it_matters_to():
    # Level 2: deeper trees (5 plies), a tie rule drawn at random, no second minimizer yet.
    for target in (None, "ties-flipped", "no-pruning", "leaves-only"):
        drawn = [_shape(target, "prune", 2, random.Random(seed)) for seed in range(20)]
        assert {p["conventions"]["ties"] for p in drawn} == {"explore", "prune"}
        assert all(p["depth"] == 5 and "players" not in p for p in drawn)
    assert _shape("wrong-order", "prune", 2, random.Random(0))["conventions"] == {}


def test_level_three_adds_a_second_minimizer_for_its_targets_and_caps_the_depth():
    for target in (None, "no-pruning", "cut-node-marked", "values-convention"):
        params = _shape(target, "prune", 3, random.Random(0))
        assert params["players"] == ["max", "min", "min"]
        assert params["branching"] == (2, 4) and params["depth"] == 4  # wider, so not deeper
    plain = _shape(None, "values", 3, random.Random(0))
    assert "expose" not in plain and "expose_nodes" not in plain
    assert "players" not in _shape("wrong-order", "prune", 3, random.Random(0))
    assert "players" not in _shape("no-pruning", "prune", 2, random.Random(0))


@pytest.mark.parametrize("target", [None, "not-a-code", ""])
def test_a_tree_aimed_at_nothing_known_is_a_harder_one(target):
    assert aim(target) == "This tree was a harder one, with no single misconception in view."


def test_the_aim_of_a_targeted_tree_names_the_misconception_and_what_it_does():
    assert aim("leaves-only") == (
        "This tree was made to expose leaves-only: pruning only leaves gives a different "
        "answer from the key here."
    )
