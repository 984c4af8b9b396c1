"""How a stored attempt's score came about, in words, from the errors its grade kept
(``Attempt.scoring``): counted before the key may be shown and named after, the late penalty
said, kept whole by a regrade that keeps a score and renewed by one that changes it, filled by
the migration for attempts stored before, and on the instructor's drill-down.

Known answers: AIMA's Figure 5.5 tree (root 3; C's second and third leaves, I and J, pruned)
and a tree with a tie, [[3, 5], [3, 9]]: its last leaf G is pruned when alpha >= beta prunes
ties (AIMA) and searched when only values strictly outside the window do (CS188)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.gametree import KINDS, Conventions, Tree
from grader.models import Attempt, utcnow
from grader.services.teaching import editor, gradebook, regrade
from grader.services.trees import attempts, exercises
from tests.instructor_support import ALICE, BOB, TEACHER, answer, make_room, textbook_key, user

RULE = "by the rule: no error 1, 1 error 0.80, 2 errors 0.50, 3 errors 0.10, 4 or more 0."
NOTHING_MARKED = {"pruned": [], "value": 3}  # the textbook tree's I and J left unmarked
TIED = [[3, 5], [3, 9]]


def _words(app, attempt_id: int, *, named: bool) -> str | None:
    with app.app_context():
        return attempts.scoring_words(db.session.get_one(Attempt, attempt_id), named=named)


def test_the_errors_are_counted_before_the_key_and_named_after(app, room):
    wrong = answer(app, ALICE, room.assignment_id, 0, NOTHING_MARKED)
    assert wrong.score == 0.5
    with app.app_context():
        stored = db.session.get_one(Attempt, wrong.id)
        exercise = stored.exercise
        assert not exercises.solution_visible(exercise)  # unlimited attempts, no full marks
        shown = attempts.to_api(stored, attempts.visible_solution(exercise, stored.answer))
    assert (
        shown["scoring_words"]
        == f"2 errors: 2 missing marks (pruned, not marked). Score 0.50, {RULE}"
    )
    answer(app, ALICE, room.assignment_id, 0, textbook_key())  # full marks: the key is shown
    with app.app_context():
        stored = db.session.get_one(Attempt, wrong.id)
        shown = attempts.to_api(stored, attempts.visible_solution(stored.exercise, stored.answer))
    assert shown["solution"] is not None
    assert shown["scoring_words"] == (
        f"2 errors: 2 missing marks at I and J (pruned, not marked). Score 0.50, {RULE}"
    )


def test_a_late_attempt_says_the_penalty_and_what_counts(app, factory):
    due = utcnow() - dt.timedelta(days=1, hours=6)  # the second day late has started
    room = make_room(app, factory, due_at=due, late=20)
    late = answer(app, ALICE, room.assignment_id, 0, NOTHING_MARKED)
    assert late.penalty == pytest.approx(0.4)
    words = _words(app, late.id, named=True)
    assert words is not None
    assert words.endswith(f"{RULE} Late by 2 days: 40% off, so 0.30 counts.")


def test_a_regrade_renews_the_words_with_the_score_and_keeps_them_with_a_kept_score(app, room):
    tree = Tree.from_nested(TIED)
    with app.app_context():
        editor.update_slot(
            user(TEACHER),
            room.assignment_id,
            0,
            editor.SlotInput(kind="prune", conventions={"ties": "prune"}, tree=tree),
        )
    aima = KINDS["prune"].key(tree, Conventions(ties="prune"))
    cs188 = KINDS["prune"].key(tree, Conventions(ties="explore"))
    assert aima == {"pruned": ["1.1"], "value": 3} and cs188 == {"pruned": [], "value": 3}
    kept = answer(app, ALICE, room.assignment_id, 0, aima)  # right now, 1 error after
    renewed = answer(app, BOB, room.assignment_id, 0, cs188)  # 1 error now, right after
    assert _words(app, renewed.id, named=True) == (
        f"1 error: 1 missing mark at G (pruned, not marked). Score 0.80, {RULE}"
    )
    with app.app_context():
        editor.update_slot(
            user(TEACHER),
            room.assignment_id,
            0,
            editor.SlotInput(kind="prune", conventions={"ties": "explore"}, tree=tree),
        )
    # Alice's full marks are kept (no score goes down), and so are the words that explain them.
    assert _words(app, kept.id, named=True) == f"No error: score 1, {RULE}"
    assert _words(app, renewed.id, named=True) == f"No error: score 1, {RULE}"
    with app.app_context():  # taking the lower score takes its words
        regrade.regrade_slot(user(TEACHER), room.assignment_id, 0, allow_lower=True)
    assert _words(app, kept.id, named=True) == (
        f"1 error: 1 extra mark at G (searched, not pruned). Score 0.80, {RULE}"
    )


def test_the_drill_down_says_how_each_attempt_was_scored(app, room):
    answer(app, ALICE, room.assignment_id, 0, {"pruned": ["2"], "value": 2})
    with app.app_context():
        _, _, found = gradebook.student_attempts(user(TEACHER), room.course_id, user(ALICE).id)
    (view,) = [v for _, views in found for v in views if v.attempts]
    assert view.attempts[0].scoring_words == (
        "4 errors: 1 extra mark at D (searched, not pruned); 2 missing marks at I and J (pruned, "
        f"not marked); 1 wrong root value. Score 0, {RULE}"
    )


def test_the_migration_fills_the_words_where_grading_again_gives_the_stored_score(
    app, runner, room
):
    checked = answer(app, ALICE, room.assignment_id, 0, NOTHING_MARKED)  # 0.5, as graded now
    other = answer(app, BOB, room.assignment_id, 0, NOTHING_MARKED)
    with app.app_context():
        # Stored under an older rule: the same answer once scored 0.67 (its parts' mean).
        db.session.execute(sa.update(Attempt).where(Attempt.id == other.id).values(score=0.67))
        db.session.commit()
        db.engine.dispose()
    assert runner.invoke(args=["db", "downgrade", "b20d31064c75"]).exit_code == 0
    result = runner.invoke(args=["db", "upgrade"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        stored = {a.id: a for a in db.session.scalars(sa.select(Attempt))}
        assert stored[checked.id].scoring == {"errors": {"missing-mark": ["1.1", "1.2"]}}
        assert stored[other.id].scoring is None  # its words would not be true of 0.67
        assert attempts.scoring_words(stored[other.id], named=True) is None
    assert json.dumps(stored[checked.id].scoring)  # plain JSON, as the column holds it
