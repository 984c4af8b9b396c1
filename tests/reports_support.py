"""A course to report problems in: a teacher, a TA, two students, a standard assignment, an
attempt by the student; the helpers the problem-report tests share."""

from __future__ import annotations

import re
from typing import Any

from tests.app_support import csrf_from

STUDENT, OTHER, TEACHER, TA = (
    "student@example.com",
    "other@example.com",
    "teacher@example.com",
    "ta@example.com",
)


def report_room(app: Any, factory: Any) -> dict[str, Any]:
    from grader.gametree import KINDS, Conventions, Tree
    from grader.services import accounts
    from grader.services.trees import attempts, exercises

    room = factory.classroom()
    factory.user(TA)
    factory.member(room["course_id"], TA, "ta")
    factory.user(OTHER)
    factory.member(room["course_id"], OTHER)
    ids = {}
    with app.app_context():
        for email in (STUDENT, OTHER):
            person = accounts.user_by_email(email)
            exercise = exercises.slot_exercise(person, room["assignment_id"], 0)
            key = KINDS[exercise.kind].key(
                Tree.from_nested(exercise.tree), Conventions.from_dict(exercise.conventions)
            )
            ids[email] = (exercise.id, attempts.submit(person, exercise.id, key).attempt.id)
    return {**room, "ids": ids}


def send_report(client: Any, room: dict[str, Any], text: str, about: str = "") -> Any:
    url = f"/assignments/{room['assignment_id']}/slots/0/report"
    page = client.get(url).get_data(as_text=True)
    return client.post(url, data={"csrf_token": csrf_from(page), "text": text, "concerning": about})


def answer_first(client: Any, course_id: int, text: str) -> Any:
    inbox = client.get(f"/instructor/courses/{course_id}/reports").get_data(as_text=True)
    report_id = re.search(r"/instructor/reports/(\d+)/answer", inbox).group(1)
    return client.post(
        f"/instructor/reports/{report_id}/answer",
        data={"csrf_token": csrf_from(inbox), "text": text},
    )
