"""One student's slot shows the same number on every page and in every report.

A student answers an exercise and has an engine graded (the worker's own claim and result
path); then the student's dashboard and assignment page, the gradebook (page, JSON, CSV), the
drill-down, the item statistics and the LMS passback are read, and every one must say the
score that services.teaching.scores counts for that slot.
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from grader.extensions import db
from grader.models import Assignment, Slot, Submission
from tests.jobs.engine_support import engine_bytes


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_every_page_and_report_shows_the_slot_scores_one_source_counts(
    app, client, factory, room, upload, auth
) -> None:
    from grader.services.engines import leases
    from grader.services.lti import passback
    from grader.services.teaching import scores
    from grader.web import percent

    # The exercise: one wrong answer, graded on the request path.
    student = room.student
    url = f"/api/assignments/{room.assignment_id}/slots/0/exercise"
    exercise = client.get(url, headers=student).get_json()
    answered = client.post(
        exercise["urls"]["attempts"], headers=student, json={"answer": {"pruned": [], "value": 99}}
    )
    assert answered.status_code == 201
    exercise_score = answered.get_json()["score"]
    # The engine: uploaded, claimed and its result written as a worker does.
    submission_id = upload(engine_bytes("correct")).get_json()["id"]
    with app.app_context():
        assert leases.claim_submission(submission_id, "w1") is not None
        leases.write_result(
            submission_id, "w1", score=4.0, max_score=5.0, gradescope={}, rich={"tests": []}
        )
        engine_slot = db.session.get(Submission, submission_id).slot_id
        exercise_slot = db.session.scalar(
            db.select(Slot.id).where(Slot.assignment_id == room.assignment_id, Slot.index == 0)
        )
        student_id = db.session.get(Submission, submission_id).owner_id
        counted = scores.student_slot_states(
            student_id, [db.session.get_one(Assignment, room.assignment_id)]
        )
        lms = passback._slot_scores(room.course_id, room.assignment_id, student_id)
    expected = {engine_slot: 0.8, exercise_slot: exercise_score}
    assert {slot: counted[slot].score for slot in expected} == pytest.approx(expected)
    assert {slot: lms[slot] for slot in expected} == pytest.approx(expected)

    # The student's pages.
    auth.login("student@example.com")
    for page in ("/dashboard", f"/assignments/{room.assignment_id}"):
        text = _text(client.get(page).get_data(as_text=True))
        assert f"1 graded upload, score {percent(0.8)}" in text, page
        assert f"1 / {exercise['attempts_allowed']} attempts, score {percent(exercise_score)}" in (
            text
        ), page
        assert "not started" in text  # the slots not answered say so, beside them
    auth.logout()

    # The staff's pages and reports.
    auth.login("teacher@example.com")
    staff = room.teacher
    book = client.get(f"/api/courses/{room.course_id}/gradebook", headers=staff).get_json()
    (row,) = book["students"]
    assert {int(k): v for k, v in row["slots"].items() if int(k) in expected} == pytest.approx(
        expected
    )
    sheet = client.get(f"/api/courses/{room.course_id}/gradebook.csv", headers=staff)
    header, line = list(csv.reader(io.StringIO(sheet.get_data(as_text=True))))
    cells = dict(zip(header, line, strict=True))
    for index, value in ((room.slot_index, 0.8), (0, exercise_score)):
        (column,) = [h for h in header if f": {index + 1}. " in h]
        assert float(cells[column]) == pytest.approx(value, abs=0.005)
    drill = _text(
        client.get(f"/instructor/courses/{room.course_id}/students/{student_id}").get_data(
            as_text=True
        )
    )
    assert "1 graded upload; the one that counts scores 0.80" in drill
    stats = client.get(f"/api/courses/{room.course_id}/statistics", headers=staff).get_json()
    slots = {s["slot_id"]: s for a in stats["assignments"] for s in a["slots"]}
    assert slots[engine_slot]["students"] == 1 and slots[engine_slot]["attempts"] == 1
    assert slots[engine_slot]["mean_score"] == pytest.approx(0.8)
    assert slots[exercise_slot]["mean_score"] == pytest.approx(exercise_score)
