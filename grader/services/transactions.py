"""Write transactions: on SQLite they take the write lock at BEGIN (see `configure_sqlite`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Session

from grader.extensions import WRITE_OPTION, db, writer_turns


@contextmanager
def writing() -> Iterator[Session]:
    """A transaction for a use case that writes; commits on success, rolls back on error.

    A read transaction the request already holds is ended first: SQLite cannot turn it into
    a write transaction without risking "database is locked" when another writer got there first.
    On an SQLite file, writers take turns first (`WriterTurns`: a waiting one goes the moment
    the lock is free, not after SQLite's sleeps).
    """
    session = db.session()  # the request's Session behind the scoped proxy
    if session.in_transaction():
        session.commit()
    with writer_turns():
        session.connection(execution_options={WRITE_OPTION: True})
        try:
            yield session
            session.commit()
        except BaseException:
            # A failed commit (a unique key at flush) too: the session is usable again, so
            # the page that says what went wrong can read the database.
            session.rollback()
            raise


def rows_changed(session: Session, statement: sa.Update | sa.Delete) -> int:
    """Runs an UPDATE or DELETE (without RETURNING) and says how many rows it changed.

    `Session.execute` types every result as a `Result`; for these statements it is the
    `CursorResult` that carries the count."""
    return cast(CursorResult[Any], session.execute(statement)).rowcount
