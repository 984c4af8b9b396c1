"""One clock outside a course: a time that belongs to no course (an erasure asked for or made,
an account's export, when `grader worker --check` last saw its worker) is told in the server's
zone (GRADER_TIMEZONE), named, as the pages tell it (issue 50): never a bare UTC time."""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from zoneinfo import ZoneInfo

import pytest

from tests.instructor_support import ALICE, user
from tests.mail_support import smtp_sink

SERVER = "America/Chicago"


def told(moment: dt.datetime) -> str:
    """A stored time as the server's clock names it, worked out here with zoneinfo alone."""
    there = moment.replace(tzinfo=dt.UTC).astimezone(ZoneInfo(SERVER))
    assert there.tzname() in ("CST", "CDT")
    return f"{there:%a} {there.day} {there:%b %Y, %H:%M} {there.tzname()} ({SERVER})"


@pytest.fixture
def server_in_chicago(app, factory):
    factory.user(ALICE)
    factory.user("root@example.com", "instructor")
    from grader.services import accounts

    with app.app_context():
        accounts.set_admin(accounts.user_by_email("root@example.com").id, True)
    app.config["GRADER_TIMEZONE"] = SERVER
    return app


def test_an_erasure_request_is_dated_by_the_servers_clock(server_in_chicago):
    from grader.services import Conflict
    from grader.services.data import erasure

    app = server_in_chicago
    with smtp_sink() as smtp:
        app.config.update(
            GRADER_SMTP_HOST="127.0.0.1",
            GRADER_SMTP_PORT=smtp.server_address[1],
            GRADER_SMTP_STARTTLS=False,
        )
        with app.app_context():
            asked, sent = erasure.request_erasure(user(ALICE))
            when = told(asked.created_at)
            assert sent == 1
            with pytest.raises(Conflict) as again:
                erasure.request_erasure(user(ALICE))
    assert f"you asked for erasure on {when} already" in str(again.value)
    body = smtp.messages[0][1].get_content()
    assert f"asked for its erasure on {when}." in body and "UTC" not in body


def test_an_erased_account_is_refused_with_the_servers_clock(server_in_chicago):
    from grader.extensions import db
    from grader.models import User
    from grader.services import Conflict
    from grader.services.data import erasure

    app = server_in_chicago
    with app.app_context():
        alice = user(ALICE).id
        erasure.erase(None, alice)
        with pytest.raises(Conflict) as refused:
            erasure.erase(None, alice)
        erased_at = db.session.get(User, alice).erased_at
    assert str(refused.value) == f"account {alice} was erased on {told(erased_at)}"


def test_an_export_says_as_of_when_by_the_servers_clock(server_in_chicago):
    from grader.services.data import export

    app = server_in_chicago
    with app.app_context():
        before = dt.datetime.now(dt.UTC).replace(tzinfo=None, second=0, microsecond=0)
        out, _ = export.download(None, user(ALICE).id)
        after = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    with zipfile.ZipFile(io.BytesIO(out)) as archive:
        first = archive.read("README.txt").decode().splitlines()[0]
    # The export's minute is one of the minutes the call spanned (no wall-clock assertion).
    minutes = int((after - before).total_seconds() // 60) + 1
    said = [told(before + dt.timedelta(minutes=n)) for n in range(minutes)]
    assert any(f"as of {words}." in first for words in said), first
    assert "UTC" not in first


def test_the_workers_check_says_when_it_was_seen_by_the_servers_clock(server_in_chicago, runner):
    from grader.extensions import db
    from grader.models import WorkerBeat
    from grader.services import liveness

    app = server_in_chicago
    with app.app_context():
        name, host = liveness.this_worker()
        liveness.beat(name, host)
        seen = db.session.get(WorkerBeat, name).seen_at
    checked = runner.invoke(args=["worker", "--check"])
    assert checked.exit_code == 0, checked.output
    assert checked.output.strip() == f"{name} seen at {told(seen)}"
