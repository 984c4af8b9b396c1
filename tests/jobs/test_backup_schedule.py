"""A real `grader worker` with GRADER_BACKUP_HOURS takes the period's backup beside its sweep,
records it, and keeps beating meanwhile; the file it writes is a backup a restore accepts."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from grader.extensions import db
from grader.models import BackupRun, WorkerBeat
from tests.jobs.engine_support import wait_for


def test_a_worker_takes_the_scheduled_backup(app, workers, engine_env, tmp_path):
    from grader.services.data import backup

    folder = tmp_path / "backups"
    workers.start(
        1,
        env={
            **engine_env,
            "GRADER_BACKUP_HOURS": "24",
            "GRADER_BACKUP_DIR": str(folder),
            "GRADER_BACKUP_KEEP": "2",
        },
    )

    def recorded() -> list[BackupRun]:
        with app.app_context():
            rows = list(db.session.scalars(sa.select(BackupRun)))
            db.session.remove()
        return rows if rows and rows[0].status != "running" else []

    runs = wait_for(recorded, 120, "the scheduled backup's row", workers)
    assert [(r.status, r.error) for r in runs] == [("ok", None)]
    assert runs[0].period is not None
    files = list(folder.glob("grader-backup-*.tar"))
    assert [str(f) for f in files] == [runs[0].path]
    assert files[0].stat().st_size == runs[0].size
    with app.app_context():
        assert backup.verify(files[0])["database"] == db.engine.dialect.name

    # The worker goes on beating, and its backups' loop, as often as its sweep (0.5 s here),
    # takes no second backup in the same day.
    def later() -> bool:
        with app.app_context():
            seen = db.session.scalar(sa.select(sa.func.max(WorkerBeat.seen_at)))
            db.session.remove()
        return seen is not None and seen > runs[0].finished_at + dt.timedelta(seconds=2)

    wait_for(later, 60, "four more sweeps", workers)
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(BackupRun)) == 1
