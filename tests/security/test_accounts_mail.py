"""Invite links by e-mail when `GRADER_SMTP_*` is configured: a real SMTP conversation with a
small server on a loopback port, and the link from the message claims the account. With the
mail server down, the add still happens and the link is there to download."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from tests.app_support import PASSWORD, app_config, csrf_from
from tests.mail_support import smtp_sink

TEACHER, NEWCOMER = "teacher@example.com", "newcomer@example.edu"


@pytest.fixture
def smtp() -> Iterator[Any]:
    with smtp_sink() as server:
        yield server


def _app(tmp_path, db_file, monkeypatch, port: int) -> Any:
    from grader import create_app
    from grader.services import accounts
    from grader.services.courses import courses

    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path / "instance"))
    app = create_app(
        app_config(
            db_file,
            GRADER_SMTP_HOST="127.0.0.1",
            GRADER_SMTP_PORT=port,
            GRADER_SMTP_STARTTLS=False,
            GRADER_SMTP_FROM="course@example.edu",
        )
    )
    with app.app_context():
        accounts.create_user(TEACHER, PASSWORD, "instructor")
        app.config["course_id"] = courses.create_course("Search 101", TEACHER).id
    return app


def _add(client: Any, course_id: int) -> Any:
    roster = f"/instructor/courses/{course_id}/roster"
    page = client.get("/login").get_data(as_text=True)
    client.post(
        "/login", data={"email": TEACHER, "password": PASSWORD, "csrf_token": csrf_from(page)}
    )
    token = csrf_from(client.get(roster).get_data(as_text=True))
    return client.post(
        roster,
        data={"email": NEWCOMER, "name": "", "role": "student", "csrf_token": token},
        follow_redirects=True,
    )


def test_the_invite_is_mailed_and_its_link_claims_the_account(tmp_path, db_file, monkeypatch, smtp):
    app = _app(tmp_path, db_file, monkeypatch, smtp.server_address[1])
    client = app.test_client()
    assert "invite e-mailed" in _add(client, app.config["course_id"]).get_data(as_text=True)
    ((recipients, message),) = smtp.messages
    assert recipients == [NEWCOMER] and message["From"] == "course@example.edu"
    link = re.search(r"http://localhost(/invite/\S+)", message.get_content()).group(1)
    stranger = app.test_client()
    page = stranger.get(link).get_data(as_text=True)
    claimed = stranger.post(
        link,
        data={
            "password": "my own good passphrase",
            "confirm": "my own good passphrase",
            "csrf_token": csrf_from(page),
        },
    )
    assert claimed.status_code == 302 and stranger.get("/dashboard").status_code == 200


def test_with_the_mail_server_down_the_link_is_there_to_hand_out(tmp_path, db_file, monkeypatch):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = _app(tmp_path, db_file, monkeypatch, port)
    answer = _add(app.test_client(), app.config["course_id"])
    assert "invite link to hand out" in answer.get_data(as_text=True)


def test_an_import_mails_one_link_per_new_student(tmp_path, db_file, monkeypatch, smtp):
    app = _app(tmp_path, db_file, monkeypatch, smtp.server_address[1])
    client = app.test_client()
    _add(client, app.config["course_id"])  # signs the teacher in; one message
    roster = f"/instructor/courses/{app.config['course_id']}/roster"
    answer = client.post(
        f"{roster}/import",
        data={
            "csv_text": "email\na@example.edu\nb@example.edu\nc@example.edu\n",
            "csrf_token": csrf_from(client.get(roster).get_data(as_text=True)),
        },
        follow_redirects=True,
    )
    assert "3 invite links (3 e-mailed)" in answer.get_data(as_text=True)
    mailed = [to for recipients, _ in smtp.messages for to in recipients]
    assert mailed == [NEWCOMER, "a@example.edu", "b@example.edu", "c@example.edu"]
    links = {re.search(r"/invite/\S+", m.get_content()).group(0) for _, m in smtp.messages}
    assert len(links) == 4  # one link each


def test_an_existing_account_is_told_by_mail_and_its_link_sets_no_password(
    tmp_path, db_file, monkeypatch, smtp
):
    """Adding an address that has an account e-mails its owner the same invitation a new
    address gets; the link accepts only signed in as that account, never setting a password."""
    from grader.services import accounts

    app = _app(tmp_path, db_file, monkeypatch, smtp.server_address[1])
    with app.app_context():
        accounts.create_user("known@example.edu", PASSWORD)
    client = app.test_client()
    _add(client, app.config["course_id"])  # NEWCOMER, a new address; signs the teacher in
    roster = f"/instructor/courses/{app.config['course_id']}/roster"
    answer = client.post(
        roster,
        data={
            "email": "known@example.edu",
            "name": "",
            "role": "student",
            "csrf_token": csrf_from(client.get(roster).get_data(as_text=True)),
        },
        follow_redirects=True,
    )
    assert "known@example.edu: invited, invite e-mailed." in answer.get_data(as_text=True)
    (new_to, new), (known_to, known) = smtp.messages
    assert (new_to, known_to) == ([NEWCOMER], ["known@example.edu"])

    def words(message: Any) -> str:
        return re.sub(r"/invite/\S+", "LINK", message.get_content())

    assert words(new) == words(known) and new["Subject"] == known["Subject"]
    link = re.search(r"http://localhost(/invite/\S+)", known.get_content()).group(1)
    stranger = app.test_client()
    page = stranger.get(link).get_data(as_text=True)
    assert 'name="password"' not in page
    refused = stranger.post(
        link,
        data={
            "password": "attacker chosen pass",
            "confirm": "attacker chosen pass",
            "csrf_token": csrf_from(stranger.get("/login").get_data(as_text=True)),
        },
    )
    assert refused.status_code == 400
    with app.app_context():
        assert accounts.authenticate("known@example.edu", PASSWORD) is not None
