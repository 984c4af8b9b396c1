"""`python -m bench.deadline`: an assignment's deadline hour on one machine, upload to result.

The scenario (issue 40's; each number is a parameter, the issue's are the defaults):

- ``--uploads`` engine uploads (300), one per student, arrive over an hour on a curve with most
  in its last quarter: 30% spread evenly over the first 45 minutes, 70% in the last 15, their
  rate rising to the deadline (a student's upload at fraction ``t`` of the hour: the inverse of
  F(t) = 0.3 t / 0.75 before 45 minutes, 0.3 + 0.7 ((t - 0.75) / 0.25)^2 after).
- The hour is compressed into ``--hour`` seconds (900 by default: 4 times faster than real
  time), so the same uploads come 4 times as close together as they would at a real deadline:
  a harder load than the real hour's. The output states the compression.
- One `grader worker --workers 2` (the project's real worker processes, queue and SQLite
  database, in a temporary folder) serves them; at the start of the last 15 minutes a teacher
  asks for a print of ``--sheets`` anonymous exam sheets (300) and an integrity check of an
  earlier assignment's ``--integrity`` engines (300): the bulk class of work.
- Each upload is the correct sample engine, graded with ``--suite`` (quick), stored by the
  upload service (`grader.services.engines.submissions.upload`, what the upload view and the
  API call), so each wakes the queue as an upload through the web does.

Two runs in one go, each in its own process, folder and database: this code, and the code
before issue 40 (``--baseline``, 9581471: one queue for every class of work, a process per
test, no reference cache, every game played), taken from git into a temporary folder as
`bench.suite_cpu` does. For each it prints upload-to-result p50, p95 and maximum (seconds of the
compressed run), and whether any upload waited behind bulk work: while it was queued, a bulk
job was running and fewer than 2 uploads were being graded (a worker that could have taken it
was busy with bulk work). Statuses are polled every 0.1 s, so each figure is within 0.1 s.
Beside them, upload to first verdict (p50, p95), and each upload's grading alone: from the
poll that first saw it graded to its result (a worker's time on it without the queue; for code
that grades an upload in two runs, with the wait between them). Each code's row is printed as soon as its run ends.
When the hour is compressed, each run's grading times are then replayed at the uncompressed
hour's arrivals (`replayed`: 2 workers, first come first served, bulk work left out): arithmetic
on the run's measurements, said so in the output, and only for code that grades in one run. ``--save FILE`` writes every figure as JSON.

300 uploads of the quick suite take this 2-core machine hours for both codes together; the
run in docs/benchmarks-history.md says the counts it used. Every wait is bounded.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.autograder import (
    ENGINE,
    PASSWORD,
    TEACHER,
    TINY,
    course_service,
    start_worker,
    stop_worker,
)
from bench.suite_cpu import BASELINE, baseline_tree

ROOT = Path(__file__).resolve().parents[1]
WORKERS = 2
RUSH = 0.75  # the last quarter of the hour starts here
BEFORE_RUSH = 0.3  # the share of uploads before it


def arrivals(count: int, hour: float) -> list[float]:
    """Each upload's second in the compressed hour (`count` of them, in order)."""
    out = []
    for n in range(count):
        share = (n + 0.5) / count
        if share <= BEFORE_RUSH:
            t = share / BEFORE_RUSH * RUSH
        else:
            t = RUSH + (1 - RUSH) * math.sqrt((share - BEFORE_RUSH) / (1 - BEFORE_RUSH))
        out.append(t * hour)
    return out


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def estimate_error(estimates: list[float | None], actual: list[float]) -> tuple[float, int]:
    """The 90th percentile of |estimate - actual| / actual over the uploads that had an
    estimate, and how many had one (the error is nan when none had)."""
    errors = [
        abs(guess - took) / took
        for guess, took in zip(estimates, actual, strict=True)
        if guess is not None and took > 0
    ]
    return (percentile(errors, 0.9) if errors else math.nan), len(errors)


def replayed(grading: list[float], hour: float = 3600.0, workers: int = WORKERS) -> list[float]:
    """Each upload's seconds to its result if the measured grading times (in upload order) met
    the arrivals of an hour of `hour` seconds, `workers` workers taking uploads first come first
    served: arithmetic on a run's measurements, not a run. Bulk work is left out."""
    free = [0.0] * workers
    took = []
    for arrival, seconds in zip(arrivals(len(grading), hour), grading, strict=True):
        soonest = min(range(workers), key=free.__getitem__)
        free[soonest] = max(arrival, free[soonest]) + seconds
        took.append(free[soonest] - arrival)
    return took


class Deadline:
    """A migrated database: a course with the assignment the uploads go to, one student each,
    and an earlier assignment whose engines the integrity check compares (stored done, so no
    worker grades them)."""

    def __init__(
        self,
        folder: Path,
        suite: str,
        uploads: int,
        works: list[str],
        machines: dict | None = None,
        warm: int = 0,
    ) -> None:
        self.folder = folder
        # `machines` (`--network`, from `bench.machines`): the host's database and queue URLs,
        # and each machine's worker command prefix, folder and settings
        self.machines = machines
        self.app, self.env, course_id = course_service(
            folder,
            suite,
            GRADER_CACHE_DIR=str(folder / "cache"),
            **(machines["host"] if machines else {}),
        )
        import sqlalchemy as sa

        from grader.extensions import db
        from grader.models import Submission
        from grader.services import accounts
        from grader.services.courses import courses, invites, roster
        from grader.services.engines import submissions

        with self.app.app_context():
            earlier = courses.create_assignment(course_id, "standard")
            self.earlier = (earlier.id, submissions.add_engine_slot(earlier.id).index)
            assignment = courses.create_assignment(course_id, "standard")
            self.assignment_id = assignment.id
            self.index = submissions.add_engine_slot(assignment.id).index
            db.session.expire_all()  # the assignments as loaded before their engine slots
            self.students = []
            for n in range(max(uploads + warm, len(works))):
                user = accounts.create_user(f"s{n}@bench.example.com", PASSWORD)
                roster.add_member(None, course_id, user.email)
                if hasattr(invites, "accept_as"):  # a member once the account accepts
                    invites.accept_as(user, course_id)  # (9581471 enrols a student at once)
                self.students.append(user.id)
                if n < len(works):
                    submissions.upload(user, *self.earlier, works[n].encode(), "engine.py")
            db.session.execute(sa.update(Submission).values(status="done"))
            db.session.commit()
            db.session.remove()
        self.engine = ENGINE.read_bytes()
        self.workers: list[subprocess.Popen] = []

    def upload(self, student: int) -> tuple[int, float | None]:
        """The upload's id and the wait its page and the API estimate for it at once (None:
        no estimate: nothing graded yet, a worker took it already, or a code without one)."""
        from grader.extensions import db
        from grader.models import User
        from grader.services.engines import submissions

        with self.app.app_context():
            user = db.session.get_one(User, self.students[student])
            upload = submissions.upload(
                user, self.assignment_id, self.index, self.engine, "engine.py"
            )
            sid = upload.id
            try:
                from grader.services.engines import waiting
            except ImportError:  # the peer's code has no estimate
                estimate = None
            else:
                estimate = waiting.estimated_wait(upload)
            db.session.remove()
        return sid, estimate

    def ask_bulk(self, sheets: int, integrity: bool) -> list[tuple[str, int]]:
        """A print of `sheets` anonymous sheets and the earlier assignment's integrity check,
        queued: each as (table, id)."""
        from grader.extensions import db
        from grader.services import accounts
        from grader.services.integrity import engines as similarity

        try:
            from grader.services.paper import printing
        except ImportError:  # the peer's revision, from before printing left paper/exams.py
            from grader.services.paper import exams as printing

        asked = []
        with self.app.app_context():
            teacher = accounts.user_by_email(TEACHER)
            if sheets:
                asked.append(
                    (
                        "exam_print",
                        printing.request_print(teacher, self.earlier[0], anonymous=sheets).id,
                    )
                )
            if integrity:
                asked.append(
                    ("integrity_check", similarity.request_check(teacher, *self.earlier).id)
                )
            db.session.remove()
        return asked

    def snapshot(
        self, uploads: list[int], bulk: list[tuple[str, int]]
    ) -> tuple[dict[int, str], list[str], list[str], set[int], set[int]]:
        """Each upload's status, the workers grading uploads and those running bulk jobs (each
        by its lease, one worker process's name), the uploads whose first verdict is out (a
        code without first verdicts: none) and those whose timing is deferred now."""
        import sqlalchemy as sa

        from grader.extensions import db
        from grader.models import ExamPrint, IntegrityCheck, Submission

        tables = {"exam_print": ExamPrint, "integrity_check": IntegrityCheck}
        progress = getattr(Submission, "progress", sa.null())
        with self.app.app_context():
            rows = db.session.execute(
                sa.select(Submission.id, Submission.status, Submission.lease_owner, progress).where(
                    Submission.id.in_(uploads)
                )
            ).all()
            busy = [owner for _, status, owner, _ in rows if status == "running" and owner]
            verdicts = {sid for sid, _, _, shown in rows if shown and "first_verdict" in shown}
            deferred = {sid for sid, _, _, shown in rows if shown and "deferred" in shown}
            bulk_owners = []
            for table, job in bulk:
                found = db.session.get_one(tables[table], job)
                if found.status == "running" and found.lease_owner:
                    bulk_owners.append(found.lease_owner)
            db.session.remove()
        statuses = {sid: status for sid, status, _, _ in rows}
        return statuses, busy, bulk_owners, verdicts, deferred

    def start_worker(self, slots: int = WORKERS) -> None:
        if not self.machines:
            self.workers.append(start_worker(self.folder, self.env, slots))
            return
        for machine in self.machines["machines"]:
            self.workers.append(
                start_worker(
                    Path(machine["folder"]),
                    {**self.env, **machine["env"]},
                    slots,
                    prefix=machine["prefix"],
                )
            )

    def close(self) -> None:
        for worker in self.workers:
            stop_worker(worker)
        from grader.extensions import db

        with contextlib.suppress(ImportError):
            from grader.jobs import close_queues

            close_queues(self.app)
        with self.app.app_context():
            db.engine.dispose()


def hour(args: argparse.Namespace, folder: Path) -> dict:
    """The compressed hour on the code importable here: each upload's seconds to its result,
    the uploads that waited behind bulk work and for how long, the bulk jobs' outcome."""
    network = json.loads(args.network) if args.network else None
    machines = len(network["machines"]) if network else 1
    warm = args.warm * machines * args.slots
    scene = Deadline(folder, args.suite, args.uploads, earlier_engines(args), network, warm)
    try:
        scene.start_worker(args.slots)
        if warm:  # each slot's first grading, before the hour: its machine's cache filled
            first = [scene.upload(args.uploads + n)[0] for n in range(warm)]
            limit = time.monotonic() + args.timeout
            while any(s not in ("done", "failed") for s in scene.snapshot(first, [])[0].values()):
                if time.monotonic() > limit:
                    raise TimeoutError("the warming uploads were not graded in time")
                time.sleep(0.5)
        load = os.getloadavg()[0]
        times = arrivals(args.uploads, args.hour)
        start = time.monotonic()
        sent: dict[int, float] = {}
        estimates: dict[int, float | None] = {}
        verdict: dict[int, float] = {}  # first seen with its first verdict (or its result)
        started: dict[int, float] = {}  # first seen being graded
        finished: dict[int, float] = {}
        # Each poll: its time, the uploads queued, how many were being graded, the workers
        # running bulk jobs; and every worker seen grading an upload.
        polls: list[tuple[float, list[int], int, list[str]]] = []
        graders: set[str] = set()
        deferred: set[int] = set()  # seen with their timing deferred, between two runs
        bulk: list[tuple[str, int]] = []
        asked = False
        limit = start + args.hour + args.timeout
        while len(finished) < args.uploads:
            now = time.monotonic()
            if now > limit:
                raise TimeoutError(f"{args.uploads - len(finished)} uploads not graded in time")
            if not asked and now - start >= RUSH * args.hour:
                bulk = scene.ask_bulk(args.sheets, args.integrity > 0)
                asked = True
            while len(sent) < args.uploads and now - start >= times[len(sent)]:
                sid, estimate = scene.upload(len(sent))
                sent[sid] = time.monotonic()
                estimates[sid] = estimate
            statuses, busy, bulk_owners, verdicts, waiting = scene.snapshot(list(sent), bulk)
            now = time.monotonic()
            graders.update(busy)
            deferred.update(waiting)
            queued = [sid for sid, status in statuses.items() if status == "queued"]
            polls.append((now, queued, len(busy), bulk_owners))
            for sid in verdicts:
                verdict.setdefault(sid, now)
            for sid, status in statuses.items():
                if status == "running":
                    started.setdefault(sid, now)
                if status in ("done", "failed") and sid not in finished:
                    finished[sid] = now
                    started.setdefault(sid, now)  # graded between two polls
                    verdict.setdefault(sid, now)
            time.sleep(0.1)
        statuses = scene.snapshot(list(sent), bulk)[0]
        failed = sorted(s for s, st in statuses.items() if st != "done")
        took = [finished[sid] - sent[sid] for sid in sent]
        graded = [finished[sid] - started[sid] for sid in sent]
        # Behind bulk work: queued while a worker that grades uploads ran a bulk job and fewer
        # than WORKERS uploads were being graded (that worker would have taken it).
        behind: dict[int, float] = {}
        for (now, queued, grading, bulk_owners), (later, *_) in itertools.pairwise(polls):
            if grading < WORKERS and graders.intersection(bulk_owners):
                for sid in queued:
                    behind[sid] = behind.get(sid, 0.0) + (later - now)
        return {
            "took": took,
            "first": [verdict[sid] - sent[sid] for sid in sent],
            "estimates": [estimates[sid] for sid in sent],
            "arrivals": [sent[sid] - start for sid in sent],
            "load": [load, os.getloadavg()[0]],
            "slots": args.slots,
            "warm": warm,
            "machines": len(network["machines"]) if network else 0,
            "two_runs": two_runs(),
            "grading": graded,
            "behind": len(behind),
            "behind_max": max(behind.values(), default=0.0),
            "deferred": len(deferred),
            "failed": failed,
            "span": time.monotonic() - start,
        }
    finally:
        scene.close()


def earlier_engines(args: argparse.Namespace) -> list[str]:
    """The earlier assignment's `--integrity` engines: read from `--engines` (a JSON list the
    parent made once for both runs), else made here."""
    if args.engines:
        return json.loads(Path(args.engines).read_text())
    from bench.integrity import engines

    return engines(args.integrity, 15) if args.integrity else []


def two_runs() -> bool:
    """Whether the code measured grades an upload in two runs, its first verdict first (issue
    51's `queue_rest`; the baseline's code grades in one)."""
    from grader.services.engines import leases

    return hasattr(leases, "queue_rest")


def measured(
    code: Path | None, args: argparse.Namespace, folder: Path, network: dict | None = None
) -> dict:
    """`hour` in a fresh process on this code, or on the code at `code` (its package first on
    the path, its workers too), its workers on `network`'s machines if given: the child's JSON
    line."""
    path = f"{code}{os.pathsep}{ROOT}" if code is not None else str(ROOT)
    command = [
        sys.executable,
        "-m",
        "bench.deadline",
        "--child",
        *("--uploads", str(args.uploads), "--hour", str(args.hour), "--suite", args.suite),
        *("--sheets", str(args.sheets), "--integrity", str(args.integrity)),
        *("--timeout", str(args.timeout), "--slots", str(args.slots), "--warm", str(args.warm)),
        *(("--engines", str(args.engines)) if args.engines else ()),
        *(("--network", json.dumps(network)) if network else ()),
    ]
    folder.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRADER_")}
    out = subprocess.run(
        command, cwd=folder, env={**env, "PYTHONPATH": path}, capture_output=True, check=False
    )
    lines = [line for line in out.stdout.decode().splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"the run failed (exit {out.returncode}): {out.stderr.decode()[-2000:]}")
    return json.loads(lines[-1])


def child(args: argparse.Namespace) -> None:
    import grader

    folder = Path.cwd()
    result = hour(args, folder)
    print(json.dumps({**result, "code": grader.__file__}), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.deadline")
    parser.add_argument("--uploads", type=int, default=300, help="uploads in the hour")
    parser.add_argument(
        "--hour", type=float, default=900.0, help="seconds the hour is compressed into"
    )
    parser.add_argument("--suite", default="quick", help="the uploads' suite")
    parser.add_argument("--sheets", type=int, default=300, help="sheets of the exam print")
    parser.add_argument("--integrity", type=int, default=300, help="engines the check compares")
    parser.add_argument("--baseline", default=BASELINE, help="the peer's git revision")
    parser.add_argument("--timeout", type=float, default=7200.0, help="seconds after the hour")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--engines", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--network", default=None, help=argparse.SUPPRESS)
    parser.add_argument(
        "--machines",
        default=None,
        help="comma-separated counts of machines (e.g. 1,2): each run's workers each in a "
        "network namespace of its own, on PostgreSQL and Redis (root; bench.machines)",
    )
    parser.add_argument(
        "--slots", type=int, default=WORKERS, help="grading slots of each worker (--workers)"
    )
    parser.add_argument(
        "--warm",
        type=int,
        default=0,
        help="uploads each slot grades before the hour, not counted (its cache filled, its "
        "grading times measured, as on workers that have graded before)",
    )
    parser.add_argument("--save", type=Path, default=None, help="write each run's figures here")
    parser.add_argument(
        "--no-peer", action="store_true", help="this code's run only (a peer's row from another)"
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run: 3 uploads, tiny suite")
    args, _ = parser.parse_known_args(argv)
    if args.quick:
        # the fewest that exercise every path: an upload before the last quarter and two in it, a
        # bulk job of each kind (a one-sheet print, a check of one pair)
        args.uploads, args.hour, args.suite, args.sheets, args.integrity = 3, 4.0, str(TINY), 1, 2
    if args.child:
        child(args)
        return
    from grader.harness import SandboxConfig

    try:
        SandboxConfig().check()
    except Exception as exc:
        print(f"bench.deadline: skipped ({exc})")
        return
    if args.machines:
        on_machines(args, [int(n) for n in args.machines.split(",")])
        return
    print(
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; "
        f"one grader worker --workers {WORKERS}; {args.uploads} uploads of the correct engine, "
        f"suite {Path(args.suite).stem}, one per student, over an hour compressed into "
        f"{args.hour:.0f} s ({3600 / args.hour:.1f}x real time; {1 - BEFORE_RUSH:.0%} in its "
        f"last 15 minutes); at 45 minutes a print of {args.sheets} anonymous sheets and an "
        f"integrity check of {args.integrity} engines",
        flush=True,
    )
    folder = Path(tempfile.mkdtemp(prefix="bench-deadline-"))
    print(
        "| code | upload to result p50 s | p95 s | max s | upload to first verdict p50 s, p95 "
        "s | uploads that waited behind bulk work (longest wait) | failed | grading alone p50 "
        "s, p95 s | the run's span s | uploads whose timing was deferred |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|", flush=True)
    runs: dict[str, dict] = {}
    try:
        base = baseline_tree(args.baseline, folder / "baseline", data=True)
        # the same engines for both runs, made once (parsing the pool is a second of CPU)
        works = json.dumps(earlier_engines(args))
        args.engines = str(folder / "engines.json")
        Path(args.engines).write_text(works)
        # each code's row as soon as its run ends: a run of the size takes an hour
        codes = [("this code", None, "now"), (f"peer: {args.baseline}", base, "before")]
        for name, code, sub in codes[:1] if args.no_peer else codes:
            runs[name] = result = measured(code, args, folder / sub)
            if args.save:  # each run's figures kept as soon as it ends
                args.save.write_text(json.dumps(runs))
            took, grading, first = result["took"], result["grading"], result["first"]
            print(
                f"| {name} | {statistics.median(took):.1f} | {percentile(took, 0.95):.1f} | "
                f"{max(took):.1f} | {statistics.median(first):.1f}, "
                f"{percentile(first, 0.95):.1f} | {result['behind']} ({result['behind_max']:.1f} s) | "
                f"{len(result['failed'])} | {statistics.median(grading):.1f}, "
                f"{percentile(grading, 0.95):.1f} | {result['span']:.0f} | "
                f"{result.get('deferred', 0)} |",
                flush=True,
            )
            error, had = estimate_error(result["estimates"], took)
            if had:
                print(f"  {name}: the estimate's error p90 {error:.0%} ({had} uploads had one)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    if args.save:
        args.save.write_text(json.dumps(runs))
    if args.hour < 3600:
        print(
            "each run's grading times replayed at the uncompressed hour's arrivals (3600 s, "
            f"{WORKERS} workers first come first served, bulk work left out: arithmetic, not a run):"
        )
        for name, result in runs.items():
            if result.get("two_runs"):  # its grading time holds the wait between its runs
                print(f"  {name}: not replayed (it grades an upload in two runs)")
                continue
            took = replayed(result["grading"])
            print(
                f"  {name}: p50 {statistics.median(took):.1f} s, p95 "
                f"{percentile(took, 0.95):.1f} s, max {max(took):.1f} s"
            )
    for figure, words in (("took", "upload to result"), ("first", "upload to first verdict")):
        if len(runs) < 2:  # --no-peer
            break
        now, peer = runs["this code"][figure], runs[f"peer: {args.baseline}"][figure]
        print(
            f"ratios, this code to the peer, {words}: p50 "
            f"{statistics.median(now) / statistics.median(peer):.2f}, p95 "
            f"{percentile(now, 0.95) / percentile(peer, 0.95):.2f}, max {max(now) / max(peer):.2f}"
        )


def on_machines(args: argparse.Namespace, counts: list[int]) -> None:
    """The hour on 1, 2, ... machines (`bench.machines`), this code only: each run on a fresh
    server namespace and database, its isolation checked from each machine first."""
    from bench import machines as net

    reason = net.unavailable()
    if reason:
        print(f"bench.deadline --machines: skipped ({reason})")
        return
    print(
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; "
        f"{args.uploads} uploads of the correct engine, suite {Path(args.suite).stem}, one per "
        f"student, over an hour compressed into {args.hour:.0f} s ({3600 / args.hour:.1f}x real "
        f"time; {1 - BEFORE_RUSH:.0%} in its last 15 minutes); at 45 minutes a print of "
        f"{args.sheets} sheets and an integrity check of {args.integrity} engines; each machine "
        f"one grader worker --workers {args.slots} in its own network, mount and UTS namespace",
        flush=True,
    )
    # not in /tmp: each machine gets a /tmp of its own; PostgreSQL's user passes through
    root = Path(tempfile.mkdtemp(prefix="bench-machines-", dir="/var/tmp"))
    root.chmod(0o711)
    runs: dict[str, dict] = {}
    rows = []
    try:
        works = json.dumps(earlier_engines(args))
        args.engines = str(root / "engines.json")
        Path(args.engines).write_text(works)
        for count in counts:
            with net.Network(root / f"run-{count}", count) as network, net.canary() as port:
                secret = network.host_folder / "instance-secret"
                secret.write_text("the host's own")
                for n in range(1, count + 1):
                    (network.folder(n) / "machine.txt").write_text(f"machine {n}")
                reached = network.check(port, secret)
                leaks = [
                    f"machine {n}: {what}"
                    for n, found in reached.items()
                    for what, ok in found.items()
                    if ok != (what in net.REACHABLE)
                ]
                if leaks:
                    raise RuntimeError(f"a machine is not isolated: {leaks}")
                print(
                    f"{count} machine(s): each reaches PostgreSQL, Redis and its own folder, and "
                    f"nothing else probed ({len(next(iter(reached.values())))} probes each: "
                    "the host's addresses, the other machines, the host's folder and theirs)",
                    flush=True,
                )
                plan = {
                    "host": dict(
                        zip(
                            ("GRADER_DATABASE_URL", "GRADER_QUEUE_URL"),
                            network.urls(None),
                            strict=True,
                        )
                    ),
                    "machines": [
                        {
                            "prefix": network.command(n, []),
                            "folder": str(network.folder(n)),
                            "env": {
                                "GRADER_INSTANCE_PATH": str(network.folder(n) / "instance"),
                                "GRADER_CACHE_DIR": str(network.folder(n) / "cache"),
                                **dict(
                                    zip(
                                        ("GRADER_DATABASE_URL", "GRADER_QUEUE_URL"),
                                        network.urls(n),
                                        strict=True,
                                    )
                                ),
                            },
                        }
                        for n in range(1, count + 1)
                    ],
                }
                runs[str(count)] = result = measured(
                    None, args, network.host_folder / "bench", plan
                )
                rows.append(machine_row(count, args.slots, result))
                print(rows[-1], flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(MACHINE_HEADER)
    print("\n".join(rows))
    if args.save:
        args.save.write_text(json.dumps(runs))


MACHINE_HEADER = (
    "| machines x slots | first verdict p50, p95, max s | whole result p50, p95, max s | "
    "estimate's error p90 (uploads with one) | grading alone p50, p95 s | failed | "
    "load average start, end |\n|---|---|---|---|---|---|---|"
)


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.1f}, {percentile(values, 0.95):.1f}, {max(values):.1f}"


def machine_row(count: int, slots: int, result: dict) -> str:
    error, had = estimate_error(result["estimates"], result["took"])
    grading = result["grading"]
    return (
        f"| {count} x {slots} | {spread(result['first'])} | {spread(result['took'])} | "
        f"{error:.0%} ({had} of {len(result['took'])}) | {statistics.median(grading):.1f}, "
        f"{percentile(grading, 0.95):.1f} | {len(result['failed'])} | "
        f"{result['load'][0]:.1f}, {result['load'][1]:.1f} |"
    )


if __name__ == "__main__":
    main()
