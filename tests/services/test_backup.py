"""`grader db backup` and `grader db restore` on SQLite, in-process: a course's every row, its
secret key and its revision come back in a new instance; an older backup is upgraded; the
schedule keeps the newest backups and records each run; the administrators' page shows them."""

from __future__ import annotations

import datetime as dt
import json
import os
import stat

import sqlalchemy as sa

from grader.extensions import db
from grader.models import BackupRun
from tests.app_support import attempt_count
from tests.instructor_support import ALICE, BOB, answer, make_room, textbook_key
from tests.migrations.rows_support import revisions
from tests.services.backup_support import new_instance, parts, rows


def _course(app, factory) -> None:
    room = make_room(app, factory)
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    answer(app, BOB, room.assignment_id, 0, {"pruned": [], "value": 3})


def test_a_backup_restores_every_row_and_the_key_in_a_new_instance(
    app, factory, runner, tmp_path, monkeypatch
):
    _course(app, factory)
    dest = tmp_path / "term.tar"
    result = runner.invoke(args=["db", "backup", str(dest)])
    assert result.exit_code == 0, result.output
    assert "backup written" in result.output
    assert stat.S_IMODE(os.stat(dest).st_mode) == 0o600  # it holds every account and the key
    members = parts(dest)
    assert next(iter(members)) == "manifest.json"
    manifest = json.loads(members["manifest.json"])
    head = revisions(app.config["GRADER_MIGRATIONS_DIR"])[-1]
    assert manifest["revision"] == head and manifest["database"] == "sqlite"
    assert set(manifest["parts"]) == {"database.sqlite3", "secret_key", "erasures.jsonl"}
    assert members["secret_key"] == b"test-secret"
    before = rows(app)
    assert len(before["attempt"]) == 2

    other = new_instance(tmp_path / "new", monkeypatch, SECRET_KEY="")
    restored = other.test_cli_runner().invoke(args=["db", "restore", str(dest)])
    assert restored.exit_code == 0, restored.output
    after = rows(other)
    # The command's own run of the source was recorded after its copy was taken.
    assert {k: v for k, v in after.items() if k != "backup_run"} == {
        k: v for k, v in before.items() if k != "backup_run"
    }
    assert (tmp_path / "new" / "instance" / "secret_key").read_text() == "test-secret"


def test_a_backup_of_an_older_revision_is_upgraded_after_its_restore(
    app, factory, runner, tmp_path, monkeypatch
):
    _course(app, factory)
    assert runner.invoke(args=["db", "downgrade", "7a4c2e9d1b05"]).exit_code == 0
    dest = tmp_path / "old.tar"
    result = runner.invoke(args=["db", "backup", str(dest)])
    assert result.exit_code == 0, result.output  # no backup_run table to record it in
    assert json.loads(parts(dest)["manifest.json"])["revision"] == "7a4c2e9d1b05"

    other = new_instance(tmp_path / "new", monkeypatch)
    restored = other.test_cli_runner().invoke(args=["db", "restore", str(dest)])
    assert restored.exit_code == 0, restored.output
    assert "upgraded from revision 7a4c2e9d1b05" in restored.output
    with other.app_context():
        assert attempt_count() == 2
        assert db.session.scalar(sa.select(sa.func.count()).select_from(BackupRun)) == 0


def test_the_schedule_takes_one_backup_a_period_and_keeps_the_newest(app, tmp_path):
    from grader.services.data import backup

    folder = tmp_path / "backups"
    app.config.update(GRADER_BACKUP_HOURS=6, GRADER_BACKUP_DIR=str(folder), GRADER_BACKUP_KEEP=2)
    start = dt.datetime(2026, 11, 26, 0, 30)
    with app.app_context():
        taken = [backup.run_scheduled(start + dt.timedelta(hours=6 * i)) for i in range(3)]
        assert all(run is not None and run.status == "ok" for run in taken)
        # A second sweep in the same period (another worker's, or the next one) takes none.
        assert backup.run_scheduled(start + dt.timedelta(hours=13)) is None
        runs = list(db.session.scalars(sa.select(BackupRun).order_by(BackupRun.id)))
    assert [r.status for r in runs] == ["ok", "ok", "ok"]
    assert len({r.period for r in runs}) == 3
    kept = sorted(folder.glob("grader-backup-*.tar"))
    assert [str(p) for p in kept] == [r.path for r in runs[1:]]
    assert all(p.stat().st_size == r.size for p, r in zip(kept, runs[1:], strict=True))


def test_no_schedule_takes_nothing(app, tmp_path):
    from grader.services.data import backup

    app.config.update(GRADER_BACKUP_HOURS=0, GRADER_BACKUP_DIR=str(tmp_path / "b"))
    with app.app_context():
        assert backup.run_scheduled() is None
        assert db.session.scalar(sa.select(sa.func.count()).select_from(BackupRun)) == 0
    assert not (tmp_path / "b").exists()


def test_a_failed_backup_shows_in_red_until_one_succeeds(app, factory, client, auth, tmp_path):
    from grader.services import accounts
    from grader.services.data import backup

    factory.user("admin@example.com")
    factory.user("student@example.com")
    with app.app_context():
        accounts.set_admin(accounts.user_by_email("admin@example.com").id, True)
    auth.login("student@example.com")
    assert client.get("/admin/backups").status_code == 403
    auth.logout()
    auth.login("admin@example.com")
    page = client.get("/admin/backups").get_data(as_text=True)
    assert "No backup has been taken yet" in page and 'href="/admin/backups"' in page

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the backups' folder should be")
    app.config.update(GRADER_BACKUP_HOURS=1, GRADER_BACKUP_DIR=str(blocker))
    start = dt.datetime(2026, 11, 26, 8, 0)
    with app.app_context():
        failed = backup.run_scheduled(start)
    assert failed is not None and failed.status == "failed" and failed.error
    page = client.get("/admin/backups").get_data(as_text=True)
    assert 'class="flash error" role="alert"' in page
    assert "The last backup failed" in page and "No backup has succeeded yet" in page

    app.config["GRADER_BACKUP_DIR"] = str(tmp_path / "backups")
    with app.app_context():
        ok = backup.run_scheduled(start + dt.timedelta(hours=1))
    assert ok is not None and ok.status == "ok"
    page = client.get("/admin/backups").get_data(as_text=True)
    assert 'role="alert"' not in page and "succeeded" in page
    assert "every 1 hour into" in page
