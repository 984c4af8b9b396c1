"""Load benchmark of the course service: graded submissions per second under gunicorn.

`python -m bench.load [--seconds 30] [--clients 100] [--workers 2] [--quick]`

Starts gunicorn with a fresh SQLite file on a free 127.0.0.1 port, gives every client its own
student, API token and practice exercise, then runs two phases with the same clients:
- the ceiling: `GET /api/ping`, a no-op view (no database, no grading);
- the load: `POST /api/exercises/{id}/attempts`, each graded and committed before its response.
It reports throughput, p50/p99 latency and errors for both, the ratio of the two throughputs, and
checks that every acknowledged attempt is in the database. `--compare-deferred` repeats a short
load with deferred write transactions to count the "database is locked" errors they cause.
`--profile DIR` also samples the workers with py-spy during the load and says where their CPU
went, part by part of the request (`bench.hot_path`).

Traffic goes to 127.0.0.1 only, and every phase is bounded in time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import hot_path

HOST = "127.0.0.1"
# The practice trees are those of the `standard` preset's first slot, which graded runs use.
EXERCISE_PARAMS = {"depth": 3, "branching": "2-3", "values": "-9..9", "min_cutoffs": 2}


# -- a small HTTP/1.1 client: keeps the connection when the server does ---------------------------


class Connection:
    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, headers: dict[str, str], body: bytes = b""
    ) -> tuple[int, bytes]:
        reused = self.writer is not None
        try:
            return await self._request(method, path, headers, body)
        except (ConnectionError, asyncio.IncompleteReadError):
            if not reused:
                raise
            # The server closed a kept-alive connection before reading this request (idle
            # timeout): as any HTTP client does, send it again on a new connection.
            self.close()
            return await self._request(method, path, headers, body)

    async def _request(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        head = [
            f"{method} {path} HTTP/1.1",
            f"Host: {HOST}:{self.port}",
            f"Content-Length: {len(body)}",
        ]
        head += [f"{k}: {v}" for k, v in headers.items()]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        assert self.reader is not None
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionResetError("connection closed before a response")
        status = int(status_line.split()[1])
        length, close = 0, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "connection" and value.strip().lower() == "close":
                close = True
        data = await self.reader.readexactly(length) if length else b""
        if close:
            self.close()
        return status, data

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


@dataclass
class Client:
    token: str
    exercise_id: int
    right: dict[str, Any]
    wrong: dict[str, Any]


@dataclass
class Phase:
    name: str
    seconds: float
    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    acknowledged: set[int] = field(default_factory=set)
    server_cpu: float = 0.0  # CPU seconds the gunicorn workers spent during the phase
    client_cpu: float = 0.0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1

    def summary(self) -> dict[str, Any]:
        ordered = sorted(self.latencies)

        def pct(p: float) -> float:
            return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000 if ordered else 0

        count = max(1, len(ordered))
        return {
            "phase": self.name,
            "requests": len(ordered),
            "throughput": round(len(ordered) / self.seconds, 1),
            "p50_ms": round(pct(0.50), 1),
            "p99_ms": round(pct(0.99), 1),
            "errors": sum(self.errors.values()),
            "error_kinds": self.errors,
            "server_cpu_ms_per_request": round(self.server_cpu * 1000 / count, 2),
            "client_cpu_ms_per_request": round(self.client_cpu * 1000 / count, 2),
        }


async def _client_loop(
    port: int,
    client: Client,
    phase: Phase,
    kind: str,
    deadline: float,
    rng: random.Random,
    wrong_share: float,
    interval: float | None,
) -> None:
    """Closed loop (`interval` None): the next request as soon as the last one is answered.
    Paced: one request every `interval` seconds, its latency counted from when it was due, so
    a server that falls behind is charged for the wait (no coordinated omission)."""
    connection = Connection(port)
    auth = {"Authorization": f"Bearer {client.token}"}
    path = "/api/ping" if kind == "ping" else f"/api/exercises/{client.exercise_id}/attempts"
    due = time.perf_counter() + (rng.random() * interval if interval else 0.0)
    while time.perf_counter() < deadline:
        if interval:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            if due >= deadline:
                break
        body = b""
        headers = dict(auth)
        if kind == "submit":
            answer = client.wrong if rng.random() < wrong_share else client.right
            body = json.dumps({"answer": answer}).encode()
            headers["Content-Type"] = "application/json"
        start = due if interval else time.perf_counter()
        due += interval or 0.0
        try:
            status, data = await connection.request(
                "GET" if kind == "ping" else "POST", path, headers, body
            )
        except (OSError, ConnectionError, asyncio.IncompleteReadError) as error:
            connection.close()
            phase.error(type(error).__name__)
            continue
        elapsed = time.perf_counter() - start
        expected = 200 if kind == "ping" else 201
        if status != expected:
            phase.error(f"HTTP {status}: {data[:80].decode(errors='replace')}")
            continue
        phase.latencies.append(elapsed)
        if kind == "submit":
            phase.acknowledged.add(json.loads(data)["attempt_id"])
    connection.close()


async def _run_phase(
    server: Server,
    clients: list[Client],
    kind: str,
    seconds: float,
    wrong_share: float = 0.0,
    rate: float | None = None,
) -> Phase:
    phase = Phase(kind, seconds)
    server_cpu, client_cpu = server.cpu_seconds(), time.process_time()
    deadline = time.perf_counter() + seconds
    await asyncio.gather(
        *(
            _client_loop(
                server.port,
                c,
                phase,
                kind,
                deadline,
                random.Random(i),
                wrong_share,
                len(clients) / rate if rate else None,
            )
            for i, c in enumerate(clients)
        )
    )
    phase.server_cpu = server.cpu_seconds() - server_cpu
    phase.client_cpu = time.process_time() - client_cpu
    return phase


# -- the server under test ---------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _environment(folder: Path, write_begin: str) -> dict[str, str]:
    return {
        **os.environ,
        "GRADER_DATABASE_URL": f"sqlite:///{folder / 'load.sqlite3'}",
        "GRADER_INSTANCE_PATH": str(folder / "instance"),
        "GRADER_SECRET_KEY": "load-benchmark",
        "GRADER_SQLITE_WRITE_BEGIN": write_begin,
    }


def _prepare(
    folder: Path, count: int, write_begin: str, mode: str, template: Path | None = None
) -> list[Client]:
    """Migrates a fresh database (or copies `template`, a database already at the latest
    schema) and makes a student, a token and an exercise per client: the student's graded
    variant of an assignment's first slot (attempts unlimited for the run), or a practice
    exercise."""
    env = _environment(folder, write_begin)
    if template is not None:
        shutil.copy(template, folder / "load.sqlite3")
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        import sqlalchemy as sa

        from bench import migrate
        from grader import create_app
        from grader.extensions import db
        from grader.gametree import KINDS, Conventions
        from grader.models import Slot
        from grader.services import accounts
        from grader.services.courses import courses, invites, roster
        from grader.services.transactions import writing
        from grader.services.trees import exercises

        app = create_app({"GRADER_ARGON2": {"time_cost": 1, "memory_cost": 1024, "parallelism": 1}})
        clients = []
        with app.app_context():
            if template is None:
                migrate(app)
            course = courses.create_course("Load test")
            assignment = courses.create_assignment(course.id, "standard")
            with writing() as session:
                session.execute(
                    sa.update(Slot)
                    .where(Slot.assignment_id == assignment.id)
                    .values(attempts_allowed=None)
                )
            for n in range(count):
                user = accounts.create_user(f"load{n}@example.com", None)
                token = accounts.issue_token(user.id, scopes=accounts.SCOPES)
                if mode == "graded":
                    roster.add_member(None, course.id, user.email)
                    invites.accept_as(user, course.id)  # a member once the account accepts
                    exercise = exercises.slot_exercise(user, assignment.id, 0)
                else:
                    exercise = exercises.create_practice(user, "prune", params=EXERCISE_PARAMS)
                tree = exercises.tree_of(exercise)
                key = KINDS[exercise.kind].key(tree, Conventions.from_dict(exercise.conventions))
                wrong = {"pruned": key["pruned"][:-1], "value": key["value"]}
                clients.append(Client(token, exercise.id, key, wrong))
            db.engine.dispose()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return clients


class Server:
    def __init__(self, folder: Path, workers: int, worker_class: str, write_begin: str) -> None:
        self.port = _free_port()
        self.log = open(folder / f"gunicorn-{write_begin.lower()}.log", "w")  # noqa: SIM115
        command = [
            sys.executable,
            "-m",
            "gunicorn",
            "--config",
            "python:grader.gunicorn_conf",
            "-w",
            str(workers),
            "-k",
            worker_class,
            "-b",
            f"{HOST}:{self.port}",
            "--backlog",
            "2048",
            "--timeout",
            "60",
        ]
        if worker_class == "gthread":
            command += ["--threads", "4", "--keep-alive", "10"]
        self.process = subprocess.Popen(
            [*command, "grader:create_app()"],
            env=_environment(folder, write_begin),
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.process.returncode}")
            try:
                with socket.create_connection((HOST, self.port), timeout=1) as s:
                    s.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
                    if b" 200 " in s.recv(100):
                        return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError("gunicorn did not answer /healthz in time")

    def worker_pids(self) -> list[int]:
        """The workers' process ids (Linux /proc)."""
        pid = self.process.pid
        try:
            return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            return []

    def cpu_seconds(self) -> float:
        """User and system CPU time of the workers so far (Linux /proc): unlike wall time, it
        does not depend on what else the machine is running."""
        total = 0
        for child in self.worker_pids():
            try:
                fields = Path(f"/proc/{child}/stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])  # utime, stime
        return total / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def _stored_attempts(folder: Path) -> set[int]:
    with sqlite3.connect(folder / "load.sqlite3") as conn:
        return {row[0] for row in conn.execute("SELECT id FROM attempt")}


def run(
    seconds: float,
    clients: int,
    workers: int,
    worker_class: str,
    write_begin: str,
    ping_seconds: float,
    wrong_share: float,
    mode: str = "graded",
    rate: float | None = None,
    profile: Path | None = None,
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="grader-load-") as tmp:
        folder = Path(tmp)
        prepared = _prepare(folder, clients, write_begin, mode)
        server = Server(folder, workers, worker_class, write_begin)
        spies = []
        try:
            server.wait_ready()
            ceiling = asyncio.run(_run_phase(server, prepared, "ping", ping_seconds))
            if profile is not None:
                spies = hot_path.record(server.worker_pids(), seconds, profile)
            load = asyncio.run(_run_phase(server, prepared, "submit", seconds, wrong_share, rate))
            for spy in spies:
                spy.wait(timeout=60)
        finally:
            server.stop()
        stored = _stored_attempts(folder)
    missing = load.acknowledged - stored
    result = {
        "write_begin": write_begin,
        "workers": workers,
        "worker_class": worker_class,
        "clients": clients,
        "wrong_share": wrong_share,
        "exercises": mode,
        "offered_rate": rate,
        "ceiling": ceiling.summary(),
        "load": load.summary(),
        "acknowledged": len(load.acknowledged),
        "stored": len(stored),
        "missing": len(missing),
    }
    cpu = result["load"]["server_cpu_ms_per_request"]
    cores = min(workers, os.cpu_count() or 1)
    # What the workers could serve with the cores to themselves (client elsewhere, no neighbours).
    result["capacity_per_s"] = round(cores * 1000 / cpu, 1) if cpu else None
    try:
        result["load_average"] = os.getloadavg()[0]
    except OSError:
        result["load_average"] = None
    if profile is not None:
        result["split"] = hot_path.split(sorted(profile.glob("worker-*.txt")))
    ping_rate = result["ceiling"]["throughput"]
    result["ratio_to_ceiling"] = (
        round(result["load"]["throughput"] / ping_rate, 3) if ping_rate else None
    )
    return result


def _report(result: dict[str, Any]) -> None:
    load, ceiling = result["load"], result["ceiling"]
    print(
        f"writes BEGIN {result['write_begin']}, gunicorn -w {result['workers']} "
        f"-k {result['worker_class']}, {result['clients']} concurrent clients, "
        f"{result['wrong_share']:.0%} of answers wrong, {result['exercises']} exercises, "
        + (
            f"submissions paced at {result['offered_rate']} /s in all"
            if result["offered_rate"]
            else "closed loop"
        )
    )
    print(
        f"{'phase':<10}{'requests':>10}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'errors':>8}"
        f"{'server CPU ms/req':>19}{'client CPU ms/req':>19}"
    )
    for row in (ceiling, load):
        print(
            f"{row['phase']:<10}{row['requests']:>10}{row['throughput']:>10}"
            f"{row['p50_ms']:>10}{row['p99_ms']:>10}{row['errors']:>8}"
            f"{row['server_cpu_ms_per_request']:>19}{row['client_cpu_ms_per_request']:>19}"
        )
    print(
        f"graded submissions: {load['throughput']} /s = {result['ratio_to_ceiling']} x the "
        f"no-op ceiling ({ceiling['throughput']} /s)"
    )
    print(
        f"attempts acknowledged {result['acknowledged']}, in the database {result['stored']}, "
        f"missing {result['missing']}"
    )
    print(
        f"server CPU per graded submission {load['server_cpu_ms_per_request']} ms: about "
        f"{result['capacity_per_s']} /s with {min(result['workers'], os.cpu_count() or 1)} "
        f"cores to the workers alone (load average during the run: {result['load_average']})"
    )
    for phase in (ceiling, load):
        for what, count in sorted(phase["error_kinds"].items(), key=lambda kv: -kv[1])[:3]:
            print(f"  {phase['phase']} error x{count}: {what}")
    if "split" in result:
        print("where a graded submission's server CPU went (py-spy on the workers):")
        for part, share in result["split"]:
            ms = share * load["server_cpu_ms_per_request"]
            print(f"  {share:6.1%} {ms:6.2f} ms  {part}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the load phase")
    parser.add_argument(
        "--ping-seconds",
        type=float,
        help="length of the ceiling phase (default: a third of --seconds)",
    )
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--worker-class",
        default="sync",
        choices=["sync", "gthread"],
        help="sync: what `make run` and the Dockerfile serve with",
    )
    parser.add_argument(
        "--wrong-share",
        type=float,
        default=0.5,
        help="share of wrong answers (they get the misconception analysis)",
    )
    parser.add_argument(
        "--exercises",
        choices=["graded", "practice"],
        default="graded",
        help="assignment variants (limits checked under the write lock) or practice exercises",
    )
    parser.add_argument(
        "--rate",
        type=float,
        help="pace the submissions at this many per "
        "second in all (default: closed loop, each client as fast as answered)",
    )
    parser.add_argument(
        "--compare-deferred",
        action="store_true",
        help="also run with deferred write transactions and count lock errors",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        metavar="DIR",
        help="sample the workers with py-spy during the load (stacks kept in DIR) and split "
        "their CPU by part of the request",
    )
    parser.add_argument("--quick", action="store_true", help="a few seconds, 10 clients")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args, _ = parser.parse_known_args(argv)
    if args.quick:
        args.seconds, args.clients = min(args.seconds, 3.0), min(args.clients, 10)
    ping_seconds = args.ping_seconds or max(1.0, args.seconds / 3)
    results = [
        run(
            args.seconds,
            args.clients,
            args.workers,
            args.worker_class,
            "IMMEDIATE",
            ping_seconds,
            args.wrong_share,
            args.exercises,
            args.rate,
            args.profile,
        )
    ]
    _report(results[0])
    if args.compare_deferred:
        print()
        results.append(
            run(
                min(args.seconds, 10.0),
                args.clients,
                args.workers,
                args.worker_class,
                "DEFERRED",
                ping_seconds,
                args.wrong_share,
                args.exercises,
                args.rate,
            )
        )
        _report(results[-1])
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))
    return 1 if results[0]["missing"] or results[0]["load"]["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
