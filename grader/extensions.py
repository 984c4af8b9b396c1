"""Extensions, created unbound and bound in `create_app` (the limiter lives in `ratelimits`);
the job queue as services see it; the SQLite connection setup."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable

import sqlalchemy as sa
from flask import Flask, current_app
from flask_login import LoginManager
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf.csrf import CSRFProtect

from grader.models import Base
from grader.ratelimits import limiter

# expire_on_commit=False: a view may read what a service just committed without a new transaction.
db = SQLAlchemy(model_class=Base, session_options={"expire_on_commit": False})
migrate = Migrate(render_as_batch=True, compare_type=True)
login_manager = LoginManager()
csrf = CSRFProtect()

log = logging.getLogger(__name__)

#: The queue's jobs, by name: services send them (`job_queue.wake(GRADE, submission_id, what=...)`) and
#: grader/jobs.py registers their bodies on the app (`grader.jobs.init_app`).
GRADE, GAME, PASSBACK = "grade_submission", "play_tournament_game", "lti_passback"
EXAM = "print_exam"
INTEGRITY = "integrity_check"  # an engine slot's similarity, an assignment's answers

#: How a job reaches the queue: (job name, its int arguments, priority).
Send = Callable[[str, tuple[int, ...], int], None]


class JobQueue:
    """The app's job queue as services see it, as microblog puts its task queue on the app:
    services enqueue by name and never import the job bodies, which `grader.jobs.init_app`
    binds to the app (`bind`). A message carries only ids: the database says what to do."""

    key = "grader_jobs"

    def bind(self, app: Flask, send: Send) -> None:
        app.extensions[self.key] = send

    def enqueue(self, job: str, *args: int, priority: int = 0) -> None:
        """Send one job; raises when the queue cannot be reached (callers log it: the worker's
        sweep sends it again, the row in the database being the truth)."""
        send: Send | None = current_app.extensions.get(self.key)
        if send is None:
            raise RuntimeError("no job queue on this app (grader.jobs.init_app binds it)")
        send(job, args, priority)

    def wake(
        self,
        job: str,
        *args: int,
        priority: int = 0,
        what: str,
        woken: Callable[[], None] | None = None,
    ) -> bool:
        """Enqueue, or leave it to the sweep: when the queue cannot be reached, the failure is
        logged (naming ``what``) and False returned, the row in the database being the truth
        that the worker's sweep sends again; once sent, ``woken()`` records it (the sweep
        resends after GRADER_REWAKE_SECONDS). The one way every wake-up is sent."""
        try:
            self.enqueue(job, *args, priority=priority)
        except Exception:
            log.exception("could not enqueue %s", what)
            return False
        if woken is not None:
            woken()
        return True


job_queue = JobQueue()

#: Execution option a write transaction sets so that SQLite takes the write lock at BEGIN.
WRITE_OPTION = "grader_write"


def configure_sqlite(
    engine: sa.Engine, *, busy_timeout_ms: int, write_begin: str, synchronous: str
) -> None:
    """WAL, foreign keys and a busy timeout on every connection; BEGIN IMMEDIATE for writes.

    A deferred transaction that reads and then writes cannot wait for the lock (SQLite answers
    "database is locked" at once when another writer committed since its read), so write
    transactions take the lock at BEGIN and wait for it up to the busy timeout.
    """

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        # Take BEGIN away from the sqlite3 module so the "begin" hook below decides its kind.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        writing = conn.get_execution_options().get(WRITE_OPTION, False)
        conn.exec_driver_sql(f"BEGIN {write_begin}" if writing else "BEGIN")


def init_app(app: Flask) -> None:
    db.init_app(app)
    migrate.init_app(app, db, directory=app.config["GRADER_MIGRATIONS_DIR"])
    login_manager.init_app(app)
    csrf.init_app(app)
    limiter.init_app(app)
    with app.app_context():
        engine = db.engine
        if engine.dialect.name == "sqlite":
            configure_sqlite(
                engine,
                busy_timeout_ms=app.config["GRADER_SQLITE_BUSY_TIMEOUT_MS"],
                write_begin=app.config["GRADER_SQLITE_WRITE_BEGIN"],
                synchronous=app.config["GRADER_SQLITE_SYNCHRONOUS"],
            )
