"""Rows written into every table a schema has, read back, and compared across an upgrade.

The rows are made from the reflected schema alone (types, NOT NULL, foreign keys in dependency
order, unique constraints), so a table a new revision adds is filled without a word here; only
columns a revision reads as more than data (a tree the migration parses) are given by hand, in
`OVERRIDES`.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa

#: Rows written into each table: two with every column filled (pointing at different parents),
#: one with every nullable column NULL.
ROWS = 3

#: Columns whose values a migration reads as more than data: a value it can parse.
OVERRIDES: dict[str, Callable[[int], Any]] = {
    "exercise.kind": lambda i: "values",
    "exercise.tree": lambda i: [[3, 5 + i], [2, 9]],
    "exercise.players": lambda i: ["max", "min"],
    "exercise.conventions": lambda i: {},
    "attempt.kind": lambda i: "values",
    "attempt.answer": lambda i: {"values": {"": 5 + i}},
    "attempt.conventions": lambda i: {},
}

#: Columns a revision drops on purpose (table.column): every other column a table had at any
#: revision is still there at head, with its values.
DROPPED = {"user.api_token_hash"}

Snapshot = dict[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class Schema:
    """A database's tables as reflected (no model involved)."""

    metadata: sa.MetaData

    @classmethod
    def of(cls, connection: sa.Connection) -> Schema:
        metadata = sa.MetaData()
        metadata.reflect(connection)
        metadata.remove(metadata.tables["alembic_version"])
        return cls(metadata)

    @classmethod
    def of_tables(cls, connection: sa.Connection, *names: str) -> Schema:
        """The named tables and every table they refer to, as reflected."""
        metadata = sa.MetaData()
        metadata.reflect(connection, only=list(names))
        return cls(metadata)

    @property
    def tables(self) -> list[sa.Table]:
        """Parents before children."""
        return list(self.metadata.sorted_tables)


def _value(table: sa.Table, column: sa.Column[Any], i: int) -> Any:
    """A value of the column's type for row ``i``, different in every row (unique constraints
    hold whatever columns they span)."""
    override = OVERRIDES.get(f"{table.name}.{column.name}")
    if override is not None:
        return override(i)
    try:
        python_type = column.type.python_type
    except NotImplementedError:
        python_type = str
    if python_type is bool:
        return i % 2 == 0
    if python_type is int:
        return 10 * i + 7
    if python_type is float:
        return 0.25 + i
    if python_type is dt.datetime:
        return dt.datetime(2026, 9, 1 + i, 12, 30, i)
    if python_type is dt.date:
        return dt.date(2026, 9, 1 + i)
    if python_type is bytes:
        return f"bytes of row {i}".encode()
    if python_type in (dict, list):  # JSON
        return {"row": i, "column": column.name}
    text = f"{i}-{table.name}.{column.name}"
    length = getattr(column.type, "length", None)
    return text[:length] if length else text


def fill(connection: sa.Connection, schema: Schema) -> Snapshot:
    """`ROWS` rows into every table, parents first; returns every table's rows as stored."""
    written: Snapshot = {}
    for table in schema.tables:
        single_key = len(table.primary_key.columns) == 1
        for i in range(ROWS):
            full = i < ROWS - 1
            values: dict[str, Any] = {}
            for column in table.columns:
                if column.primary_key and isinstance(column.type, sa.Integer) and single_key:
                    continue  # the database numbers it
                if column.foreign_keys:
                    continue  # below, from the parent's row
                if column.nullable and not full:
                    values[column.name] = None
                else:
                    values[column.name] = _value(table, column, i)
            for constraint in table.foreign_key_constraints:
                parent_rows = written[constraint.referred_table.name]
                nullable = all(c.nullable for c in constraint.columns)
                for element in constraint.elements:
                    if nullable and not full:
                        values[element.parent.name] = None
                    else:
                        values[element.parent.name] = parent_rows[i][element.column.name]
            connection.execute(table.insert().values(values))
        written[table.name] = read(connection, table)
    return written


def _order(table: sa.Table) -> list[sa.Column[Any]]:
    return list(table.primary_key.columns) or list(table.columns)


def read(
    connection: sa.Connection, table: sa.Table, columns: list[str] | None = None
) -> list[dict[str, Any]]:
    """Every row of a table, in primary key order, as dicts of the named columns (all)."""
    chosen = [table.c[name] for name in columns] if columns is not None else list(table.columns)
    rows = connection.execute(sa.select(*chosen).order_by(*_order(table))).mappings()
    return [dict(row) for row in rows]


def snapshot(connection: sa.Connection) -> Snapshot:
    """Every row of every table the database has."""
    return {table.name: read(connection, table) for table in Schema.of(connection).tables}


def lost(before: Snapshot, connection: sa.Connection) -> list[str]:
    """What of ``before`` (rows, column values) the database no longer has: [] when it kept
    everything. A column listed in `DROPPED` may be gone."""
    now = Schema.of(connection)
    problems: list[str] = []
    for name, rows in before.items():
        if name not in now.metadata.tables:
            problems.append(f"table {name} ({len(rows)} rows) is gone")
            continue
        table = now.metadata.tables[name]
        had = list(rows[0]) if rows else [c.name for c in table.columns]
        missing = [c for c in had if c not in table.c and f"{name}.{c}" not in DROPPED]
        if missing:
            problems.append(f"{name}: columns {missing} are gone")
        kept = [c for c in had if c in table.c]
        after = read(connection, table, kept)
        expected = [{c: row[c] for c in kept} for row in rows]
        if len(after) != len(expected):
            problems.append(f"{name}: {len(expected)} rows before, {len(after)} after")
        elif after != expected:
            changed = sum(a != e for a, e in zip(after, expected, strict=True))
            problems.append(f"{name}: {changed} of {len(expected)} rows changed their values")
    return problems


def counts(snap: Snapshot) -> dict[str, int]:
    return {name: len(rows) for name, rows in snap.items()}


def revisions(directory: str | Path) -> list[str]:
    """Every revision, from the first to the head (one line of history)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(directory))
    script = ScriptDirectory.from_config(config)
    heads = script.get_heads()
    assert len(heads) == 1, f"the revisions have {len(heads)} heads: {heads}"
    return [found.revision for found in reversed(list(script.walk_revisions("base", "heads")))]


@contextmanager
def migrated_app(url: str, instance: Path, **extra: Any) -> Iterator[Any]:
    """An app on ``url`` whose context is pushed; its engine disposed of afterwards."""
    from grader import create_app
    from grader.extensions import db
    from tests.app_support import FAST_ARGON2

    saved = os.environ.get("GRADER_INSTANCE_PATH")
    os.environ["GRADER_INSTANCE_PATH"] = str(instance)
    try:
        app = create_app(
            {
                "TESTING": True,
                "SECRET_KEY": "test-secret",
                "SQLALCHEMY_DATABASE_URI": url,
                "GRADER_ARGON2": FAST_ARGON2,
                **extra,
            }
        )
    finally:
        if saved is None:
            del os.environ["GRADER_INSTANCE_PATH"]
        else:
            os.environ["GRADER_INSTANCE_PATH"] = saved
    with app.app_context():
        try:
            yield app
        finally:
            db.session.remove()
            db.engine.dispose()


def upgrade(app: Any, revision: str = "head") -> None:
    """`grader db upgrade` (Flask-Migrate's own code) to ``revision``."""
    from flask_migrate import upgrade as flask_upgrade

    flask_upgrade(directory=app.config["GRADER_MIGRATIONS_DIR"], revision=revision)
