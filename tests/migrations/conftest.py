"""Fixtures of the migration tests: a database URL on SQLite (a file of the test's own) or, in
`make test-backends`, on a throwaway PostgreSQL server (a database of the test's own)."""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.live_server import free_port
from tests.postgres_support import PG_BIN, Postgres

_names = itertools.count()


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    if not (PG_BIN / "initdb").exists():
        pytest.fail(f"the PostgreSQL tests need Debian's postgresql (no {PG_BIN / 'initdb'})")
    # Not under pytest's folder: that one is root's alone (0700) and postgres must reach it.
    folder = Path(tempfile.mkdtemp(prefix="grader-test-pg-"))
    server = Postgres(folder, free_port())
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.backends)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database: an SQLite file, or a PostgreSQL database (make test-backends)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'grader.sqlite3'}"
        return
    server: Postgres = request.getfixturevalue("postgres")
    name = f"grader_migrations_{os.getpid()}_{next(_names)}"
    server.execute(f"CREATE DATABASE {name}")
    yield server.url(name)
    server.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
