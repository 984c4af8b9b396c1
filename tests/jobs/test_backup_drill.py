"""The restore drill: while clients submit attempts through the API of a real gunicorn and a
`grader worker` grades engine uploads, `grader db backup` takes a backup; `grader db restore`
puts it into a new instance, served by its own gunicorn. Every attempt acknowledged (a 2xx
received) before the backup began is there, and the restored service logs its users in through
the login page and serves the course's gradebook. On SQLite by default; on PostgreSQL with
`make test-backends` (the fixtures of tests/jobs choose)."""

from __future__ import annotations

import json
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tests.app_support import PASSWORD
from tests.instructor_support import TEXTBOOK, textbook_key
from tests.jobs.engine_support import GRADER, add_student, engine_bytes, wait_for
from tests.live_server import serve
from tests.security.accounts_support import Browser

pytestmark = pytest.mark.slow

CLIENTS = 4


def _call(url: str, path: str, headers: dict[str, str], body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url + path, data=data, headers={**headers, "Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, None


class Client(threading.Thread):
    """A student answering a practice tree again and again through the API; each attempt the
    server acknowledged is kept with the moment its answer arrived."""

    def __init__(self, url: str, headers: dict[str, str], stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.url, self.headers, self.stop = url, headers, stop
        self.acknowledged: list[tuple[int, float]] = []
        self.failures: list[int] = []

    def run(self) -> None:
        status, exercise = _call(
            self.url, "/api/exercises", self.headers, {"kind": "prune", "tree": TEXTBOOK}
        )
        if status != 201:
            self.failures.append(status)
            return
        path = f"/api/exercises/{exercise['id']}/attempts"
        while not self.stop.is_set():
            status, attempt = _call(self.url, path, self.headers, {"answer": textbook_key()})
            if 200 <= status < 300:
                self.acknowledged.append((attempt["attempt_id"], time.monotonic()))
            else:
                self.failures.append(status)


def _grader(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(GRADER), *args], env=env, capture_output=True, text=True, timeout=300
    )


def _target(engine_env: dict[str, str], backends: Any, folder: Path) -> dict[str, str]:
    """The new instance: its own folder and an empty database (a new SQLite file, or a new
    PostgreSQL database); the queue the tests' fixtures give."""
    env = {**engine_env, "GRADER_INSTANCE_PATH": str(folder / "instance")}
    env.pop("GRADER_SECRET_KEY")  # the restored instance takes the backup's key
    if backends.name == "sqlite":
        env["GRADER_DATABASE_URL"] = f"sqlite:///{folder / 'restored.sqlite3'}"
    else:
        backends.postgres.counter += 1
        name = f"grader_restored_{backends.postgres.counter}"
        backends.postgres.execute(f"CREATE DATABASE {name}")
        env["GRADER_DATABASE_URL"] = backends.postgres.url(name)
    return env


def test_a_backup_taken_under_load_restores_every_acknowledged_attempt(
    app, factory, room, upload, workers, engine_env, backends, tmp_path, monkeypatch
):
    from grader.extensions import db
    from grader.models import Attempt, Submission

    students = [add_student(factory, room, f"drill{n}@example.com") for n in range(CLIENTS)]
    for n in range(3):  # engines for the worker to grade while the backup is taken
        sent = upload(engine_bytes("correct") + f"\n# upload {n}\n".encode())
        assert sent.status_code == 201, sent.get_json()
    workers.start(1)
    source = tmp_path / "source"
    source.mkdir()
    dest = tmp_path / "drill.tar"
    stop = threading.Event()
    with serve(source, engine_env) as url:
        clients = [Client(url, headers, stop) for headers in students]
        for client in clients:
            client.start()

        def acknowledged() -> bool:
            assert any(c.is_alive() for c in clients), [c.failures for c in clients]
            return sum(len(c.acknowledged) for c in clients) >= 200

        wait_for(acknowledged, 180, "200 attempts acknowledged")
        began = time.monotonic()
        taken = _grader(engine_env, "db", "backup", str(dest))
        after_backup = sum(len(c.acknowledged) for c in clients)
        time.sleep(0.5)  # the clients go on after the backup too
        stop.set()
        for client in clients:
            client.join(timeout=60)
    assert taken.returncode == 0, taken.stderr
    assert not any(c.failures for c in clients), [c.failures for c in clients]
    before = {a for c in clients for a, at in c.acknowledged if at < began}
    total = {a for c in clients for a, _ in c.acknowledged}
    with app.app_context():
        graded = db.session.scalar(
            sa.select(sa.func.count()).select_from(Submission).where(Submission.status == "done")
        )
        db.session.remove()

    target = _target(engine_env, backends, tmp_path / "restored")
    restored = _grader(target, "db", "restore", str(dest))
    assert restored.returncode == 0, restored.stderr + restored.stdout
    with pytest.MonkeyPatch.context() as patch:
        for key, value in target.items():
            patch.setenv(key, value)
        patch.delenv("GRADER_SECRET_KEY", raising=False)
        from grader import create_app

        other = create_app({"TESTING": True})
        with other.app_context():
            present = set(db.session.scalars(sa.select(Attempt.id)))
            uploads = db.session.scalar(sa.select(sa.func.count()).select_from(Submission))
            db.session.remove()
            db.engine.dispose()
    print(
        f"\nrestore drill ({backends.name}): {len(before)} attempts acknowledged before the "
        f"backup began, {len(before & present)} of them present after the restore; "
        f"{len(present)} attempts restored in all ({after_backup} acknowledged by the backup's "
        f"end, {len(total)} by the clients' stop); {uploads} uploads, {graded} graded at the end"
    )
    assert before and before <= present
    assert present <= total  # nothing the service did not acknowledge
    assert uploads == 3

    # The restored service, served: its users log in through the login page, the instructor's
    # gradebook lists the drill's students, a student's token reads an acknowledged attempt.
    served = tmp_path / "restored-served"
    served.mkdir()
    with serve(served, target) as url:
        student = Browser(url)
        assert student.login("drill0@example.com", PASSWORD).status == 302
        assert student.signed_in()
        teacher = Browser(url)
        assert teacher.login("teacher@example.com", PASSWORD).status == 302
        book = teacher.request(f"/instructor/courses/{room.course_id}/gradebook")
        assert book.status == 200
        assert all(f"drill{n}@example.com" in book.text for n in range(CLIENTS))
        first = min(a for a, _ in clients[0].acknowledged)
        status, attempt = _call(url, f"/api/attempts/{first}", students[0])
        assert status == 200 and attempt["attempt_id"] == first
