"""A course whose scores are held, for the held-score tests and the crawler: Alice has a paper
entry, a wrong answer a misconception matched, a right answer, a wrong answer on a generated slot,
weak-spots practice and a graded engine upload; every figure of them that the hold keeps from her
is listed (`Held.figures`), each as a pattern a page, a response or a file could carry it by."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.models import Assignment, utcnow
from grader.web import percent
from tests.instructor_support import ALICE, TA, TEACHER, answer, make_room, textbook_key, user

# The upload's grade: figures nothing else in the course has.
ENGINE_SCORE, ENGINE_MAX = 29.75, 31.5
ENGINE_TEST = "search depth 4: held-marker"
RICH = {
    "tests": [
        {
            "name": ENGINE_TEST,
            "kind": "search",
            "verdict": "passed",
            "score": ENGINE_SCORE,
            "max_score": ENGINE_MAX,
        }
    ]
}
GRADESCOPE = {"score": ENGINE_SCORE, "tests": [{"name": ENGINE_TEST, "score": ENGINE_SCORE}]}


@dataclass
class Held:
    room: Any
    submission_id: int
    practice_id: int
    figures: dict[str, re.Pattern[str]] = field(default_factory=dict)  # what: pattern


def _number(value: float) -> str:
    """A JSON number as Python writes it, not part of a longer one."""
    return rf"(?<![\d.]){re.escape(repr(float(value)))}(?![\d])"


def _figure(text: str) -> str:
    """A number as JSON or a page writes it, not part of a longer one nor of a time (12:31.5)."""
    return rf"(?<![\d.:]){re.escape(text)}(?![\d])"


def _percent(value: float) -> str:
    """A percent as a page prints a score: an element's or a line's whole text or its start, or
    after "score" (a handout's "worth 50% of the grade" is no score)."""
    return rf"(?im)(?:^|>|\bscore:?)\s*{re.escape(percent(value))}(?=\s|<|$|,|\.)"


def release(app: Any, held: Held) -> None:
    """The release date passes."""
    with app.app_context():
        db.session.execute(
            sa.update(Assignment)
            .where(Assignment.id == held.room.assignment_id)
            .values(scores_release_at=utcnow() - dt.timedelta(seconds=1))
        )
        db.session.commit()


def held_course(app: Any, factory: Any) -> Held:
    from grader.services.engines import leases, submissions
    from grader.services.paper import entry as paper_entry
    from grader.services.teaching import editor
    from grader.services.trees import attempts, exercises, practice
    from tests.jobs.engine_support import engine_bytes
    from tests.services.paper.paper_support import sheets_made, textbook_item

    room = make_room(app, factory)
    with app.app_context():
        submissions.add_engine_slot(room.assignment_id, suite="quick")
        editor.update_assignment(
            user(TEACHER),
            room.assignment_id,
            editor.AssignmentInput(
                title="Homework 1",
                hold_scores=True,
                scores_release_at=utcnow() + dt.timedelta(days=2),
            ),
        )
    # A paper sheet's answer, typed in by the TA: the textbook tree, two marks missing.
    run_id = sheets_made(app, room)
    code, index = textbook_item(app, run_id, ALICE)
    with app.app_context():
        paper, _ = paper_entry.save_entry(
            user(TA), code, index, {"pruned": ["1.1"], "value": 3}, version=0
        )
        paper_score = paper.score
    wrong = answer(app, ALICE, room.assignment_id, 0, {"pruned": [], "value": 3})
    right = answer(app, ALICE, room.assignment_id, 0, textbook_key())
    with app.app_context():  # the generated slot: every value but the root's, a part's score
        generated = exercises.slot_exercise(user(ALICE), room.assignment_id, 1)
        nodes = dict(attempts.solution(generated, with_search=False)["key"]["values"])
        nodes.pop(min(nodes, key=len))
    values = answer(app, ALICE, room.assignment_id, 1, {"values": nodes})
    assert 0 < values.score < 1
    assert wrong.diagnosis == "no-pruning" and right.score == 1.0
    with app.app_context():
        # Weak-spots practice, answered right: never held.
        student = user(ALICE)
        exercise = practice.practise_weak_spots(student)
        practice_id = exercise.id
        key = attempts.solution(exercise, with_search=False)["key"]
        done = attempts.submit(student, exercise.id, key).attempt
        shown_practice = percent(done.score)
        sent = submissions.upload(
            student, room.assignment_id, 2, engine_bytes("correct"), "engine.py"
        )
        assert leases.claim_submission(sent.id, "w1") is not None
        assert leases.write_result(
            sent.id,
            "w1",
            score=ENGINE_SCORE,
            max_score=ENGINE_MAX,
            gradescope=GRADESCOPE,
            rich=RICH,
        )
        submission_id = sent.id
    figures: dict[str, str] = {
        "the wrong answer's diagnosis": re.escape(wrong.diagnosis_text[:40]),
        "the wrong answer's misconception, as stored": r'"diagnosis":\s*"no-pruning"',
        "a standing built on a held answer": r"your answers matched it (once|\d+ times)",
        "the upload's maximum": _figure("31.5"),
        "the upload's test": re.escape(ENGINE_TEST),
    }
    for name, attempt_score in (
        ("the paper entry", paper_score),
        ("the wrong answer", wrong.score),
        ("the right answer", right.score),
        ("the generated slot's answer", values.score),
    ):
        if percent(attempt_score) != shown_practice:  # practice's own score is never held
            figures[f"{name}'s percent"] = _percent(attempt_score)
            figures[f"{name}'s score"] = rf'"(score|credited)":\s*{_number(attempt_score)}'
    figures["the upload's score"] = _figure("29.75")  # as JSON and as the page's "%g"
    return Held(
        room,
        submission_id,
        practice_id,
        {name: re.compile(pattern) for name, pattern in figures.items()},
    )


def found(held: Held, text: str) -> list[str]:
    """The held figures a text carries."""
    return [name for name, pattern in held.figures.items() if pattern.search(text)]
