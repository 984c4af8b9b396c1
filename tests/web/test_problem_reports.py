"""A student reports a problem with an exercise (its exercise and attempt, or an engine upload,
and their words); the staff are e-mailed, read it in the course's inbox (open, answered) and
answer; the student reads the answer on the exercise's page."""

from __future__ import annotations

import sqlalchemy as sa

from grader.extensions import db
from grader.models import ENGINE_KIND, ProblemReport, Slot
from grader.services.teaching import problem_reports
from tests.app_support import upload_row
from tests.reports_support import STUDENT, TA, TEACHER, answer_first, report_room, send_report


def test_a_report_reaches_the_staff_and_the_answer_the_student(app, client, auth, factory):
    from tests.mail_support import smtp_sink

    room = report_room(app, factory)
    exercise_id, attempt_id = room["ids"][STUDENT]
    auth.login(STUDENT)
    page = client.get(f"/assignments/{room['assignment_id']}/slots/0").get_data(as_text=True)
    link = f"/assignments/{room['assignment_id']}/slots/0/report?exercise={exercise_id}"
    assert link in page and "Report a problem" in page
    form = client.get(link).get_data(as_text=True)
    assert f'value="a:{attempt_id}"' in form  # their attempt, offered to name
    with smtp_sink() as smtp:
        app.config.update(
            GRADER_SMTP_HOST="127.0.0.1",
            GRADER_SMTP_PORT=smtp.server_address[1],
            GRADER_SMTP_STARTTLS=False,
        )
        sent = send_report(
            client, room, "Leaf 3 looks pruned to me,\nbut it is marked wrong.", f"a:{attempt_id}"
        )
        assert sent.status_code == 302 and smtp.messages == []  # the queue's to send
        with app.app_context():
            report = db.session.scalar(sa.select(ProblemReport))
            assert (report.exercise_id, report.attempt_id) == (exercise_id, attempt_id)
            assert report.text == "Leaf 3 looks pruned to me,\nbut it is marked wrong."
            assert problem_reports.tell_staff(report.id) == 2  # the job's body
            assert problem_reports.tell_staff(report.id) == 0  # once
    assert sorted(to for recipients, _ in smtp.messages for to in recipients) == [TA, TEACHER]
    body = smtp.messages[0][1].get_content()
    assert "Leaf 3 looks pruned" in body and f"attempt {attempt_id}" in body
    assert f"/instructor/courses/{room['course_id']}/reports" in body
    auth.logout()
    auth.login(TA)  # a TA reads and answers too
    inbox = client.get(f"/instructor/courses/{room['course_id']}/reports").get_data(as_text=True)
    assert "Open (1)" in inbox and "Answered (0)" in inbox and "Leaf 3 looks pruned" in inbox
    assert answer_first(client, room["course_id"], "Leaf 3 is cut off: beta <= alpha there.")
    inbox = client.get(f"/instructor/courses/{room['course_id']}/reports").get_data(as_text=True)
    assert "Open (0)" in inbox and "Answered (1)" in inbox
    auth.logout()
    auth.login(STUDENT)
    page = client.get(f"/exercises/{exercise_id}").get_data(as_text=True)
    assert "Answered" in page and "Leaf 3 is cut off: beta &lt;= alpha there." in page


def test_a_report_on_an_engine_upload(app, client, auth, factory):
    room = report_room(app, factory)
    from grader.services import accounts

    with app.app_context():
        student = accounts.user_by_email(STUDENT)
        slot = Slot(
            assignment_id=room["assignment_id"],
            index=9,
            title="Engine",
            kind=ENGINE_KIND,
            params={"suite": "quick"},
            conventions={},
        )
        db.session.add(slot)
        db.session.flush()
        upload = upload_row(student.id, slot.id, size=10)
        db.session.commit()
        upload_id = upload.id
    auth.login(STUDENT)
    result = client.get(f"/engines/{upload_id}").get_data(as_text=True)
    assert f"/assignments/{room['assignment_id']}/slots/9/report?about=u:{upload_id}" in result
    url = f"/assignments/{room['assignment_id']}/slots/9/report"
    form = client.get(f"{url}?about=u:{upload_id}").get_data(as_text=True)
    assert f'<option selected value="u:{upload_id}">' in form
    from tests.app_support import csrf_from

    sent = client.post(
        url,
        data={
            "csrf_token": csrf_from(form),
            "text": "My game 3 timed out",
            "concerning": f"u:{upload_id}",
        },
    )
    assert sent.status_code == 302
    with app.app_context():
        assert db.session.scalar(sa.select(ProblemReport.submission_id)) == upload_id
    slot_page = client.get(f"/assignments/{room['assignment_id']}/slots/9/engine")
    assert "My game 3 timed out" in slot_page.get_data(as_text=True)


def test_a_persons_reports_are_in_their_export_and_go_with_erasure_and_purge(
    app, client, auth, factory
):
    import io
    import json
    import zipfile

    from grader.services import accounts
    from grader.services.data import erasure, export, retention

    room = report_room(app, factory)
    auth.login(STUDENT)
    assert send_report(client, room, "My words").status_code == 302
    auth.logout()
    auth.login("other@example.com")
    assert send_report(client, room, "Theirs").status_code == 302
    with app.app_context():
        student = accounts.user_by_email(STUDENT)
        data, _ = export.download(student, student.id)
        [mine] = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("problem_reports.json"))
        assert mine["text"] == "My words" and mine["course"] == "Search 101"
        erasure.erase(None, student.id)
        assert db.session.scalars(sa.select(ProblemReport.text)).all() == ["Theirs"]
        retention.archive(None, room["course_id"])
        retention.purge(room["course_id"])
        assert db.session.scalar(sa.select(sa.func.count(ProblemReport.id))) == 0
