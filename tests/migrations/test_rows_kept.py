"""Every revision keeps every row: a database migrated to any revision, with rows in every table
it has, upgraded to head, still has every row with its values (on SQLite, and on PostgreSQL in
`make test-backends`). And an upgrade that would leave a dangling reference commits nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa

from grader import data
from grader.extensions import db
from tests.migrations.rows_support import (
    Schema,
    counts,
    fill,
    lost,
    migrated_app,
    revisions,
    snapshot,
    upgrade,
)

REVISIONS = revisions(data.migrations_dir())


@pytest.mark.parametrize("revision", REVISIONS)
def test_upgrading_to_head_keeps_every_row(revision: str, database_url: str, tmp_path: Path):
    with migrated_app(database_url, tmp_path / "instance") as app:
        upgrade(app, revision)
        with db.engine.begin() as connection:  # foreign keys on: the rows are consistent
            before = fill(connection, Schema.of(connection))
        assert all(len(rows) == 3 for rows in before.values()), counts(before)

        upgrade(app)

        with db.engine.connect() as connection:
            problems = lost(before, connection)
            assert not problems, "\n".join(problems)
            if connection.dialect.name == "sqlite":
                assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_revisions_are_one_line_from_the_first():
    assert len(REVISIONS) >= 13 and REVISIONS[0] == "44f2778c81c7"


DANGLING = '''"""leaves a membership pointing at an account that does not exist"""
from alembic import op
import sqlalchemy as sa

revision = "dangling0001"
down_revision = {head!r}
branch_labels = None
depends_on = None


def upgrade():
    op.create_table("made_by_the_failed_upgrade", sa.Column("id", sa.Integer(), primary_key=True))
    op.execute("UPDATE membership SET user_id = 999999")


def downgrade():
    pass
'''


def test_a_dangling_reference_fails_the_upgrade_and_commits_nothing(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
):
    """SQLite's foreign keys are off while migrating, so only the check at the end can see a
    row that points nowhere: it fails the upgrade, and the whole upgrade, every revision from
    the first, rolls back."""
    migrations = tmp_path / "migrations"
    shutil.copytree(data.migrations_dir(), migrations)
    (migrations / "versions" / "dangling0001_dangling.py").write_text(
        DANGLING.format(head=REVISIONS[-1])
    )
    url = f"sqlite:///{tmp_path / 'grader.sqlite3'}"
    with migrated_app(url, tmp_path / "instance", GRADER_MIGRATIONS_DIR=str(migrations)) as app:
        upgrade(app, REVISIONS[0])
        with db.engine.begin() as connection:
            fill(connection, Schema.of(connection))
        with db.engine.connect() as connection:
            before = snapshot(connection)
            tables = set(sa.inspect(connection).get_table_names())

        with pytest.raises(SystemExit) as failed:  # `grader db upgrade` exits 1, saying why
            upgrade(app)
        assert failed.value.code == 1
        assert (
            "the upgrade would leave 3 row(s) pointing at rows that do not exist, so nothing of "
            "it was committed: membership row 1 -> user" in capfd.readouterr().err
        )

        with db.engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            version = connection.exec_driver_sql("SELECT version_num FROM alembic_version")
            assert version.scalar_one() == REVISIONS[0]
            assert set(sa.inspect(connection).get_table_names()) == tables
            assert snapshot(connection) == before

        # Without the bad revision, the same file upgrades (the failed attempt left no trace).
        (migrations / "versions" / "dangling0001_dangling.py").unlink()
        upgrade(app)
        with db.engine.connect() as connection:
            assert lost(before, connection) == []
