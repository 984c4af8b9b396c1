"""`grader user export|erase` and `grader course archive`, through Flask's runner, and
`grader user export` as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile

import sqlalchemy as sa

from tests.instructor_support import ALICE, BOB
from tests.privacy_support import full_room


def test_user_export_writes_the_zip_with_the_integrity_findings(runner, app, factory, tmp_path):
    room = full_room(app, factory)
    dest = tmp_path / "alice.zip"
    result = runner.invoke(args=["user", "export", ALICE, str(dest)])
    assert result.exit_code == 0, result.output
    assert f"wrote the data of account {room.ids[ALICE]}" in result.output
    with zipfile.ZipFile(dest) as archive:
        assert json.loads(archive.read("account.json"))["email"] == ALICE
        assert "integrity.json" in archive.namelist()
    again = runner.invoke(args=["user", "export", ALICE, str(dest)])
    assert again.exit_code != 0 and "exists already: nothing was written" in again.output
    into = runner.invoke(args=["user", "export", ALICE, str(tmp_path)])
    assert into.exit_code == 0 and len(list(tmp_path.glob("grader-account-*.zip"))) == 1


def test_user_erase_asks_then_erases(runner, app, factory):
    from grader.extensions import db
    from grader.models import AccountErasure

    room = full_room(app, factory)
    kept = runner.invoke(args=["user", "erase", ALICE], input="n\n")
    assert kept.exit_code != 0 and "its attempts are kept without a name" in kept.output
    done = runner.invoke(args=["user", "erase", ALICE], input="y\n")
    assert done.exit_code == 0, done.output
    assert f"account {room.ids[ALICE]} erased: 1 attempt kept without a name" in done.output
    with app.app_context():
        [row] = db.session.scalars(sa.select(AccountErasure)).all()
        assert (row.account_id, row.erased_by_id) == (room.ids[ALICE], None)
    gradebook = runner.invoke(args=["gradebook", str(room.course_id), "--csv"])
    assert ALICE not in gradebook.output and BOB in gradebook.output


def test_course_archive_and_reopen(runner, app, factory):
    room = full_room(app, factory)
    archived = runner.invoke(args=["course", "archive", str(room.course_id)])
    assert (
        archived.exit_code == 0
        and "is archived; its students' data is purged on" in archived.output
    )
    reopened = runner.invoke(args=["course", "archive", str(room.course_id), "--reopen"])
    assert reopened.exit_code == 0 and "is open" in reopened.output


def test_user_export_as_a_real_process(app, factory, db_file, tmp_path):
    full_room(app, factory)
    env = {
        **os.environ,
        "GRADER_DATABASE_URL": f"sqlite:///{db_file}",
        "GRADER_INSTANCE_PATH": str(tmp_path / "instance"),
    }
    dest = tmp_path / "out.zip"
    grader = os.path.join(os.path.dirname(sys.executable), "grader")
    done = subprocess.run(
        [grader, "user", "export", ALICE, str(dest)],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "uploads.json" in zipfile.ZipFile(dest).namelist()
