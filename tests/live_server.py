"""gunicorn serving the app in a subprocess, for the tests where the real server matters
(the e2e pages, cookies, throttling shared by several workers)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

#: How often a test's loopback server run by `serve_forever` in a thread looks for its shutdown
#: (socketserver's default, 0.5 s, left each test's teardown waiting up to half a second).
SHUTDOWN_POLL = 0.02


def free_port() -> int:
    """A loopback port nothing listens on (the tests' servers: gunicorn, PostgreSQL, Redis, S3)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_up(
    url: str, process: subprocess.Popen, timeout: float = 90.0, cafile: Path | None = None
) -> None:
    """Until the server answers: a bound for a broken start, never a measure (gunicorn may take
    tens of seconds to start while make test's other workers load the same cores)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            context = ssl.create_default_context(cafile=str(cafile)) if cafile else None
            with urllib.request.urlopen(f"{url}/login", timeout=1, context=context) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the server did not answer at {url} within {timeout} s")


@contextlib.contextmanager
def environment(env: dict[str, str]) -> Iterator[None]:
    """``env`` set in this process for the block (the seeding runs the app in-process)."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        yield


def from_template(template: Path, env: dict[str, str]) -> None:
    """The database of `env`'s settings (an SQLite file, GRADER_DATABASE_URL) made a copy of
    `template`, a database at the latest schema (tests/conftest.py's `migrated_template`, or a
    seeded copy of it): the migrations not run again (a quarter of a second of CPU each time)."""
    url = env["GRADER_DATABASE_URL"]
    assert url.startswith("sqlite:///"), url
    shutil.copy(template, url.removeprefix("sqlite:///"))


@contextlib.contextmanager
def seeding(template: Path, env: dict[str, str]) -> Iterator[Any]:
    """The database of `env` made from `template` (`from_template`), and the app on it in this
    process with its context pushed, for the block to seed through the services; its engine
    disposed of at the end, which checkpoints SQLite's WAL into the file before a server opens
    it."""
    from grader import create_app
    from grader.extensions import db

    from_template(template, env)
    with environment(env):
        app = create_app()
        with app.app_context():
            try:
                yield app
            finally:
                db.engine.dispose()


@contextlib.contextmanager
def serve(
    folder: Path,
    env: dict[str, str],
    *,
    worker: bool = False,
    workers: int = 1,
    tls: tuple[Path, Path, Path] | None = None,
) -> Iterator[str]:
    """gunicorn on a free loopback port with `workers` processes (and a real `grader worker`
    when asked), logging to ``folder/server.log``; yields the server's URL, stops both after.
    `tls`: (certificate, key, the CA that signed it): gunicorn serves HTTPS."""
    port = free_port()
    https = ["--certfile", str(tls[0]), "--keyfile", str(tls[1])] if tls else []
    bin_dir = Path(sys.executable).parent
    with (folder / "server.log").open("w") as log:
        processes = [
            subprocess.Popen(
                [
                    str(bin_dir / "gunicorn"),
                    "--config",
                    "python:grader.gunicorn_conf",
                    "--bind",
                    f"127.0.0.1:{port}",
                    "--workers",
                    str(workers),
                    "--threads",
                    "4",
                    "--log-level",
                    "warning",
                    *https,
                    "grader:create_app()",
                ],
                env={**os.environ, **env},
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        ]
        if worker:
            processes.append(
                subprocess.Popen(
                    [str(bin_dir / "grader"), "worker", "--workers", "1"],
                    env={**os.environ, **env},
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
        url = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
        try:
            _wait_until_up(url, processes[0], cafile=tls[2] if tls else None)
            yield url
        finally:
            for process in reversed(processes):
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
