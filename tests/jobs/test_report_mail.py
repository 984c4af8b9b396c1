"""A problem report's e-mail to the staff goes by the queue, through a real `grader worker`: the
student's request stores the report and reaches no mail server; the worker tells each of the
staff once; a wake-up the queue lost is sent again by the worker's sweep."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import ProblemReport, utcnow
from tests.jobs.engine_support import wait_for
from tests.mail_support import smtp_sink
from tests.reports_support import STUDENT, TA, TEACHER, report_room, send_report


@pytest.fixture
def smtp(engine_env: dict[str, str]) -> Iterator[Any]:
    """The test's mail server, in the settings the app and the workers share (asked for before
    `app`, which reads them)."""
    with smtp_sink() as sink:
        engine_env.update(
            GRADER_SMTP_HOST="127.0.0.1",
            GRADER_SMTP_PORT=str(sink.server_address[1]),
            GRADER_SMTP_STARTTLS="0",
        )
        yield sink


def _report(app: Any) -> ProblemReport:
    with app.app_context():
        found = db.session.scalar(sa.select(ProblemReport))
        db.session.remove()
    assert found is not None
    return found


def _recipients(smtp: Any) -> list[str]:
    return sorted(to for recipients, _ in smtp.messages for to in recipients)


def test_the_staff_are_emailed_by_the_worker_not_the_students_request(
    smtp, app, client, auth, factory, workers
):
    room = report_room(app, factory)
    auth.login(STUDENT)
    sent = send_report(client, room, "Leaf 3 looks pruned to me.")
    assert sent.status_code == 302
    follow = client.get(sent.headers["Location"]).get_data(as_text=True)
    assert "Your report went to the course&#39;s staff, who are told by e-mail" in follow
    assert smtp.messages == []  # the request reached no mail server
    filed = _report(app)
    assert filed.mailed_at is None and filed.mail_tries == 0
    assert filed.mail_link.endswith(f"/instructor/courses/{room['course_id']}/reports")

    workers.start(1)
    wait_for(lambda: len(smtp.messages) == 2, 60, "the staff's e-mails", workers)
    assert _recipients(smtp) == [TA, TEACHER]
    body = smtp.messages[0][1].get_content()
    assert "Leaf 3 looks pruned" in body and filed.mail_link in body
    wait_for(lambda: _report(app).mailed_at is not None, 30, "the e-mail recorded", workers)
    assert _report(app).mail_tries == 1


def test_a_lost_wake_up_is_sent_again_by_the_sweep(smtp, app, client, auth, factory, workers):
    from grader import jobs

    room = report_room(app, factory)
    auth.login(STUDENT)
    assert send_report(client, room, "Leaf 3 looks pruned to me.").status_code == 302
    jobs.queue(app).flush()  # the queue lost the wake-up
    with app.app_context():
        db.session.execute(
            sa.update(ProblemReport).values(mail_woken_at=utcnow() - dt.timedelta(minutes=5))
        )
        db.session.commit()
        db.session.remove()
    workers.start(1)  # its sweep (every 0.5 s here) wakes the job again; the worker sends it
    wait_for(lambda: len(smtp.messages) == 2, 60, "the staff's e-mails", workers)
    wait_for(lambda: _report(app).mailed_at is not None, 30, "the e-mail recorded", workers)
    assert _recipients(smtp) == [TA, TEACHER]
