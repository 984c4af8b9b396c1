"""The adaptive practice policy on scripted histories, with real trees and real grading."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from grader.gametree import (
    KINDS,
    VARIANTS,
    GenerationError,
    GeneratorParams,
    generate,
    grade,
    solve,
)
from grader.gametree.adaptive import (
    MASTERED,
    MASTERY,
    NOT_SEEN,
    PRACTISING,
    Practised,
    aim,
    next_practice,
    standings,
)
from grader.gametree.generator import exposing


def _answer_like(code: str | None, kind: str, tree, conventions) -> dict:
    """The answer a student holding misconception ``code`` gives (the key when None)."""
    exercise = KINDS[kind]
    if code is None:
        return exercise.key(tree, conventions)
    variant = VARIANTS[code]
    return exercise.to_answer(exercise.project(variant.run(tree, conventions), variant))


def _practise(history: list[Practised], holds: str | None, seed: int):
    """One round: the policy's tree, the student's answer, the real grade."""
    plan = next_practice(history, random.Random(seed))
    tree = generate(plan.params, seed)
    conventions = plan.params.conventions
    exposed = exposing(tree, conventions, plan.kind)
    code = holds if holds in exposed else None
    graded = grade(plan.kind, tree, conventions, _answer_like(code, plan.kind, tree, conventions))
    history.append(Practised(plan.kind, graded.score == 1.0, graded.diagnosis, frozenset(exposed)))
    return plan, tree, graded


def test_a_student_who_answers_like_shallow_cutoffs_gets_deep_cutoffs_until_right():
    history: list[Practised] = []
    for seed in range(40):
        _plan, _tree, graded = _practise(history, "shallow-cutoffs", seed)
        if graded.diagnosis == "shallow-cutoffs":
            break
    else:
        pytest.fail("no tree in 40 showed shallow-cutoffs")
    assert standings(history)["shallow-cutoffs"].status == PRACTISING
    for seed in range(100, 106):  # still holds it: every next tree targets it, with deep cutoffs
        plan, tree, graded = _practise(history, "shallow-cutoffs", seed)
        assert plan.target == "shallow-cutoffs"
        assert plan.params.min_deep_cutoffs >= 1
        assert sum(c.deep for c in solve(tree, plan.params.conventions).cutoffs) >= 1
        assert exposing(tree, plan.params.conventions, plan.kind)["shallow-cutoffs"] >= 2
        assert graded.diagnosis == "shallow-cutoffs" and graded.score < 1
    for i, seed in enumerate(range(200, 200 + MASTERY)):  # learns: right from now on
        plan, _tree, graded = _practise(history, None, seed)
        assert plan.target == "shallow-cutoffs", i
        assert graded.score == 1.0
    assert standings(history)["shallow-cutoffs"].status == MASTERED
    assert next_practice(history).target != "shallow-cutoffs"


def test_the_misconception_shown_most_is_targeted_first_then_the_next():
    history = [Practised("values", False, "players-swapped", frozenset({"players-swapped"}))] * 2
    history += [Practised("prune", False, "leaves-only", frozenset({"leaves-only"}))] * 3
    plan = next_practice(history)
    assert (plan.target, plan.kind) == ("leaves-only", "prune")
    assert "3 times" in plan.reason
    history += [Practised("prune", True, None, frozenset({"leaves-only"}))] * MASTERY
    plan = next_practice(history)
    assert (plan.target, plan.kind) == ("players-swapped", "values")
    assert plan.params.expose == "players-swapped"


def test_a_wrong_answer_on_an_exposing_tree_breaks_the_run():
    right = Practised("prune", True, None, frozenset({"no-pruning"}))
    wrong = Practised("prune", False, "no-pruning", frozenset({"no-pruning"}))
    elsewhere = Practised("values", True, None, frozenset({"players-swapped"}))
    state = standings([wrong, right, right, wrong, right, elsewhere, right])["no-pruning"]
    assert (state.status, state.shown, state.streak, state.exposing) == (PRACTISING, 2, 2, 6)
    assert standings([wrong, right, right, right])["no-pruning"].status == MASTERED


def test_the_kind_follows_where_the_student_showed_it():
    history = [Practised("bounds", False, "values-convention", frozenset({"values-convention"}))]
    assert next_practice(history).kind == "bounds"
    assert next_practice([]).kind in KINDS


def test_a_student_with_none_gets_harder_trees():
    fresh = next_practice([])
    assert fresh.target == "no-pruning" and fresh.level == 0
    everything = [Practised("prune", True, None, frozenset(VARIANTS))] * MASTERY
    assert all(s.status == MASTERED for s in standings(everything).values())
    plan = next_practice(everything, random.Random(3))
    assert plan.target is None and plan.level == 3
    assert plan.params.depth >= 4 and plan.params.min_deep_cutoffs >= 1
    assert plan.params.depth * max(plan.params.branching) > fresh.params.depth * max(
        fresh.params.branching
    )
    generate(plan.params, 1)  # such a tree can be made
    assert "harder" in aim(None)


def test_not_seen_until_shown_and_words_for_each_status():
    states = standings([])
    assert {s.status for s in states.values()} == {NOT_SEEN}
    assert "no tree" in states["no-pruning"].words()
    history = [Practised("prune", False, "no-pruning", frozenset({"no-pruning"}))]
    assert "once" in standings(history)["no-pruning"].words()


@pytest.mark.parametrize("code", list(VARIANTS))
def test_the_generator_exposes_each_misconception_at_several_nodes(code):
    from grader.gametree.adaptive import BEST_KIND

    kind = BEST_KIND[code]
    params = GeneratorParams(
        depth=4,
        kind=kind,
        expose=code,
        expose_nodes=2,
        values=(0, 4) if code == "ties-flipped" else (-9, 9),
    )
    tree = generate(params, "expose")
    exercise = KINDS[kind]
    key = exercise.analysis(tree, params.conventions)[1]
    variant = VARIANTS[code]
    answer = exercise.project(variant.run(tree, params.conventions), variant)
    assert exercise.distance(key, answer) >= 2
    assert GeneratorParams.from_dict(params.to_dict()) == params
    assert code in aim(code)


@pytest.mark.parametrize("code", list(VARIANTS))
@pytest.mark.parametrize("practising", [True, False], ids=["practising", "checking"])
def test_a_tree_aimed_at_a_misconception_names_it_alone_for_its_holder(code, practising):
    """A weak-spots tree for ``code``: a student holding it is graded as holding it and nothing
    else (a tree where an earlier misconception gives the same answer named that one instead,
    so the student's progress on ``code`` never moved), on every kind it is practised in and
    at every difficulty."""
    others = [c for c in VARIANTS if c != code]
    if practising:  # it showed once: the next trees hold it at step 0..1, in each of its kinds
        histories = [
            [Practised(kind, False, code, frozenset({code}))] for kind in VARIANTS[code].kinds
        ]
    else:  # every other one mastered: the harder trees that check it, at step 3
        right = [Practised("prune", True, None, frozenset(others))] * MASTERY
        histories = [right]
    for history in histories:
        for seed in range(4):
            plan = next_practice(history, random.Random(seed))
            assert plan.target == code and plan.params.expose_alone
            tree = generate(plan.params, seed)
            conventions = plan.params.conventions
            graded = grade(
                plan.kind, tree, conventions, _answer_like(code, plan.kind, tree, conventions)
            )
            assert graded.candidates == (code,), (plan.kind, plan.level, seed, graded.candidates)
            assert graded.diagnosis == code


def test_expose_alone_refuses_a_tree_where_another_misconception_answers_the_same():
    from grader.gametree.generator import tells_apart

    # Found among seeds, not assumed: a tree exposing ties-flipped whose values are also
    # another misconception's (about one in six on small values, measured).
    params = GeneratorParams(depth=4, kind="values", expose="ties-flipped", values=(0, 4))
    for seed in range(200):
        tree = generate(params, seed)
        if not tells_apart(tree, params.conventions, "values", "ties-flipped"):
            break
    else:
        pytest.fail("no tree in 200 where ties-flipped's values are another's too")
    answer = _answer_like("ties-flipped", "values", tree, params.conventions)
    graded = grade("values", tree, params.conventions, answer)
    assert graded.candidates != ("ties-flipped",)  # what expose_alone keeps out
    alone = generate(replace(params, expose_alone=True), seed)
    assert tells_apart(alone, params.conventions, "values", "ties-flipped")
    graded = grade(
        "values",
        alone,
        params.conventions,
        _answer_like("ties-flipped", "values", alone, params.conventions),
    )
    assert graded.candidates == ("ties-flipped",)
    with pytest.raises(GenerationError, match="expose_alone needs expose"):
        GeneratorParams(expose_alone=True)
    assert "expose_alone" not in GeneratorParams(expose="no-pruning").to_dict()  # stored as before
    stored = GeneratorParams(expose="no-pruning", expose_alone=True)
    assert GeneratorParams.from_dict(stored.to_dict()) == stored


def test_expose_is_checked():
    with pytest.raises(GenerationError, match="unknown misconception"):
        GeneratorParams(expose="no-such")
    with pytest.raises(GenerationError, match="cannot change an answer of kind minimax"):
        GeneratorParams(kind="minimax", expose="no-pruning")
    with pytest.raises(GenerationError, match="expose must be"):
        GeneratorParams.from_dict({"expose": 3})


def test_simulated_students_who_learn_reach_mastery_in_fewer_trees_than_with_random_trees():
    from bench.adaptive import adaptive, trees_to_mastery, uniform

    students = range(3)
    planned = [trees_to_mastery(adaptive, s, lessons=2, cap=80) for s in students]
    drawn = [trees_to_mastery(uniform, s, lessons=2, cap=80) for s in students]
    assert None not in planned
    assert sum(planned) < sum(d if d is not None else 80 for d in drawn)


def test_a_simulated_student_who_never_learns_never_masters():
    from bench.adaptive import adaptive, trees_to_mastery

    assert trees_to_mastery(adaptive, 0, lessons=10**6, cap=25) is None
