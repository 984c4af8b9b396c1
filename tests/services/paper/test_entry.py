"""Paper answers entered (services/paper/entry.py): graded, stored as the student's attempt with
every change kept, an anonymous sheet tied to its student, other courses' codes not found."""

from __future__ import annotations

import re
from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.gametree import KINDS, Conventions, Tree
from grader.models import ExamSheet
from grader.services import Conflict, Invalid, NotFound
from tests.app_support import attempt_count
from tests.instructor_support import ALICE, BOB, TA, TEACHER, TEXTBOOK, user
from tests.services.paper.paper_support import sheets_made, textbook_item


def test_an_answer_on_paper_is_graded_stored_and_every_change_kept(app: Any, room: Any) -> None:
    from grader.services.paper import entry as paper_entry
    from grader.services.teaching import scores

    run_id = sheets_made(app, room)
    code, index = textbook_item(app, run_id, ALICE)
    key = KINDS["prune"].key(Tree.from_nested(TEXTBOOK), Conventions())
    wrong = {"pruned": [], "value": 3}
    with app.app_context():
        entry = paper_entry.open_item(user(TA), code.lower(), index)  # codes are read in any case
        assert entry.attempt is None and entry.solution is None  # no key before a save
        attempt, solution = paper_entry.save_entry(user(TA), code, index, wrong, version=0)
        assert attempt.user_id == user(ALICE).id and attempt.entered_by_id == user(TA).id
        assert 0 < attempt.score < 1 and solution["key"] == key
        # The textbook tree's I and J left unmarked: two errors, kept to say how it scored.
        assert attempt.scoring == {"errors": {"missing-mark": ["1.1", "1.2"]}}
        # A second TA who opened the sheet before that save is told whose entry it is.
        with pytest.raises(Conflict, match=r"ta@example\.com saved an answer"):
            paper_entry.save_entry(user(TEACHER), code, index, key, version=0)
        # Seeing it, a change needs a confirmation; then it is kept, the first entry too.
        with pytest.raises(Conflict, match="Replace the saved answer"):
            paper_entry.save_entry(user(TEACHER), code, index, key, version=1)
        attempt, _ = paper_entry.save_entry(
            user(TEACHER), code, index, key, version=1, confirm=True
        )
        assert attempt.score == 1.0 and attempt.entered_by_id == user(TEACHER).id
        assert attempt.scoring == {"errors": {}}  # the new grade's, not the first entry's
        assert [h["entered_by"] for h in attempt.history] == [TA, TEACHER]
        assert [h["answer"] for h in attempt.history] == [wrong, key]
        assert paper_entry.open_item(user(TA), code, index).solution["key"] == key
        # One attempt, counted like any other: the gradebook's source of a slot's state.
        assert attempt_count() == 1
        states = scores.student_slot_states(user(ALICE).id, [attempt.exercise.slot.assignment])
        assert states[attempt.exercise.slot_id].score == 1.0


def test_an_answer_on_paper_reads_its_numbers_by_the_answer_grammar(app: Any, room: Any) -> None:
    # The root's value as a hand writes it (" +3 ") is the key's 3; a word is refused in the
    # grammar's words, naming the part, and stores nothing.
    from grader.services import Unprocessable
    from grader.services.paper import entry as paper_entry

    run_id = sheets_made(app, room)
    code, index = textbook_item(app, run_id, ALICE)
    key = KINDS["prune"].key(Tree.from_nested(TEXTBOOK), Conventions())
    with app.app_context():
        with pytest.raises(
            Unprocessable, match=re.escape("'value' must be a number, a fraction such as 14/3")
        ):
            paper_entry.save_entry(user(TA), code, index, {**key, "value": "three"}, version=0)
        assert attempt_count() == 0
        attempt, _ = paper_entry.save_entry(
            user(TA), code, index, {**key, "value": " +3 "}, version=0
        )
        assert attempt.score == 1.0


def test_sheet_codes_of_other_courses_and_made_up_ones_are_not_found(
    app: Any, room: Any, factory: Any
) -> None:
    from grader.services.paper import entry as paper_entry

    run_id = sheets_made(app, room)
    code, index = textbook_item(app, run_id)
    factory.user("other@example.com", "instructor")
    factory.course("Other", "other@example.com")
    with app.app_context():
        for who, text in ((user("other@example.com"), code), (user(ALICE), code)):
            with pytest.raises(NotFound):
                paper_entry.open_item(who, text, index)
        for made_up in ("", "AAAAA-AAAAA", "0OIL1-23456", "x" * 500):
            with pytest.raises(NotFound):
                paper_entry.open_item(user(TEACHER), made_up, index)
        with pytest.raises(Invalid, match="prune exercise"):
            paper_entry.save_entry(user(TA), code, index, {"leaf_order": []}, version=0)


def test_an_anonymous_sheet_becomes_the_students_at_its_first_save(app: Any, room: Any) -> None:
    from grader.services.paper import entry as paper_entry

    run_id = sheets_made(app, room, anonymous=2)
    code, index = textbook_item(app, run_id)
    answer = KINDS["prune"].key(Tree.from_nested(TEXTBOOK), Conventions())
    with app.app_context():
        with pytest.raises(Invalid, match="choose the student"):
            paper_entry.save_entry(user(TA), code, index, answer, version=0)
        with pytest.raises(Invalid, match="student of this course"):
            paper_entry.save_entry(user(TA), code, index, answer, version=0, student_id=user(TA).id)
        attempt, _ = paper_entry.save_entry(
            user(TA), code, index, answer, version=0, student_id=user(BOB).id
        )
        assert attempt.user_id == user(BOB).id
        sheet = db.session.scalar(sa.select(ExamSheet).where(ExamSheet.code == code))
        # Every question of the sheet is now Bob's graded variant, the printed tree.
        for item in sheet.items:
            assert item.exercise.owner_id == user(BOB).id and item.exercise.variant == 0
            assert {"tree": item.exercise.tree, "players": item.exercise.players} == item.tree
        other, other_index = next(
            (s.code, s.items[0].slot_index)
            for s in db.session.scalars(sa.select(ExamSheet).where(ExamSheet.print_id == run_id))
            if s.code != code
        )
        with pytest.raises(Conflict, match="this student's sheet is"):
            paper_entry.save_entry(
                user(TA), other, other_index, answer, version=0, student_id=user(BOB).id
            )
