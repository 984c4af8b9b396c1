"""Problem reports' attacks: words are escaped on every page that shows them and bounded; a
report names only the reporter's own attempt or upload in a course they are in; only the
course's staff read the inbox and answer; reports are rate limited per account."""

from __future__ import annotations

import sqlalchemy as sa

from grader.extensions import db
from grader.models import REPORT_TEXT_MAX, ProblemReport
from tests.app_support import csrf_from
from tests.reports_support import (
    OTHER,
    STUDENT,
    TEACHER,
    answer_first,
    report_room,
    send_report,
)

SCRIPT = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def _count(app) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count(ProblemReport.id)))


def test_the_words_are_escaped_in_the_inbox_and_on_the_exercise_page(app, client, auth, factory):
    room = report_room(app, factory)
    auth.login(STUDENT)
    assert send_report(client, room, SCRIPT).status_code == 302
    auth.logout()
    auth.login(TEACHER)
    inbox = client.get(f"/instructor/courses/{room['course_id']}/reports").get_data(as_text=True)
    assert SCRIPT not in inbox and "&lt;script&gt;alert(" in inbox
    answer_first(client, room["course_id"], SCRIPT)
    auth.logout()
    auth.login(STUDENT)
    exercise_id = room["ids"][STUDENT][0]
    page = client.get(f"/exercises/{exercise_id}").get_data(as_text=True)
    assert SCRIPT not in page and page.count("&lt;script&gt;alert(") == 2


def test_text_is_bounded_and_control_characters_refused(app, client, auth, factory):
    room = report_room(app, factory)
    auth.login(STUDENT)
    long = send_report(client, room, "x" * (REPORT_TEXT_MAX + 1))
    assert long.status_code == 400
    control = send_report(client, room, "bell \x07 here")
    assert control.status_code == 400 and "control characters" in control.get_data(as_text=True)
    assert _count(app) == 0


def test_another_students_attempt_cannot_be_named(app, client, auth, factory):
    from grader.services import NotFound, accounts
    from grader.services.teaching import problem_reports

    room = report_room(app, factory)
    theirs = room["ids"][OTHER][1]
    auth.login(STUDENT)
    refused = send_report(client, room, "look at this", f"a:{theirs}")
    assert refused.status_code == 400  # not a choice the form offers
    with app.app_context():  # nor does the service take it, whatever a form says
        student = accounts.user_by_email(STUDENT)
        try:
            problem_reports.report(student, room["assignment_id"], 0, "x", attempt_id=theirs)
        except NotFound:
            pass
        else:
            raise AssertionError("another student's attempt was named")
    assert _count(app) == 0


def test_only_the_courses_people_report_and_only_its_staff_read(app, client, auth, factory):
    room = report_room(app, factory)
    factory.user("outsider@example.com")
    factory.user("prof@example.com", "instructor")
    elsewhere, _ = factory.course("Other", "prof@example.com")
    auth.login("outsider@example.com")
    url = f"/assignments/{room['assignment_id']}/slots/0/report"
    assert client.get(url).status_code in (403, 404)
    auth.logout()
    auth.login(STUDENT)
    assert send_report(client, room, "a real problem").status_code == 302
    assert client.get(f"/instructor/courses/{room['course_id']}/reports").status_code == 403
    with app.app_context():
        report_id = db.session.scalar(sa.select(ProblemReport.id))
    page = client.get("/dashboard").get_data(as_text=True)
    answered = client.post(
        f"/instructor/reports/{report_id}/answer",
        data={"csrf_token": csrf_from(page), "text": "I answer myself"},
    )
    assert answered.status_code == 403
    auth.logout()
    auth.login("prof@example.com")  # an instructor, of another course
    assert client.get(f"/instructor/courses/{room['course_id']}/reports").status_code in (403, 404)
    assert client.get(f"/instructor/courses/{elsewhere}/reports").status_code == 200
    with app.app_context():
        assert db.session.get(ProblemReport, report_id).answer is None


def test_reports_are_rate_limited_per_account(app, client, auth, factory):
    room = report_room(app, factory)
    app.config["GRADER_REPORT_LIMIT"] = "3 per hour"
    auth.login(STUDENT)
    statuses = [send_report(client, room, f"problem {n}").status_code for n in range(4)]
    assert statuses == [302, 302, 302, 429]
    assert _count(app) == 3
