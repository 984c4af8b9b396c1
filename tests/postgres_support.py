"""A throwaway PostgreSQL server for the tests `make test-backends` runs: initdb and pg_ctl into
a temporary folder, on a free loopback port (as root, through the `postgres` user); and the
helpers that wait for a server's port and stop a server's process."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# Only the tests `make test-backends` runs start this server (tests/deploy's scan of the
# programs each target must install reads this mark).
pytestmark = pytest.mark.backends

PG_BIN = Path(
    os.environ.get("GRADER_PG_BIN")
    or max(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: int(p.parent.name),
        default=Path("/usr/lib/postgresql/15/bin"),
    )
)


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


def stop_process(process: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 15) -> None:
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Postgres:
    folder: Path
    port: int
    process: subprocess.Popen | None = None
    counter: int = 0

    def url(self, name: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def _as_postgres(self) -> dict[str, Any]:
        if os.geteuid() != 0:
            return {}
        import pwd

        entry = pwd.getpwnam("postgres")
        return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}

    def start(self) -> None:
        data = self.folder / "data"
        self.folder.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        subprocess.run(
            [
                str(PG_BIN / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
            **self._as_postgres(),
        )
        with (self.folder / "postgres.log").open("wb") as log:  # the child keeps its copy
            self.process = subprocess.Popen(
                [
                    str(PG_BIN / "postgres"),
                    "-D",
                    str(data),
                    "-p",
                    str(self.port),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    f"unix_socket_directories={self.folder}",
                    "-c",
                    "fsync=off",
                    "-c",
                    "synchronous_commit=off",
                    "-c",
                    "max_connections=200",
                ],
                stdout=subprocess.DEVNULL,
                stderr=log,
                **self._as_postgres(),
            )
        wait_for_port(self.port, self.process)
        for _ in range(50):  # the port opens a moment before connections are taken
            try:
                self.execute("SELECT 1")
                return
            except Exception:
                time.sleep(0.1)

    def execute(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True
        ) as connection:
            connection.execute(sql)

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process, signal.SIGINT)  # fast shutdown
