"""The student kit: the engine slot's page gives a signed-in student the one pip command, whose
per-student link serves this service's own wheel (built once into the instance folder), and
refuses a forged, expired or renamed link. The real pip install from a running server is in
tests/deploy/test_student_kit.py."""

from __future__ import annotations

import html
import re
import time
import zipfile
from importlib import metadata
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from itsdangerous import TimestampSigner

pytestmark = pytest.mark.slow  # the first download builds the wheel (a few seconds)

COMMAND = re.compile(r'<code data-role="kit-command">([^<]+)</code>')
WHEEL = f"grader-{metadata.version('grader')}-py3-none-any.whl"


@pytest.fixture
def room(app: Any, factory: Any) -> dict[str, Any]:
    from grader.services.engines import submissions

    made = factory.classroom()
    with app.app_context():
        slot = submissions.add_engine_slot(made["assignment_id"])
    return {**made, "page": f"/assignments/{made['assignment_id']}/slots/{slot.index}/engine"}


@pytest.fixture
def slot_page(room: dict[str, Any]) -> str:
    return str(room["page"])


def _command(client: Any, page: str) -> str:
    found = COMMAND.search(client.get(page).get_data(as_text=True))
    assert found, "no install command on the engine slot's page"
    return html.unescape(found.group(1))


def _path_of(command: str) -> str:
    match = re.fullmatch(r'python3 -m pip install "http://localhost(/kit/[^"]+)"', command)
    assert match, command
    return match.group(1)


def test_the_slot_page_gives_the_student_a_command_with_their_own_link(
    client: Any, auth: Any, room: dict[str, Any], factory: Any
) -> None:
    auth.login()
    mine = _path_of(_command(client, room["page"]))
    assert mine.endswith("/" + WHEEL)  # pip takes the wheel's name from the URL
    auth.logout()
    assert client.get(room["page"]).status_code == 302  # signed out: no page, no link
    # Another student's link differs: the token names its user.
    factory.user("other@example.com")
    factory.member(room["course_id"], "other@example.com")
    auth.login("other@example.com")
    theirs = _path_of(_command(client, room["page"]))
    assert theirs != mine and theirs.endswith("/" + WHEEL)


def test_the_link_serves_the_wheel_built_once(
    client: Any, auth: Any, slot_page: str, app: Any
) -> None:
    auth.login()
    path = _path_of(_command(client, slot_page))
    auth.logout()  # pip has no session: the link alone
    with client.get(path) as first:
        assert first.status_code == 200, first.get_data(as_text=True)[:500]
        body = first.get_data()
    wheel = zipfile.ZipFile(BytesIO(body))
    names = set(wheel.namelist())
    assert {"grader/__init__.py", "grader/exercises/checkers/template/engine.py"} <= names
    assert "grader/migrations/env.py" in names
    metadata_text = wheel.read(f"grader-{metadata.version('grader')}.dist-info/METADATA")
    assert b"Name: grader" in metadata_text
    built = list(Path(app.instance_path, "kit").glob(f"*/{WHEEL}"))
    assert len(built) == 1
    stamp = built[0].stat().st_mtime_ns
    with client.get(path) as second:
        assert second.status_code == 200 and second.get_data() == body
    assert built[0].stat().st_mtime_ns == stamp  # served again, not rebuilt
    assert list(Path(app.instance_path, "kit").glob(f"*/{WHEEL}")) == built


def test_a_forged_renamed_or_expired_link_is_refused(
    client: Any, auth: Any, slot_page: str, app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    auth.login()
    path = _path_of(_command(client, slot_page))
    token = path.split("/")[2]
    # forged: the signature no longer matches (its last two characters changed, whatever they were)
    forged = token[:-2] + ("yy" if token.endswith("xx") else "xx")
    assert client.get(f"/kit/{forged}/{WHEEL}").status_code == 404
    # renamed: only the real wheel's name
    assert client.get(f"/kit/{token}/grader-9.9.9-py3-none-any.whl").status_code == 404
    # expired: a link made GRADER_KIT_DAYS + 1 days ago, signed with the real key
    with app.test_request_context():
        from grader.services.accounts import user_by_email
        from grader.services.engines import kit

        days = app.config["GRADER_KIT_DAYS"]
        now = time.time()
        monkeypatch.setattr(
            TimestampSigner, "get_timestamp", lambda self: int(now) - (days + 1) * 86400
        )
        old = kit.download_token(user_by_email("student@example.com"))
        monkeypatch.undo()
    expired = client.get(f"/kit/{old}/{WHEEL}")
    assert expired.status_code == 404
    assert "expired" in expired.get_data(as_text=True)
