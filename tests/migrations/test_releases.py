"""The real path: each database a release made with its own code (tests/migrations/releases/,
made by scripts/make_release_db.py) upgraded to head keeps every row with its values, every
gradebook total, and serves every old attempt through the API with the score it had."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from tests.app_support import bearer
from tests.migrations.rows_support import counts, lost, migrated_app, snapshot, upgrade

RELEASES = Path(__file__).parent / "releases"
FOLDERS = sorted(p for p in RELEASES.iterdir() if (p / "facts.json").exists())


def test_every_release_folder_has_its_database():
    assert [p.name for p in FOLDERS][:1] == ["2026-11-22"]
    for folder in FOLDERS:
        assert (folder / "grader.sqlite3").is_file(), folder


def _gradebooks() -> dict[str, dict[str, dict[str, Any]]]:
    """Every course's totals as today's gradebook computes them, shaped as facts.json keeps
    them (course id -> user id -> total, per assignment, per slot)."""
    from grader.models import Course
    from grader.services.teaching import gradebook

    found = {}
    for course in db.session.scalars(sa.select(Course).order_by(Course.id)):
        built = gradebook.build(course.id).to_dict()
        found[str(course.id)] = {
            str(student["user_id"]): {
                "total": student["total"],
                "assignments": student["assignments"],
                "slots": student["slots"],
            }
            for student in built["students"]
        }
    return found


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_a_release_database_upgrades_keeping_rows_totals_and_attempts(folder: Path, tmp_path: Path):
    facts = json.loads((folder / "facts.json").read_text())
    database = tmp_path / "grader.sqlite3"
    shutil.copyfile(folder / "grader.sqlite3", database)
    with migrated_app(f"sqlite:///{database}", tmp_path / "instance") as app:
        with db.engine.connect() as connection:
            before = snapshot(connection)
            revision = connection.exec_driver_sql("SELECT version_num FROM alembic_version")
            assert revision.scalar_one() == facts["revision"]
        # The file is what the release left: the counts it recorded itself.
        assert {**counts(before), "alembic_version": 1} == facts["rows"]

        upgrade(app)

        with db.engine.connect() as connection:
            problems = lost(before, connection)
            assert not problems, "\n".join(problems)
            after = counts(snapshot(connection))
        assert {name: after[name] for name in counts(before)} == counts(before)

        assert _gradebooks() == facts["gradebooks"]

        from grader.services import accounts

        client = app.test_client()
        tokens: dict[str, str] = {}
        for attempt in facts["attempts"]:
            if attempt["user"] not in tokens:
                user = accounts.user_by_email(attempt["user"])
                assert user is not None
                tokens[attempt["user"]] = accounts.issue_token(user.id, "upgrade test")
            served = client.get(
                f"/api/attempts/{attempt['id']}", headers=bearer(tokens[attempt["user"]])
            )
            assert served.status_code == 200, (attempt, served.get_data(as_text=True))
            assert served.get_json()["score"] == attempt["score"], attempt
        assert len(facts["attempts"]) == facts["rows"]["attempt"] > 0
