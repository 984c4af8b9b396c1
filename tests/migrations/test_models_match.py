"""The models and the migrations describe one schema: a database upgraded to head, compared with
the models by Alembic's own autogenerate comparison, differs in nothing (no table, column, type,
nullability, server default, index or constraint), on SQLite and, in `make test-backends`, on
PostgreSQL. The leased jobs' tables, whose columns come from one mixin (`models.base`), are
named on their own so a failure says which one moved; their Python-side defaults, which no
database holds, are checked by making a row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from grader.extensions import db
from grader.models import (
    QUEUED,
    Base,
    ExamPrint,
    IntegrityCheck,
    JobColumns,
    LeaseColumns,
    Submission,
    TermRegrade,
    TournamentGame,
)
from tests.migrations.rows_support import migrated_app, upgrade

LEASED = (Submission, ExamPrint, IntegrityCheck, TermRegrade, TournamentGame)


def _server_default_differs(
    context: Any,
    inspected: sa.Column[Any],
    metadata: sa.Column[Any],
    inspected_default: str | None,
    metadata_default: Any,
    rendered_default: str | None,
) -> bool | None:
    """A JSON column's server default compared as text (PostgreSQL has no `=` for json, which
    Alembic's own comparison would run); None: Alembic compares every other column."""
    if not isinstance(metadata.type, sa.JSON):
        return None

    def text(default: str | None) -> str | None:
        return None if default is None else default.split("::")[0].strip("'")

    return text(inspected_default) != text(rendered_default)


def _differences(connection: sa.Connection) -> list[Any]:
    context = MigrationContext.configure(
        connection,
        opts={"compare_type": True, "compare_server_default": _server_default_differs},
    )
    return compare_metadata(context, Base.metadata)


def _tables(difference: Any) -> set[str]:
    """The tables one difference (an operation, or a list of column operations) is about."""
    if isinstance(difference, list):
        return set().union(*(_tables(item) for item in difference))
    for item in difference[1:]:
        if isinstance(item, sa.Table):
            return {item.name}
        if isinstance(item, (sa.Index, sa.Constraint)) and item.table is not None:
            return {item.table.name}
        if isinstance(item, str):
            return {item}
    return set()


def test_a_database_upgraded_to_head_is_the_models_schema(database_url: str, tmp_path: Path):
    with migrated_app(database_url, tmp_path / "instance") as app:
        upgrade(app)
        with db.engine.connect() as connection:
            differences = _differences(connection)
    leased = {model.__tablename__ for model in LEASED}
    assert [d for d in differences if _tables(d) & leased] == []
    assert differences == []


def test_the_leased_jobs_columns_are_declared_once():
    for model in LEASED:
        mixin = LeaseColumns if model is TournamentGame else JobColumns
        assert issubclass(model, mixin), model
        own = set(vars(model).get("__annotations__", {}))
        mixins = set(vars(LeaseColumns)["__annotations__"]) | set(
            vars(JobColumns)["__annotations__"]
        )
        assert own & mixins == set(), f"{model.__name__} writes out a lease column again"


@pytest.mark.parametrize("model", LEASED, ids=lambda m: m.__name__)
def test_a_leased_jobs_python_defaults(model: type[Any]):
    """The defaults no database holds (they are the ORM's): a new job is queued, never claimed,
    and, when it is a `JobColumns` job, dated when it is asked for."""
    table = model.__table__
    assert table.c.status.default.arg == QUEUED
    assert table.c.attempts.default.arg == 0
    assert not table.c.status.nullable and not table.c.attempts.nullable
    if issubclass(model, JobColumns):
        assert table.c.created_at.default.arg.__name__ == "utcnow"
        assert not table.c.created_at.nullable
