"""A course's staff read only what a student did in that course.

The attack, as it was found: an instructor adds any existing account to their course, and the
course's "Practice progress" page counted every attempt of that account, from its private
practice and from every other course ("7 answers, holding: No pruning", none made in the
course); its TAs saw the same. Now the staff pages count the course's own exercises alone (its
graded variants and their practice variants), and the student's own progress page still counts
everything they did."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.instructor_support import (
    ALICE,
    BOB,
    TA,
    TEACHER,
    TEXTBOOK,
    add_textbook_slot,
    answer,
    make_room,
    textbook_key,
    user,
    wrong_prune,
)

RIVAL = "rival@example.com"


@pytest.fixture
def elsewhere(app, factory) -> Any:
    """Search 101 (the teacher's, with its TA), where Alice has answered nothing yet; and
    Alice's work elsewhere: three wrong private practice answers and two wrong answers in
    another instructor's course, each like plain minimax (No pruning)."""
    from grader.services.teaching import editor
    from grader.services.trees import attempts, exercises

    room = make_room(app, factory)
    factory.user(RIVAL, "instructor")
    other_id, _ = factory.course("Other course", RIVAL)
    factory.member(other_id, ALICE)
    with app.app_context():
        rival = user(RIVAL)
        other = editor.create_assignment(rival, other_id, editor.AssignmentInput(title="Other 1"))
        add_textbook_slot(rival, other.id, "Their tree")
        alice = user(ALICE)
        practice = exercises.create_practice(alice, "prune", tree=TEXTBOOK)
        for _ in range(3):
            attempts.submit(alice, practice.id, wrong_prune())
    for _ in range(2):
        answer(app, ALICE, other.id, 0, wrong_prune())
    return room


def _row(html: str, email: str) -> str:
    """The "Every student" table's row of `email`, its tags stripped."""
    table = html.split('data-role="students"', 1)[1]
    row = next(r for r in table.split("<tr>") if f">{email}</a>" in r)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row.split("</tr>", 1)[0])).strip()


def _holding(html: str, code: str) -> str:
    row = html.split(f'data-code="{code}"', 1)[1].split("</tr>", 1)[0]
    return re.findall(r"<td>(\d+)</td>", row)[0]


@pytest.mark.parametrize("staff_email", [TEACHER, TA])
def test_course_staff_never_see_private_practice_or_other_courses(
    client, auth, elsewhere, staff_email
):
    auth.login(staff_email)
    page = client.get(f"/instructor/courses/{elsewhere.course_id}/progress")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert _row(html, ALICE) == f"{ALICE} 0 none 0 of {html.count('data-code=')}"
    assert _holding(html, "no-pruning") == "0"
    assert "answers, stuck on" not in html


def test_what_the_student_did_in_the_course_is_what_its_staff_count(app, client, auth, elsewhere):
    answer(app, ALICE, elsewhere.assignment_id, 0, wrong_prune())
    answer(app, BOB, elsewhere.assignment_id, 0, textbook_key())
    for staff_email in (TEACHER, TA):
        auth.login(staff_email)
        html = client.get(f"/instructor/courses/{elsewhere.course_id}/progress").get_data(
            as_text=True
        )
        auth.logout()
        assert _row(html, ALICE).startswith(f"{ALICE} 1 No pruning")
        assert _row(html, BOB).startswith(f"{BOB} 1 none")
        assert _holding(html, "no-pruning") == "1"


def test_the_student_still_sees_their_whole_history(app, client, auth, elsewhere):
    from grader.services.trees import practice

    answer(app, ALICE, elsewhere.assignment_id, 0, wrong_prune())
    with app.app_context():
        assert practice.progress(user(ALICE)).attempts == 6  # 3 private, 2 elsewhere, 1 here
    auth.login(ALICE)
    page = client.get("/progress")
    assert page.status_code == 200
    summary = page.get_data(as_text=True).split('data-role="progress-summary"', 1)[1]
    assert "from 6 answers" in summary.split("</p>", 1)[0]
    assert "1 practising" in summary.split("</p>", 1)[0]  # No pruning, from all six


def test_the_course_staff_service_counts_the_course_alone(app, elsewhere):
    from grader.services.trees import practice

    with app.app_context():
        for staff_email in (TEACHER, TA):
            seen = practice.course_progress(user(staff_email), elsewhere.course_id)
            alice = next(r for r in seen.students if r.email == ALICE)
            assert (alice.attempts, alice.practising, alice.mastered) == (0, [], 0)
            assert seen.holding["no-pruning"] == 0
