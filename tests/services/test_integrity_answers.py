"""Answers that belong to another student's tree (services/integrity/answers.py): a class of
30 students, each answering their own seeded tree (the key, the key with a slip, a
misconception's answer, or a guess), two of whom hand in each other's key: exactly that pair
is flagged. Also: a key not seen yet (the classmate had not submitted) is no evidence, and an
answer that cannot be graded on the other tree is no match."""

from __future__ import annotations

import random
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.gametree import KINDS, Conventions, Tree
from grader.models import Exercise
from tests.services.integrity_support import run_check

TEACHER = "teacher@example.com"
SHAPE = {"depth": 3, "branching": [2, 2]}  # every variant the same shape: answers fit any tree
COPIER, SOURCE = 7, 19  # the two students who hand in each other's key


def _class(app: Any, factory: Any, size: int) -> tuple[int, list[str]]:
    from grader.services import accounts
    from grader.services.teaching import editor

    factory.user(TEACHER, "instructor")
    course_id, _ = factory.course("Search 101", TEACHER)
    emails = [f"student{i:02d}@example.com" for i in range(size)]
    for email in emails:
        factory.user(email)
        factory.member(course_id, email)
    with app.app_context():
        teacher = accounts.user_by_email(TEACHER)
        assignment = editor.create_assignment(
            teacher, course_id, editor.AssignmentInput(title="Homework 2")
        )
        for kind, params in (("values", SHAPE), ("prune", {**SHAPE, "min_cutoffs": 1})):
            editor.add_slot(
                teacher,
                assignment.id,
                editor.SlotInput(
                    kind=kind, conventions={}, params=params, title=kind, attempts_allowed=None
                ),
            )
        editor.add_slot(  # a textbook tree: the same for everyone, so not checked
            teacher,
            assignment.id,
            editor.SlotInput(
                kind="values",
                conventions={},
                tree=Tree.from_nested([[3, 12], [2, 4]]),
                title="textbook",
                attempts_allowed=None,
            ),
        )
        return assignment.id, emails


def _exercise(app: Any, email: str, assignment_id: int, index: int) -> Exercise:
    from grader.services import accounts
    from grader.services.trees import exercises

    with app.app_context():
        return exercises.slot_exercise(accounts.user_by_email(email), assignment_id, index)


def _key(exercise: Exercise) -> dict[str, Any]:
    tree = Tree.from_dict({"tree": exercise.tree, "players": exercise.players})
    return KINDS[exercise.kind].key(tree, Conventions.from_dict(exercise.conventions))


def _submit(app: Any, email: str, exercise: Exercise, answer: dict[str, Any]) -> float:
    from grader.services import accounts
    from grader.services.trees import attempts

    with app.app_context():
        user = accounts.user_by_email(email)
        return attempts.submit(user, exercise.id, answer).attempt.score


def _honest(exercise: Exercise, rng: random.Random) -> dict[str, Any]:
    """What a student working alone hands in: the key, the key with one slip, the answer of a
    misconception, or a guess."""
    tree = Tree.from_dict({"tree": exercise.tree, "players": exercise.players})
    kind = KINDS[exercise.kind]
    conventions = Conventions.from_dict(exercise.conventions)
    key = kind.key(tree, conventions)
    style = rng.choice(["key", "slip", "misconception", "guess"])
    internal = [p for p, node in tree.walk() if not node.is_leaf]
    if exercise.kind == "values":
        values = dict(key["values"])
        if style == "slip":
            path = rng.choice(sorted(values))
            values[path] = values[path] + 1
        elif style == "guess":
            values = {p: rng.randint(-9, 9) for p in internal}
        elif style == "misconception":
            variants = kind.variant_answers(tree, conventions)
            return kind.to_answer(rng.choice(variants)[1]) if variants else key
        return {"values": values}
    if style == "slip":
        return {**key, "value": key["value"] + 1}
    if style == "guess":
        return {"pruned": rng.sample(internal[1:], 2), "value": rng.randint(-9, 9)}
    if style == "misconception":
        variants = kind.variant_answers(tree, conventions)
        return kind.to_answer(rng.choice(variants)[1]) if variants else key
    return key


def _flags(app: Any, assignment_id: int) -> tuple[dict[str, Any], set[tuple[int, str, str]]]:
    from grader.services import accounts
    from grader.services.integrity import answers

    with app.app_context():
        teacher = accounts.user_by_email(TEACHER)
        check = answers.request_check(teacher, assignment_id, wake=False)
    result = run_check(app, check.id)
    with app.app_context():
        from grader.models import User

        email = dict(db.session.execute(sa.select(User.id, User.email)).all())
    return result, {(f["index"], email[f["copier"]], email[f["source"]]) for f in result["flags"]}


def test_in_a_class_of_30_exactly_the_two_who_copied_each_others_key_are_flagged(app, factory):
    assignment_id, emails = _class(app, factory, 30)
    rng = random.Random(26)
    mine = {}
    for email in emails:  # everyone works alone first, one after the other
        for index in (0, 1):
            exercise = _exercise(app, email, assignment_id, index)
            mine[email, index] = exercise
            _submit(app, email, exercise, _honest(exercise, rng))
        _submit(app, email, _exercise(app, email, assignment_id, 2), {"values": {}})
    copier, source = emails[COPIER], emails[SOURCE]
    for index in (0, 1):  # then the two hand in each other's key
        for who, whose in ((copier, source), (source, copier)):
            score = _submit(app, who, mine[who, index], _key(mine[whose, index]))
            assert score <= 0.1, (who, index, score)  # three errors or more on their own tree

    result, flagged = _flags(app, assignment_id)
    both_ways = {(copier, source), (source, copier)}
    # Exactly that pair: both ways on the values exercise (seven values name one tree); on the
    # pruning exercise each key is flagged only where it fits no other classmate's tree as well
    # (a small tree's pruning may be the same on several trees, and then points at no one).
    assert {(who, whose) for index, who, whose in flagged if index == 0} == both_ways
    assert {(who, whose) for index, who, whose in flagged if index == 1} <= both_ways
    assert {frozenset((who, whose)) for _, who, whose in flagged} == {frozenset((copier, source))}
    # The check looked at every honest answer with three errors or more, and none fitted.
    assert result["suspects"] > 4
    assert result["compared"] > 100
    skipped = {s["index"]: s["skipped"] for s in result["slots"]}
    assert skipped[0] is None and skipped[1] is None
    assert "fixed tree" in skipped[2]


def test_a_key_not_yet_seen_is_no_evidence(app, factory):
    assignment_id, emails = _class(app, factory, 3)
    early, late, other = emails
    late_tree = _exercise(app, late, assignment_id, 0)
    early_tree = _exercise(app, early, assignment_id, 0)
    # `early` hands in the key of `late`'s tree before `late` has submitted anything: a guess
    # that happens to fit, not a copy of a key the student could have seen.
    assert _submit(app, early, early_tree, _key(late_tree)) <= 0.1
    _submit(app, late, late_tree, _key(late_tree))
    _submit(app, other, _exercise(app, other, assignment_id, 0), _key(late_tree))
    _, flagged = _flags(app, assignment_id)
    assert flagged == {(0, other, late)}


def test_an_answer_that_cannot_be_graded_on_the_other_tree_is_no_match(app, factory):
    from grader.services.integrity import answers

    assignment_id, emails = _class(app, factory, 2)
    exercise = _exercise(app, emails[0], assignment_id, 0)
    with app.app_context():
        variant = answers._Variant(db.session.get_one(Exercise, exercise.id), None)
        key = _key(exercise)
        assert answers._errors_on(variant, key) == 0
        lacking = {"values": {**key["values"], "9.9.9": 3}}  # a node this tree lacks
        assert answers._errors_on(variant, lacking) is None
        assert answers._errors_on(variant, {"pruned": []}) is None  # another kind's shape


def test_errors_are_read_back_from_the_kinds_scores():
    from grader.gametree.kinds import error_score
    from grader.services.integrity.answers import errors

    assert [errors(error_score(e)) for e in range(4)] == [0, 1, 2, 3]
    assert errors(0.0) == 4  # four or more


def test_the_sweep_asks_for_the_check_once_answers_are_newer_than_the_last(app, factory):
    """Every graded answer is scored against classmates' trees without anyone asking: the
    worker's sweep finds the assignments whose answers are newer than their last check (at most
    every AUTO_EVERY) and asks for it; the submission itself enqueues nothing."""
    import datetime as dt

    from grader.services.integrity import answers

    assignment_id, emails = _class(app, factory, 2)
    with app.app_context():
        assert answers.due() == []  # no graded answer yet
    exercise = _exercise(app, emails[0], assignment_id, 0)
    _submit(app, emails[0], exercise, _key(exercise))
    with app.app_context():
        assert answers.due() == [assignment_id]
        check = answers.request_check(None, assignment_id, wake=False)
        assert answers.due() == []  # the check is newer than every answer
    later = check.created_at + answers.AUTO_EVERY + dt.timedelta(seconds=1)
    _submit(app, emails[1], _exercise(app, emails[1], assignment_id, 0), _key(exercise))
    with app.app_context():
        assert answers.due() == []  # a new answer, but the last check is recent
        assert answers.due(now=later) == [assignment_id]
