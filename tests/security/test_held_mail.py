"""Issue 49: e-mail is a reader too. With a student's scores held (`held_support`), every e-mail
the app sends is made happen, through the real SMTP conversation with the test mail backend (a
forgotten password, a sign-in link from the roster, an invite, a problem report on a held
attempt, an erasure request), and none carries a held figure.

Every module that sends mail (`mail.send_many`, found by reading the source) must be one this
test makes send: a new e-mail fails here until it is added, so none goes unread."""

from __future__ import annotations

import ast
import re
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.models import Attempt, ProblemReport
from grader.web import percent
from tests.app_support import csrf_from
from tests.instructor_support import ALICE, TEACHER
from tests.security.held_support import Held, found, held_course

ROOT = Path(__file__).resolve().parents[2]
NEWCOMER, ADMIN = "newcomer@example.com", "root@example.com"


def mail_senders(root: Path = ROOT) -> set[str]:
    """Every module of grader/ that sends e-mail (calls `mail.send_many`)."""
    found_in = set()
    for path in sorted((root / "grader").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "send_many"
            ):
                found_in.add(str(path.relative_to(root)))
    return found_in


def _text(message: EmailMessage) -> str:
    return f"{message['Subject']}\n{message.get_content()}"


def _leaks(held: Held, messages: list[tuple[list[str], EmailMessage]]) -> dict[str, list[str]]:
    return {
        f"{', '.join(to)}: {message['Subject']}": hits
        for to, message in messages
        if (hits := found(held, _text(message)))
    }


def _post(client: Any, page: str, address: str, data: dict[str, str]) -> Any:
    token = csrf_from(client.get(page).get_data(as_text=True))
    return client.post(address, data={**data, "csrf_token": token}, follow_redirects=True)


def _mailing(app: Any, smtp: Any) -> None:
    app.config.update(
        GRADER_SMTP_HOST="127.0.0.1",
        GRADER_SMTP_PORT=smtp.port,
        GRADER_SMTP_STARTTLS=False,
        GRADER_SMTP_FROM="grader@example.edu",
    )


def test_no_email_carries_a_held_figure(app, client, auth, factory, smtp):
    from grader.services import accounts
    from grader.services.teaching import problem_reports

    held = held_course(app, factory)
    room = held.room
    factory.user(ADMIN)
    with app.app_context():
        accounts.set_admin(accounts.user_by_email(ADMIN).id, True)
    _mailing(app, smtp)
    made: dict[str, int] = {}  # sender module: messages it sent

    def sent_by(module: str, step: Any) -> None:
        before = len(smtp.messages)
        step()
        made[module] = len(smtp.wait_for(before + 1)) - before

    # The student: a report on her held attempt (the staff's e-mail, sent by the queue's job).
    auth.login(ALICE)
    report = f"/assignments/{room.assignment_id}/slots/0/report"

    def reported() -> None:
        offered = re.findall(r'value="(a:\d+)"', client.get(report).get_data(as_text=True))
        assert offered  # her held attempts, offered to name
        _post(client, report, report, {"text": "Is my answer right?", "concerning": offered[-1]})
        with app.app_context():
            filed = db.session.scalar(sa.select(ProblemReport))
            assert filed is not None and filed.attempt_id == int(offered[-1][2:])
            problem_reports.tell_staff(filed.id)

    sent_by("grader/services/teaching/problem_reports.py", reported)
    sent_by(
        "grader/services/data/erasure.py",
        lambda: _post(client, "/account", "/account/erasure", {"ask_erasure": "y"}),
    )
    auth.logout()
    # A forgotten password.
    sent_by(
        "grader/services/recovery.py", lambda: _post(client, "/forgot", "/forgot", {"email": ALICE})
    )
    # The instructor: a sign-in link for her, and an invite for someone new.
    auth.login(TEACHER)
    roster = f"/instructor/courses/{room.course_id}/roster"
    sent_by(
        "grader/services/courses/sign_in_links.py",
        lambda: _post(client, roster, f"{roster}/{room.ids[ALICE]}/sign-in-link", {}),
    )
    sent_by(
        "grader/services/courses/invites.py",
        lambda: _post(client, roster, roster, {"email": NEWCOMER, "role": "student"}),
    )
    assert set(made) == mail_senders()  # every sender was made to send
    assert all(made.values()), made
    assert ALICE in {to for recipients, _ in smtp.messages for to in recipients}
    assert _leaks(held, smtp.messages) == {}


def test_the_mail_check_finds_a_held_figure_in_a_sent_message(app, factory, smtp):
    """The check is not vacuous: a held score written into a message, sent through the same
    SMTP conversation (and its encoding), is found."""
    from grader.services import mail

    held = held_course(app, factory)
    _mailing(app, smtp)
    with app.app_context():
        score = db.session.scalar(
            sa.select(Attempt.score).where(Attempt.user_id == held.room.ids[ALICE]).limit(1)
        )
        assert mail.send_many([(ALICE, "Your grade", f"Your score: {percent(score)}\n")]) == 1
    assert _leaks(held, smtp.wait_for(1))


def test_the_sender_check_finds_a_new_sender(tmp_path):
    package = tmp_path / "grader"
    package.mkdir()
    (package / "quiet.py").write_text("def f(): return 1\n", encoding="utf-8")
    (package / "loud.py").write_text(
        "from grader.services import mail\ndef f(): mail.send_many([])\n", encoding="utf-8"
    )
    assert mail_senders(tmp_path) == {"grader/loud.py"}
