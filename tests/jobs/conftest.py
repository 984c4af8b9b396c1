"""Fixtures of the queue tests: an app on its own database and queue, real `grader worker`
subprocesses, and the sample engines as uploads.

Two configurations. By default each test gets a copy of the migrated SQLite template and the
SQLite queue in its instance folder. With GRADER_TEST_BACKENDS=postgres-redis (make
test-backends), the session starts a throwaway PostgreSQL (initdb and pg_ctl into a temporary
folder, on a free loopback port; as root through the `postgres` user) and a redis-server on a
free loopback port; each test then gets a database made from a migrated template database, and
a flushed Redis queue.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.app_support import FAST_ARGON2
from tests.harness._helpers import TINY
from tests.jobs.engine_support import GRADER, post_multipart
from tests.live_server import free_port
from tests.postgres_support import PG_BIN, Postgres, stop_process, wait_for_port

BACKENDS = os.environ.get("GRADER_TEST_BACKENDS", "sqlite")
# -- the second configuration: PostgreSQL and Redis -----------------------------------------


@dataclass
class Redis:
    port: int
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, self.process)

    def flush(self) -> None:
        import redis

        client = redis.Redis(host="127.0.0.1", port=self.port)
        try:
            client.flushall()
        finally:
            client.close()

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)


@dataclass
class Backends:
    name: str
    postgres: Postgres | None = None
    redis: Redis | None = None
    template: str = "grader_template"
    made: list[str] = field(default_factory=list)


def _migrate(env: dict[str, str]) -> None:
    from flask_migrate import upgrade

    from grader import create_app
    from grader.extensions import db

    mp = pytest.MonkeyPatch()
    for key, value in env.items():
        mp.setenv(key, value)
    try:
        app = create_app({"SECRET_KEY": "test"})
        with app.app_context():
            upgrade(directory=app.config["GRADER_MIGRATIONS_DIR"])
            db.engine.dispose()
    finally:
        mp.undo()


@pytest.fixture(scope="session")
def backends(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backends]:
    if BACKENDS == "sqlite":
        yield Backends("sqlite")
        return
    if BACKENDS != "postgres-redis":
        raise pytest.UsageError("GRADER_TEST_BACKENDS is sqlite or postgres-redis")
    if not (PG_BIN / "initdb").exists() or not shutil.which("redis-server"):
        pytest.fail(
            "postgres-redis needs Debian's postgresql and redis-server "
            f"(no {PG_BIN / 'initdb'} or no redis-server)"
        )
    folder = tmp_path_factory.mktemp("backends")
    # Not under pytest's folder: that one is root's alone (0700) and postgres must reach it.
    pg_folder = Path(tempfile.mkdtemp(prefix="grader-test-pg-"))
    found = Backends("postgres-redis", Postgres(pg_folder, free_port()), Redis(free_port()))
    assert found.postgres and found.redis
    try:
        found.postgres.start()
        found.redis.start()
        found.postgres.execute(f"CREATE DATABASE {found.template}")
        _migrate(
            {
                "GRADER_DATABASE_URL": found.postgres.url(found.template),
                "GRADER_INSTANCE_PATH": str(folder / "instance"),
            }
        )
        yield found
    finally:
        found.redis.stop()
        found.postgres.stop()
        shutil.rmtree(pg_folder, ignore_errors=True)


@pytest.fixture
def engine_env(
    tmp_path: Path, backends: Backends, request: pytest.FixtureRequest, reference_cache: Path
) -> Iterator[dict[str, str]]:
    """The environment the app and the workers of one test share: the test's reference cache
    (tests/conftest.py) and, under pytest-xdist, its worker's sandbox users among them."""
    env = {
        "GRADER_CACHE_DIR": str(reference_cache),
        **{k: os.environ[k] for k in ("GRADER_SANDBOX_UID_BASE",) if k in os.environ},
        "GRADER_INSTANCE_PATH": str(tmp_path / "instance"),
        "GRADER_SECRET_KEY": "test-secret",
        "GRADER_LTI_ALLOW_PRIVATE": "1",  # the test platforms run on loopback
        "GRADER_ENGINE_SUITE": str(TINY),
        "GRADER_LEASE_SECONDS": "4",
        "GRADER_SWEEP_SECONDS": "0.5",
        "GRADER_REWAKE_SECONDS": "60",
        "GRADER_UPLOAD_RATE": "20/600",
        "GRADER_TIMING_BUSY_SHARE": "0",  # a busy test machine times as it is (conftest.py)
    }
    if backends.name == "sqlite":
        db_file = request.getfixturevalue("db_file")
        env["GRADER_DATABASE_URL"] = f"sqlite:///{db_file}"
        yield env
        return
    assert backends.postgres and backends.redis
    backends.postgres.counter += 1
    name = f"grader_test_{os.getpid()}_{backends.postgres.counter}"
    backends.postgres.execute(f"CREATE DATABASE {name} TEMPLATE {backends.template}")
    backends.redis.flush()
    env["GRADER_DATABASE_URL"] = backends.postgres.url(name)
    env["GRADER_QUEUE_URL"] = backends.redis.url
    yield env
    backends.postgres.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def app(engine_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The queue tests' app: settings from the same environment the workers get."""
    from grader import create_app
    from grader.extensions import db

    for key, value in engine_env.items():
        monkeypatch.setenv(key, value)
    application = create_app({"TESTING": True, "GRADER_ARGON2": FAST_ARGON2})
    yield application
    from grader.jobs import close_queues

    close_queues(application)
    with application.app_context():
        db.session.remove()
        db.engine.dispose()


@dataclass
class WorkerPool:
    env: dict[str, str]
    folder: Path
    started: list[subprocess.Popen] = field(default_factory=list)
    logs: list[Any] = field(default_factory=list)

    def start(
        self,
        workers: int = 1,
        worker_type: str = "process",
        env: dict[str, str] | None = None,
        classes: str | None = None,
    ) -> subprocess.Popen:
        """A `grader worker` with the test's settings, or with only `env`'s GRADER_* settings
        when given (another machine: its own instance folder, nothing else shared); serving
        ``classes`` of work when given (`--classes`), else every class."""
        log = (self.folder / f"worker-{len(self.started)}.log").open("wb")
        self.logs.append(log)
        base = {k: v for k, v in os.environ.items() if not k.startswith("GRADER_")}
        process = subprocess.Popen(
            [
                str(GRADER),
                "worker",
                "--workers",
                str(workers),
                "--worker-type",
                worker_type,
                *(["--classes", classes] if classes is not None else []),
            ],
            env={**base, **(env if env is not None else self.env)},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.started.append(process)
        return process

    def log_text(self) -> str:
        return "\n".join(
            p.read_text(errors="replace") for p in sorted(self.folder.glob("worker-*.log"))
        )

    def stop(self) -> None:
        for process in self.started:
            stop_process(process, signal.SIGTERM, timeout=10)  # SIGTERM: stop now, not gracefully
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # anything it left (the sweep)
        for log in self.logs:
            log.close()


@pytest.fixture
def workers(engine_env: dict[str, str], tmp_path: Path) -> Iterator[WorkerPool]:
    pool = WorkerPool(engine_env, tmp_path)
    yield pool
    pool.stop()


# -- the course -----------------------------------------------------------------------------


@dataclass
class EngineRoom:
    course_id: int
    assignment_id: int
    slot_index: int
    student: dict[str, str]
    teacher: dict[str, str]


@pytest.fixture
def room(app: Any, factory: Any) -> EngineRoom:
    """A course with an instructor, a student and an assignment with an engine slot."""
    from grader.services.engines import submissions

    room = factory.classroom()
    with app.app_context():
        slot = submissions.add_engine_slot(room["assignment_id"], suite="quick")
        index = slot.index
    return EngineRoom(
        room["course_id"],
        room["assignment_id"],
        index,
        {"Authorization": f"Bearer {factory.token('student@example.com')}"},
        {"Authorization": f"Bearer {factory.token('teacher@example.com')}"},
    )


@pytest.fixture
def upload(client: Any, room: EngineRoom) -> Callable[..., Any]:
    def send(
        data: bytes,
        filename: str = "engine.py",
        headers: dict[str, str] | None = None,
        **fields: Any,
    ) -> Any:
        form = {
            "assignment_id": str(room.assignment_id),
            "slot_index": str(room.slot_index),
            **{k: str(v) for k, v in fields.items()},
            "file": (io.BytesIO(data), filename),
        }
        return post_multipart(client, "/api/engines", form, headers or room.student)

    return send
