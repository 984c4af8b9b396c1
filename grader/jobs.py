"""Queue tasks, on Huey: grading uploaded engines, playing tournament games, sending scores to
the LMS, telling staff of a problem report by e-mail, printing exam sheets, integrity checks,
term regrades' previews.

`init_app` binds the queue to the app (`grader.extensions.job_queue`): services enqueue a job by its
name there and never import this module, whose job bodies call services and the harness.

The queue is SQLite (instance/queue.sqlite, no server) unless GRADER_QUEUE_URL is a
redis://... URL (workers on several machines, sharing nothing but the database, which holds
the uploads' bytes, and the queue).
Two classes of work, each its own queue in that storage (`extensions.JOB_CLASS`): interactive
(uploads, tournament games, LMS scores), which a person waits for, and bulk (exam prints,
integrity checks, term regrades); each is served by its own workers (`run_worker`), so no upload waits behind a
print. A message carries only an id: the database says what is to be done (services/leases/), so
a lost or duplicated message costs nothing; every leased job (an upload graded, a game, a print,
a check) is run by the one runner of services/leases/runner.py, with its kind. `grader worker`
runs the consumer and, beside it, the sweep that requeues jobs whose worker died and re-sends
wake-ups the queue lost, and in the sweep's process, the scheduled backups (GRADER_BACKUP_HOURS).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import socket
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from flask import Flask, current_app
from huey import PriorityRedisHuey, SqliteHuey
from huey.api import Huey

from grader.extensions import (
    BULK,
    EXAM,
    GAME,
    GRADE,
    INTEGRITY,
    INTERACTIVE,
    JOB_CLASS,
    PASSBACK,
    REPORT_MAIL,
    TERM_REGRADE,
    WORK_CLASSES,
    db,
    job_queue,
)
from grader.services import Conflict, integrity, liveness, lti
from grader.services.data import backup, retention
from grader.services.engines import leases
from grader.services.leases import runner
from grader.services.paper import printing
from grader.services.teaching import problem_reports, term_regrade
from grader.services.trees import practice

log = logging.getLogger(__name__)

#: Each class of work's queue, by name. The interactive queue keeps the name of the single
#: queue of earlier releases: its waiting uploads are served; a print or check waiting there is
#: dropped (logged) and sent to the bulk queue by the sweep after GRADER_REWAKE_SECONDS.
QUEUE_NAMES = {INTERACTIVE: "grader", BULK: "grader-bulk"}


def make_huey(app: Flask, work_class: str = INTERACTIVE) -> Huey:
    """One class of work's queue (`extensions.JOB_CLASS`), with its tasks registered (one per
    app and class, made on first use). The classes share the storage, under their own names."""
    url = app.config["GRADER_QUEUE_URL"]
    name = QUEUE_NAMES[work_class]
    if url.startswith(("redis://", "rediss://", "unix://")):
        huey: Huey = PriorityRedisHuey(name, url=url, results=False)
    elif not url or url.startswith("sqlite:///"):
        filename = (
            url[len("sqlite:///") :] if url else str(Path(app.instance_path) / "queue.sqlite")
        )
        huey = SqliteHuey(name, filename=filename, results=False, timeout=30)
    else:
        raise ValueError(
            f"GRADER_QUEUE_URL must be empty, sqlite:///PATH or redis://..., not {url!r}"
        )

    def grade_submission(submission_id: int) -> None:
        with app.app_context():
            grade_submission_job(submission_id, worker_id())

    def play_tournament_game(game_id: int) -> None:
        with app.app_context():
            play_game(game_id, worker_id())

    # Each try sends the current score whole; a refused one stays marked in the database and
    # the sweep queues it again (services/lti/), so the queue itself does not retry.
    def lti_passback(user_id: int, slot_id: int) -> None:
        with app.app_context():
            lti.send_scores(user_id, slot_id)

    # A refusing mail server leaves the report unmailed: the sweep wakes it again (bounded by
    # problem_reports.MAIL_TRIES), so the queue itself does not retry.
    def mail_problem_report(report_id: int) -> None:
        with app.app_context():
            problem_reports.tell_staff(report_id)

    def print_exam(print_id: int) -> None:
        with app.app_context():
            runner.run(printing.PRINT, print_id, worker_id())

    # An engine slot's similarity or an assignment's answers (services/integrity/): a failure
    # is written on the check (back to the queue, or failed), so the queue does not retry.
    def integrity_check(check_id: int) -> None:
        with app.app_context():
            run_integrity(check_id, worker_id())

    # A term regrade's preview (services/teaching/term_regrade.py), at low priority.
    def regrade_term(regrade_id: int) -> None:
        with app.app_context():
            run_term_regrade(regrade_id, worker_id())

    bodies: dict[str, Callable[..., None]] = {
        GRADE: grade_submission,
        GAME: play_tournament_game,
        PASSBACK: lti_passback,
        REPORT_MAIL: mail_problem_report,
        EXAM: print_exam,
        INTEGRITY: integrity_check,
        TERM_REGRADE: regrade_term,
    }

    @huey.on_startup()
    def _startup() -> None:
        _die_with_parent()
        with app.app_context():  # a forked worker must not reuse its parent's connections
            db.engine.dispose(close=False)

    huey.grader_tasks = {
        job: huey.task(name=job)(body)
        for job, body in bodies.items()
        if queue_of(app, job) == work_class
    }
    return huey


def queue_of(app: Flask, job: str) -> str:
    """The class whose queue a job goes to: its own (`extensions.JOB_CLASS`), or interactive
    for every job under GRADER_BULK_QUEUE=shared (only to measure what bulk's own saves)."""
    work_class = JOB_CLASS[job]
    return INTERACTIVE if app.config["GRADER_BULK_QUEUE"] == "shared" else work_class


def init_app(app: Flask) -> None:
    """Binds the queue to the app: `grader.extensions.job_queue.enqueue(name, ...)` sends a job to
    its class's Huey on this app (made on the first message, so the web pays nothing until it
    enqueues)."""

    def send(job: str, args: tuple[int, ...], priority: int) -> None:
        queue(app, queue_of(app, job)).grader_tasks[job](*args, priority=priority)

    job_queue.bind(app, send)


def queue(app: Flask | None = None, work_class: str = INTERACTIVE) -> Huey:
    """The app's queue of one class of work."""
    app = app or current_app._get_current_object()  # type: ignore[attr-defined]  # Flask types the proxy as the app
    queues: dict[str, Huey] = app.extensions.setdefault("grader_queues", {})
    if work_class not in queues:
        queues[work_class] = make_huey(app, work_class)
    return queues[work_class]


def close_queues(app: Flask) -> None:
    """Closes the connections of the app's queues that hold one (SQLite's)."""
    for huey in app.extensions.get("grader_queues", {}).values():
        if hasattr(huey.storage, "conn"):
            huey.storage.close()


_WORKERS: dict[int, str] = {}


def worker_id() -> str:
    """Who holds a lease: host, process and a random part (pids are reused)."""
    pid = os.getpid()  # a forked worker process gets its own
    if pid not in _WORKERS:
        _WORKERS[pid] = f"{socket.gethostname()}:{pid}:{uuid.uuid4().hex[:8]}"
    return _WORKERS[pid]


def _die_with_parent() -> None:
    """A worker process dies with the consumer (kill -9 of `grader worker` stops its jobs)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def grade_submission_job(submission_id: int, worker: str) -> str:
    """Grade an upload under its lease (services/leases/runner.py); the outcome."""
    return runner.run(leases.SUBMISSION, submission_id, worker)


def play_game(game_id: int, worker: str) -> str:
    """Play a tournament game under its lease; the outcome."""
    return runner.run(leases.GAME, game_id, worker)


def run_integrity(check_id: int, worker: str) -> str:
    """Compute an integrity check under its lease, its progress on the page; the outcome. The
    command line runs checks in its own process with it."""
    return runner.run(integrity.CHECK, check_id, worker)


def run_term_regrade(regrade_id: int, worker: str) -> str:
    """Compute a term regrade's preview under its lease; the outcome."""
    return runner.run(term_regrade.TERM_REGRADE, regrade_id, worker)


PRUNE_EVERY = 3600.0  # seconds between two looks for abandoned practice exercises (a scan)
_next_prune: dict[int, float] = {}  # by process: when this sweep looks next


def sweep_once(app: Flask, me: tuple[str, str] | None = None, slots: int = 1) -> int:
    """Requeue what dead workers left, wake what the queue lost; the number woken. `me`, the
    worker's (name, host), is recorded as alive first with its grading ``slots`` (/healthz,
    `grader worker --check`, /metrics)."""
    with app.app_context():
        if me is not None:
            liveness.beat(*me, slots=slots)
        woken = leases.sweep_submissions()
        for submission_id, priority in woken:
            leases.SUBMISSION.wake(submission_id, priority=priority)
        games = leases.sweep_games()
        leases.GAME.wake(*games)
        prints = printing.sweep_prints()
        printing.PRINT.wake(*prints)
        lti.due_releases()  # held scores whose release came: marked, then sent below
        scores = lti.due_passbacks()
        for user_id, slot_id in scores:
            job_queue.wake(
                PASSBACK, user_id, slot_id, what=f"the LTI score of user {user_id}, slot {slot_id}"
            )
        reports = problem_reports.due_mail()
        for report_id in reports:
            job_queue.wake(REPORT_MAIL, report_id, what=f"the e-mail of problem report {report_id}")
        checks = integrity.checks.sweep()
        integrity.CHECK.wake(*checks)
        regrades = term_regrade.sweep()
        term_regrade.TERM_REGRADE.wake(*regrades)
        # Graded answers scored against classmates' trees too, by the queue: asked here (a
        # course whose staff just asked for a check of their own waits for the next sweep).
        for assignment_id in integrity.answers.due():
            with contextlib.suppress(Conflict):
                checks.append(integrity.answers.request_check(None, assignment_id).id)
        if time.monotonic() >= _next_prune.get(os.getpid(), 0.0):
            _next_prune[os.getpid()] = time.monotonic() + PRUNE_EVERY
            if pruned := practice.prune_abandoned():
                log.info("deleted %d practice exercises never answered", pruned)
        # Archived courses whose retention ran out: their students' data purged.
        purged = retention.purge_due()
        for course_id in purged:
            log.info("purged the students' data of archived course %d", course_id)
        return (
            len(woken)
            + len(games)
            + len(prints)
            + len(scores)
            + len(reports)
            + len(checks)
            + len(regrades)
            + len(purged)
        )


def backups_forever(app: Flask, every: float) -> None:
    """The scheduled backups (GRADER_BACKUP_HOURS): every `every` seconds, the period's backup if
    no worker took it yet. A thread of the sweep's process, so a long backup never holds up the
    sweep and its beats (a worker unseen for three sweeps is taken for dead)."""
    while True:
        try:
            with app.app_context():
                backup.run_scheduled()  # a failure is recorded in its row, not raised
                db.session.remove()
        except Exception:
            log.exception("scheduled backup failed")
        time.sleep(every)


def _sweep_forever(app: Flask, every: float, me: tuple[str, str], slots: int) -> None:
    _die_with_parent()
    with app.app_context():
        db.engine.dispose(close=False)
        try:
            liveness.forget_old()
        except Exception:
            log.exception("could not forget old workers")
    if float(app.config["GRADER_BACKUP_HOURS"]) > 0:
        threading.Thread(
            target=backups_forever, args=(app, every), name="grader-backups", daemon=True
        ).start()
    while True:
        try:
            sweep_once(app, me, slots)
        except Exception:
            log.exception("sweep failed")
        time.sleep(every)


def run_worker(
    app: Flask,
    workers: int = 1,
    worker_type: str = "process",
    classes: tuple[str, ...] = WORK_CLASSES,
) -> None:
    """The consumers of ``classes`` (blocks until SIGINT/SIGTERM), with the sweep in a process
    beside them.

    Each class is consumed by its own workers, so interactive work never waits for a worker
    busy with bulk work: serving both, the interactive queue gets ``workers`` workers and the
    bulk queue one more, in a process of its own at the lowest CPU priority (nice 19: its
    renderers and comparisons take what the grading leaves). Serving one class, it gets
    ``workers`` (bulk still niced).

    The sweep is a process, not a thread, and starts first: the consumer forks its worker
    processes, and a fork while another thread holds a lock (logging, the connection pool)
    can leave the child waiting for ever.
    """
    every = float(app.config["GRADER_SWEEP_SECONDS"])
    me = liveness.this_worker()  # the consumer's pid: the sweep's own changes with the fork
    fork = multiprocessing.get_context("fork")
    main = BULK if classes == (BULK,) else INTERACTIVE
    slots = workers if main == INTERACTIVE else 0  # the uploads and games it grades at once
    beside = [
        fork.Process(
            target=_sweep_forever, args=(app, every, me, slots), name="grader-sweep", daemon=True
        )
    ]
    if main == INTERACTIVE and BULK in classes:
        # Not a daemon: a daemon process may not start the consumer's worker processes.
        beside.append(
            fork.Process(target=_consume_bulk, args=(app, 1, worker_type), name="grader-bulk")
        )
    for process in beside:
        process.start()
    try:
        if main == BULK:
            _lowest_priority()
        _consume(app, main, workers, worker_type)
    finally:
        for process in beside:
            process.terminate()
        for process in beside:
            process.join(timeout=5)


def _consume(app: Flask, work_class: str, workers: int, worker_type: str) -> None:
    consumer = queue(app, work_class).create_consumer(
        workers=workers,
        worker_type=worker_type,
        periodic=False,
        initial_delay=0.05,
        max_delay=1.0,
        check_worker_health=True,
    )
    consumer.run()


def _consume_bulk(app: Flask, workers: int, worker_type: str) -> None:
    """The bulk queue's consumer beside the interactive one's, dying with it."""
    _die_with_parent()
    _lowest_priority()
    with app.app_context():  # the parent's connections stay the parent's
        db.engine.dispose(close=False)
    _consume(app, BULK, workers, worker_type)


def _lowest_priority() -> None:
    """This process and what it starts (the sheets' renderers) run on what others leave."""
    os.nice(19 - os.nice(0))
