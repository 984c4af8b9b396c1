"""Revision c54a7e1f2b38 (issue 54) on a database a release made with its own code: every
attempt and upload is kept with its score, and none has a version (what gave it is unknown, and
the pages say so), so a term regrade looks at every one of them. On SQLite here; on PostgreSQL
by the lead's `make test-backends` (test_rows_kept covers every revision there)."""

from __future__ import annotations

import shutil
from pathlib import Path

import sqlalchemy as sa

from grader.extensions import db
from tests.migrations.rows_support import migrated_app, upgrade

RELEASE = Path(__file__).parent / "releases" / "2026-11-22"


def test_old_scores_are_kept_with_unknown_versions(tmp_path: Path):
    database = tmp_path / "grader.sqlite3"
    shutil.copyfile(RELEASE / "grader.sqlite3", database)
    with migrated_app(f"sqlite:///{database}", tmp_path / "instance") as app:
        with db.engine.connect() as connection:
            attempts = connection.execute(sa.text("SELECT id, score FROM attempt")).all()
            uploads = connection.execute(sa.text("SELECT id, score FROM submission")).all()
        assert attempts and uploads
        upgrade(app)
        with db.engine.connect() as connection:
            assert (
                connection.execute(
                    sa.text("SELECT id, score FROM attempt WHERE grader_version IS NULL")
                ).all()
                == attempts
            )
            assert (
                connection.execute(
                    sa.text(
                        "SELECT id, score FROM submission"
                        " WHERE grader_version IS NULL AND suite_version IS NULL"
                    )
                ).all()
                == uploads
            )
            assert connection.execute(sa.text("SELECT count(*) FROM term_regrade")).scalar() == 0
            assert connection.execute(sa.text("SELECT count(*) FROM score_note")).scalar() == 0
