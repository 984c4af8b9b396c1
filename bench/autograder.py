"""`python -m bench.autograder`: the autograder end to end, on loopback and temporary files.

1. Time from upload to result of the correct sample engine with the quick suite, through the
   upload API and real `grader worker` processes, with 1 and then 2 workers; the peer,
   measured in the same run: the same suite through `grader.harness.grade_engine` directly (the
   ratio is what the service adds: queueing, storage, database writes, polling).
2. A burst of 20 uploads (20 students, so that none supersedes another) graded with the
   *tiny* suite (tests/harness/data/tiny.json, about a second of grading each, so that the
   figure is the queue's and not the suite's): throughput with 1 and 2 workers; the peer:
   the same 20 engines through `grader.harness.grade_engines` with as many slots.

Uploads go through the Flask app in this process (the same view and service as over HTTP);
the SQLite database and queue live in a temporary instance folder. Every wait is bounded.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flask import Flask

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "tests" / "harness" / "engines" / "correct.py"
TINY = ROOT / "tests" / "harness" / "data" / "tiny.json"
GRADER = Path(sys.executable).with_name("grader")
PASSWORD = "bench horse battery staple"


TEACHER = "teacher@bench.example.com"


def course_service(folder: Path, suite: str, **env: str) -> tuple[Flask, dict[str, str], int]:
    """A service in `folder` grading uploads with `suite` (`env` adds to its settings, which are
    set in this process too): its app on a migrated database holding a teacher and a course,
    the settings, and the course's id."""
    settings = {
        "GRADER_INSTANCE_PATH": str(folder / "instance"),
        "GRADER_DATABASE_URL": f"sqlite:///{folder / 'grader.sqlite3'}",
        "GRADER_SECRET_KEY": "bench",
        "GRADER_ENGINE_SUITE": suite,
        "GRADER_UPLOAD_RATE": "1000/60",
        "GRADER_SWEEP_SECONDS": "5",
        **env,
    }
    os.environ.update(settings)
    from bench import migrate
    from grader import create_app
    from grader.services import accounts
    from grader.services.courses import courses

    app = create_app({"GRADER_ARGON2": {"time_cost": 1, "memory_cost": 1024, "parallelism": 1}})
    with app.app_context():
        migrate(app)
        accounts.create_user(TEACHER, PASSWORD, "instructor")
        course_id = courses.create_course("Bench", TEACHER).id
    return app, settings, course_id


def start_worker(
    folder: Path,
    env: dict[str, str],
    count: int,
    timeout: float = 120.0,
    prefix: list[str] | None = None,
) -> subprocess.Popen:
    """`grader worker --workers count` with the service's settings `env` (its log in `folder`),
    once each of its consumers has logged its start (a consumer forks its worker processes
    right after): two when its first line says it serves bulk work beside the interactive
    work, else one (a single queue's worker, as the peers' code has). `prefix` runs it
    through another command (`bench.machines`: on a machine of its own)."""
    path = folder / f"worker-{count}.log"
    offset = path.stat().st_size if path.exists() else 0
    log = path.open("ab")
    process = subprocess.Popen(
        [*(prefix or []), str(GRADER), "worker", "--workers", str(count)],
        env={**os.environ, **env},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    log.close()
    deadline = time.monotonic() + timeout
    while True:
        text = path.read_bytes()[offset:].decode(errors="replace")
        consumers = 2 if "and one for bulk work" in text else 1
        if text.count("Huey consumer started") >= consumers:
            return process
        if process.poll() is not None or time.monotonic() > deadline:
            stop_worker(process)
            raise RuntimeError(f"the worker did not start: {text[-2000:]}")
        time.sleep(0.05)


def stop_worker(process: subprocess.Popen) -> None:
    """The worker stopped as its service manager does (SIGTERM, then SIGKILL after 15 s), and
    anything it left in its session (a renderer) killed."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


class Service:
    """A migrated database with a course and an engine slot, and the app to upload through."""

    def __init__(self, folder: Path, suite: str, students: int) -> None:
        self.folder = folder
        self.app, self.env, course_id = course_service(folder, suite)
        from grader.services import accounts
        from grader.services.courses import courses, invites, roster
        from grader.services.engines import submissions

        with self.app.app_context():
            assignment = courses.create_assignment(course_id, "standard")
            self.assignment_id = assignment.id
            self.index = submissions.add_engine_slot(assignment.id).index
            self.tokens = []
            for n in range(students):
                user = accounts.create_user(f"s{n}@bench.example.com", PASSWORD)
                roster.add_member(None, course_id, user.email)
                invites.accept_as(user, course_id)  # a member once the account accepts
                self.tokens.append(accounts.issue_token(user.id, scopes=accounts.SCOPES))
        self.client = self.app.test_client()
        self.workers: list[subprocess.Popen] = []

    def upload(self, student: int) -> int:
        from werkzeug.datastructures import FileStorage
        from werkzeug.test import stream_encode_multipart

        stream, _, boundary = stream_encode_multipart(
            {
                "assignment_id": str(self.assignment_id),
                "slot_index": str(self.index),
                "file": FileStorage(io.BytesIO(ENGINE.read_bytes()), "engine.py"),
            },
            use_tempfile=False,
        )
        response = self.client.post(
            "/api/engines",
            data=stream.getvalue(),
            headers={"Authorization": f"Bearer {self.tokens[student]}"},
            content_type=f"multipart/form-data; boundary={boundary}",
        )
        assert response.status_code == 201, response.get_json()
        return response.get_json()["id"]

    def statuses(self, ids: list[int]) -> dict[int, str]:
        import sqlalchemy as sa

        from grader.extensions import db
        from grader.models import Submission

        with self.app.app_context():
            found = dict(
                db.session.execute(
                    sa.select(Submission.id, Submission.status).where(Submission.id.in_(ids))
                ).all()
            )
            db.session.remove()
        return found

    def wait(self, ids: list[int], timeout: float) -> dict[int, float]:
        """Each submission's finish time (monotonic), once every one is done or failed."""
        finished: dict[int, float] = {}
        deadline = time.monotonic() + timeout
        while len(finished) < len(ids):
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{len(ids) - len(finished)} submissions not graded after {timeout:.0f} s"
                )
            now = time.monotonic()
            for sid, status in self.statuses(ids).items():
                if status in ("done", "failed") and sid not in finished:
                    finished[sid] = now
            time.sleep(0.05)
        failed = [s for s, st in self.statuses(ids).items() if st != "done"]
        if failed:
            raise RuntimeError(f"submissions {failed} failed")
        return finished

    def start_workers(self, count: int) -> None:
        self.workers.append(start_worker(self.folder, self.env, count))

    def stop_workers(self) -> None:
        for process in self.workers:
            stop_worker(process)
        self.workers.clear()

    def close(self) -> None:
        self.stop_workers()
        from grader.extensions import db
        from grader.jobs import close_queues

        close_queues(self.app)
        with self.app.app_context():
            db.engine.dispose()
        for key in self.env:
            os.environ.pop(key, None)


def latency(suite: str, workers: int, timeout: float) -> float:
    folder = Path(tempfile.mkdtemp(prefix="bench-autograder-"))
    service = Service(folder, suite, students=1)
    try:
        service.start_workers(workers)
        start = time.monotonic()
        submission = service.upload(0)
        return service.wait([submission], timeout)[submission] - start
    finally:
        service.close()
        shutil.rmtree(folder, ignore_errors=True)


def burst(count: int, workers: int, timeout: float) -> float:
    folder = Path(tempfile.mkdtemp(prefix="bench-autograder-"))
    service = Service(folder, str(TINY), students=count)
    try:
        service.start_workers(workers)
        start = time.monotonic()
        ids = [service.upload(n) for n in range(count)]
        finished = service.wait(ids, timeout)
        return max(finished.values()) - start
    finally:
        service.close()
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.autograder")
    parser.add_argument("--suite", default="quick", help="suite of the latency figure")
    parser.add_argument("--burst", type=int, default=20, help="uploads in the burst")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per wait")
    args, _ = parser.parse_known_args(argv)
    from grader.harness import SandboxConfig, grade_engine, grade_engines, load_suite

    try:
        SandboxConfig().check()
    except Exception as exc:
        print(f"bench.autograder: skipped ({exc})")
        return
    print(f"machine: {os.cpu_count()} cores; sandbox on; SQLite database and queue", flush=True)

    def direct_run() -> float:
        start = time.monotonic()
        report = grade_engine(ENGINE, load_suite(args.suite))
        assert report.complete and report.score == report.max_score, report.error
        return time.monotonic() - start

    before = direct_run()
    latencies = {workers: latency(args.suite, workers, args.timeout) for workers in (1, 2)}
    after = direct_run()  # the peer before and after: the machine is shared, its load drifts
    direct = (before + after) / 2
    print(
        f"peer: suite {args.suite} through grader.harness.grade_engine directly: {before:.1f} s "
        f"before, {after:.1f} s after, mean {direct:.1f} s",
        flush=True,
    )
    for workers, took in latencies.items():
        print(
            f"upload to result, suite {args.suite}, {workers} worker(s): {took:.1f} s "
            f"(ratio to the direct run {took / direct:.2f})",
            flush=True,
        )
    tiny = load_suite(TINY)
    copies = [ENGINE] * args.burst
    for workers in (1, 2):
        start = time.monotonic()
        grade_engines(copies, tiny, slots=workers)
        peer = time.monotonic() - start
        took = burst(args.burst, workers, args.timeout)
        print(
            f"burst of {args.burst} uploads, tiny suite, {workers} worker(s): all graded in "
            f"{took:.1f} s, {args.burst / took * 60:.0f} per minute; peer grade_engines with "
            f"{workers} slot(s): {peer:.1f} s, {args.burst / peer * 60:.0f} per minute "
            f"(ratio {took / peer:.2f})",
            flush=True,
        )


if __name__ == "__main__":
    main()
