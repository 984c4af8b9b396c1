"""How adaptive practice plans a student's next tree (grader/gametree/adaptive.py): the words for
each standing, the level at and around each of its steps, the generator's parameters for each
level and target, the misconception targeted, and the aim of a tree.
The policy on scripted histories with real trees: tests/gametree/test_adaptive.py.

Surviving mutants judged equivalent (mutmut names of 2026-11-22):
- ``_shape`` 66: ``rng.random() <= 0.5`` for ``< 0.5``: they differ only when the draw is 0.5
  exactly, a chance of 2**-53.
"""

from __future__ import annotations

import random

import pytest

from grader.gametree import VARIANTS, Conventions
from grader.gametree.adaptive import (
    BEST_KIND,
    MASTERED,
    MASTERY,
    NOT_SEEN,
    PRACTISING,
    Practised,
    Standing,
    _shape,
    aim,
    level,
    next_practice,
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
    if "expose" in changes:  # every aimed tree tells its target apart from the others
        base["expose_alone"] = True
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


# -- standings and the next tree, in detail ---------------------------------------------------


def _wrong(code: str, kind: str = "prune") -> Practised:
    return Practised(kind, False, code, frozenset({code}))


def test_before_any_answer_every_misconception_is_not_seen_with_nothing_counted():
    for code, standing in standings([]).items():
        assert standing == Standing(code, NOT_SEEN, 0, 0, 0, {})


def test_the_kinds_a_misconception_showed_in_are_counted_each():
    states = standings([_wrong("no-pruning"), _wrong("no-pruning", "values"), _wrong("no-pruning")])
    assert states["no-pruning"].kinds == {"prune": 2, "values": 1}
    assert states["no-pruning"].shown == 3 and states["no-pruning"].streak == 0
    assert all(s.kinds == {} for code, s in states.items() if code != "no-pruning")


def test_between_misconceptions_shown_as_often_the_first_in_the_catalogue_is_targeted():
    codes = list(VARIANTS)
    first, later = codes[0], codes[5]
    for history in ([_wrong(later), _wrong(first)], [_wrong(first), _wrong(later)]):
        assert next_practice(history).target == first
    assert next_practice([_wrong(later), _wrong(first), _wrong(later)]).target == later


@pytest.mark.parametrize(
    ("shown_in", "kind"),
    [
        (["values", "prune", "prune"], "prune"),  # shown most, not the first counted
        (["bounds", "values", "values"], "values"),  # shown most, not the best kind
        (["values", "prune"], "prune"),  # as often: the best kind (ties-flipped's is prune)
        (["values", "bounds"], "values"),  # as often, neither the best: the first counted
    ],
)
def test_the_tree_is_of_the_kind_it_showed_in_most(shown_in, kind):
    history = [_wrong("ties-flipped", k) for k in shown_in]
    plan = next_practice(history)
    assert (plan.target, plan.kind) == ("ties-flipped", kind)


def test_a_kind_that_cannot_show_the_misconception_gives_way_to_its_best_kind():
    # values-convention shows in values and bounds answers only
    plan = next_practice([_wrong("values-convention", "prune")] * 2)
    assert plan.kind == BEST_KIND["values-convention"] == "values"


@pytest.mark.parametrize(("times", "words"), [(1, "1 time"), (2, "2 times")])
def test_the_reason_for_a_practice_tree_counts_the_matches(times, words):
    plan = next_practice([_wrong("leaves-only")] * times)
    assert plan.reason == (
        f"Your answers matched leaves-only {words}: this tree is made so that it gives a "
        "different answer from the key."
    )


def test_practice_on_a_misconception_comes_back_to_modest_trees():
    history = [*_mastering(list(VARIANTS)[:6]), _wrong(list(VARIANTS)[7])]
    assert level(history, standings(history)) == 3
    plan = next_practice(history)
    assert plan.target == list(VARIANTS)[7] and plan.level == 1


def test_with_none_practising_the_least_sure_misconception_is_checked_on_a_harder_tree():
    history = _mastering(list(VARIANTS)[:2])
    plan = next_practice(history)
    third = list(VARIANTS)[2]
    assert (plan.target, plan.kind, plan.level) == (third, BEST_KIND[third], 2)
    assert plan.reason == (
        f"No misconception shows in your answers now: this harder tree checks {third}, which "
        "you have not yet mastered."
    )


def test_with_every_misconception_mastered_the_trees_are_the_hardest_of_any_kind():
    history = _mastering(list(VARIANTS))
    plans = [next_practice(history, random.Random(seed)) for seed in range(40)]
    assert {p.kind for p in plans} == {"prune", "values", "bounds", "leaf-order"}
    assert {p.params.conventions.ties for p in plans} == {"explore", "prune"}
    for plan in plans:
        assert (plan.target, plan.level) == (None, 3)
        assert plan.reason == (
            "You have mastered every misconception: a harder tree, for the exam."
        )
        assert plan.params.conventions == Conventions(ties=plan.params.conventions.ties)


def test_without_a_random_source_the_plan_is_the_same_every_time():
    history = _mastering(list(VARIANTS))
    assert next_practice(history, random.Random(0)) != next_practice(history, random.Random(1))
    for _ in range(5):
        assert next_practice(history) == next_practice(history, random.Random(0))
