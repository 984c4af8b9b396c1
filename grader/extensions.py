"""Extensions, created unbound and bound in `create_app` (the limiter lives in `ratelimits`);
the job queue as services see it; the SQLite connection setup."""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator

import sqlalchemy as sa
from flask import Flask, current_app
from flask_login import LoginManager
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf.csrf import CSRFProtect

from grader.config import sqlite_file
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
REPORT_MAIL = "mail_problem_report"  # the staff told of a problem report
TERM_REGRADE = "term_regrade"  # a course's, assignment's or slot's regrade computed to a preview

#: Classes of work, each its own queue (grader/jobs.py): interactive work, which a person
#: waits for, is never queued behind bulk work, and a worker serves the classes it is told
#: (`grader worker --classes`).
INTERACTIVE, BULK = "interactive", "bulk"
WORK_CLASSES = (INTERACTIVE, BULK)
JOB_CLASS = {
    GRADE: INTERACTIVE,
    GAME: INTERACTIVE,
    PASSBACK: INTERACTIVE,
    REPORT_MAIL: INTERACTIVE,
    EXAM: BULK,
    INTEGRITY: BULK,
    TERM_REGRADE: BULK,
}

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


class WriterTurns:
    """Writers of one SQLite file take turns before `BEGIN IMMEDIATE`, and a waiting one goes the
    moment the lock is free: SQLite's own busy handler sleeps 1, 2, 5, 10 ms and more between
    tries, so a writer that finds the lock taken waits at least 1 ms however soon it is free
    (under `bench.load`, one write in six did, for a lock held about 0.5 ms).

    A turn is an advisory `flock` on ``<database>-writers`` (between processes; each opens its
    own after a fork) and a lock between the threads of one process, whose `flock` is shared.
    The wait is polled every 0.1 ms and bounded by the busy timeout; a writer that did not get
    its turn by then goes on to `BEGIN IMMEDIATE` anyway, whose busy timeout decides (the 503
    on a locked database). So a turn only hastens: a program that never takes one (the sqlite3
    shell, a backup) is waited for by the busy timeout alone, and what each transaction holds is
    the same whether or not it took a turn."""

    POLL_SECONDS = 0.0001

    def __init__(self, database: str, timeout_ms: int) -> None:
        self.path = f"{database}-writers"
        self.timeout = timeout_ms / 1000
        self._start()
        # A forked child starts afresh: its own file (a shared one would share the lock) and no
        # turn held, whatever the parent's thread held at the fork.
        own = weakref.WeakMethod(self._start)
        os.register_at_fork(after_in_child=lambda: (start := own()) and start())

    def _start(self) -> None:
        self._close()  # in a forked child, the parent's: the child opens its own when it writes
        self._threads = threading.Lock()
        self._held = threading.local()
        self._fd: int | None = None  # opened at the first turn, under the threads' lock

    def _close(self) -> None:
        fd: int | None = getattr(self, "_fd", None)
        if fd is not None:
            os.close(fd)
            self._fd = None

    def __del__(self) -> None:
        self._close()

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        if getattr(self._held, "depth", 0):  # a write inside a write: the turn is already ours
            self._held.depth += 1
            try:
                yield
            finally:
                self._held.depth -= 1
            return
        deadline = time.monotonic() + self.timeout
        threads = self._threads.acquire(timeout=self.timeout)
        if threads and self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        locked = threads and self._lock(deadline)
        self._held.depth = 1
        try:
            yield
        finally:
            self._held.depth = 0
            if locked and self._fd is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            if threads:
                self._threads.release()

    def _lock(self, deadline: float) -> bool:
        assert self._fd is not None
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(self.POLL_SECONDS)


#: Where `init_app` puts an SQLite file's `WriterTurns` (`writer_turns()` reads it).
WRITER_TURNS = "grader_writer_turns"


def writer_turns() -> contextlib.AbstractContextManager[None]:
    """The current app's turn for a write transaction; nothing to wait for off SQLite files."""
    turns: WriterTurns | None = current_app.extensions.get(WRITER_TURNS)
    return turns.turn() if turns is not None else contextlib.nullcontext()


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
            database = sqlite_file(app.config["SQLALCHEMY_DATABASE_URI"])
            if database is not None:
                app.extensions[WRITER_TURNS] = WriterTurns(
                    database, app.config["GRADER_SQLITE_BUSY_TIMEOUT_MS"]
                )
