"""Hostile load: do the slowest requests the service accepts slow everyone else down?

`python -m bench.hostile [--seconds 10] [--hostile 4] [--workers 2]`

Starts gunicorn (as `bench.load` does: a fresh SQLite file, 127.0.0.1 only) and runs the same
normal traffic twice in one run, paced (open loop: a late answer is charged from when the
request was due): `GET /api/ping` (the no-op) and graded practice submissions. First alone
("quiet"), then beside `--hostile` clients that send, as fast as they are answered, the
costliest requests the service accepts: an attempt on a best-order tree near the ordering
optimum's size cap (the dynamic program runs twice), generator constraints no tree meets (they
run to the time budget, then 400), and an attempt on the largest typed tree (2,033 nodes, its
solution and trace in the response). It reports p99 of the no-op and of the submissions in both
phases and their ratio; the figure to look at is that ratio (the goal: at most 2). Refused
hostile requests (429: the account's costly-work limit, 503: every costly-work permit taken) are
counted apart from the accepted ones, whose share and mean time are printed; by default a
refused client sends again at once (a flood), `--pause 1` waits a second after a refusal (the
503's Retry-After; a 429's is longer), so the load is the costly requests as fast as the service
accepts them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.load import Client, Connection, Phase, Server, _client_loop, _prepare

# The costly requests: each accepted by the service's bounds, each near one of them.
BEST_ORDER_TREE = [
    [[(i * 37 + j * 11 + k * 5) % 199 - 99 for k in range(6)] for j in range(6)] for i in range(6)
]
IMPOSSIBLE = {
    "depth": 4,
    "branching": "8-8",
    "players": "max",
    "min_cutoffs": 1,
    "max_tries": 10000,
}  # one maximizer never cuts: runs to the time budget


REFUSED = {0, 429, 503}  # refused before the work: rate limit, every costly slot taken


def _chains(count: int, length: int) -> list[Any]:
    def chain(n: int, leaf: int) -> Any:
        return leaf if n == 0 else [chain(n - 1, leaf)]

    return [chain(length, i) for i in range(count)]


class Hostile:
    """One hostile client's token and its costly exercises."""

    def __init__(self, client: Client, port: int) -> None:
        self.token = client.token
        self.port = port
        self.best_order = self.largest = 0

    async def setup(self) -> None:
        connection = Connection(self.port)
        try:
            for kind, tree, attr in (
                ("best-order", BEST_ORDER_TREE, "best_order"),
                ("values", _chains(127, 15), "largest"),
            ):
                status, data = await connection.request(
                    "POST",
                    "/api/exercises",
                    self._headers(),
                    json.dumps({"kind": kind, "tree": tree}).encode(),
                )
                if status != 201:
                    raise RuntimeError(f"the costly {kind} exercise was refused: {data[:200]!r}")
                setattr(self, attr, json.loads(data)["id"])
        finally:
            connection.close()

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}

    def requests(self) -> list[tuple[str, str, bytes]]:
        order = {"order": {"": [5, 4, 3, 2, 1, 0]}}  # a poor ordering: the full analysis
        values = {"values": {"": 1}}
        return [
            (
                "best-order attempt",
                f"/api/exercises/{self.best_order}/attempts",
                json.dumps({"answer": order}).encode(),
            ),
            (
                "impossible generator",
                "/api/exercises",
                json.dumps({"kind": "prune", "params": IMPOSSIBLE}).encode(),
            ),
            (
                "largest tree attempt",
                f"/api/exercises/{self.largest}/attempts",
                json.dumps({"answer": values}).encode(),
            ),
        ]

    async def loop(
        self, deadline: float, seen: dict[str, dict[str, Any]], pause: float = 0.0
    ) -> None:
        connection = Connection(self.port)
        requests = self.requests()
        n = 0
        while time.perf_counter() < deadline:
            name, path, body = requests[n % len(requests)]
            n += 1
            start = time.perf_counter()
            try:
                status, data = await connection.request("POST", path, self._headers(), body)
            except (OSError, ConnectionError, asyncio.IncompleteReadError):
                connection.close()
                status, data = 0, b""
            row = seen.setdefault(
                name,
                {
                    "count": 0,
                    "statuses": {},
                    "seconds": 0.0,
                    "bytes": 0,
                    "accepted": 0,
                    "accepted_seconds": 0.0,
                },
            )
            took = time.perf_counter() - start
            row["count"] += 1
            row["statuses"][status] = row["statuses"].get(status, 0) + 1
            row["seconds"] += took
            if status not in REFUSED:  # the service did the work (the generator's 400 too)
                row["accepted"] += 1
                row["accepted_seconds"] += took
                row["bytes"] = max(row["bytes"], len(data))
            elif pause:
                await asyncio.sleep(min(pause, max(0.0, deadline - time.perf_counter())))
        connection.close()


async def _phase(
    server: Server,
    normal: list[Client],
    hostile: list[Hostile],
    seconds: float,
    rate: float,
    pause: float = 0.0,
) -> tuple[Phase, Phase, dict[str, dict[str, Any]]]:
    """The normal traffic (half the clients ping, half submit, `rate` requests a second in
    all, paced), with the hostile clients in closed loops beside it."""
    ping, submit = Phase("ping", seconds), Phase("submit", seconds)
    deadline = time.perf_counter() + seconds
    half = max(1, len(normal) // 2)
    interval = len(normal) / rate
    seen: dict[str, dict[str, Any]] = {}
    await asyncio.gather(
        *(
            _client_loop(server.port, c, ping, "ping", deadline, random.Random(i), 0.0, interval)
            for i, c in enumerate(normal[:half])
        ),
        *(
            _client_loop(
                server.port, c, submit, "submit", deadline, random.Random(100 + i), 0.5, interval
            )
            for i, c in enumerate(normal[half:])
        ),
        *(h.loop(deadline, seen, pause) for h in hostile),
    )
    return ping, submit, seen


def run(
    seconds: float,
    clients: int,
    hostile_count: int,
    workers: int,
    rate: float,
    worker_class: str = "sync",
    pause: float = 0.0,
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="grader-hostile-") as tmp:
        folder = Path(tmp)
        prepared = _prepare(folder, clients + hostile_count, "IMMEDIATE", "practice")
        normal, attackers = prepared[:clients], prepared[clients:]
        server = Server(folder, workers, worker_class, "IMMEDIATE")
        try:
            server.wait_ready()
            hostile = [Hostile(c, server.port) for c in attackers]
            for h in hostile:
                asyncio.run(h.setup())
            quiet_ping, quiet_submit, _ = asyncio.run(_phase(server, normal, [], seconds, rate))
            cpu0 = server.cpu_seconds()
            loud_ping, loud_submit, seen = asyncio.run(
                _phase(server, normal, hostile, seconds, rate, pause)
            )
            hostile_cpu = server.cpu_seconds() - cpu0
        finally:
            server.stop()
    result: dict[str, Any] = {
        "workers": workers,
        "worker_class": worker_class,
        "clients": clients,
        "rate_per_s": rate,
        "hostile_clients": hostile_count,
        "seconds": seconds,
        "pause_after_refusal_s": pause,
        "quiet": {"ping": quiet_ping.summary(), "submit": quiet_submit.summary()},
        "hostile": {"ping": loud_ping.summary(), "submit": loud_submit.summary()},
        "hostile_requests": {
            name: {
                **row,
                "mean_ms": round(row["seconds"] * 1000 / max(1, row["count"]), 1),
                "accepted_mean_ms": round(
                    row["accepted_seconds"] * 1000 / max(1, row["accepted"]), 1
                ),
            }
            for name, row in seen.items()
        },
        "server_cpu_s_hostile_phase": round(hostile_cpu, 2),
    }
    for kind in ("ping", "submit"):
        quiet, loud = result["quiet"][kind]["p99_ms"], result["hostile"][kind]["p99_ms"]
        result[f"{kind}_p99_ratio"] = round(loud / quiet, 2) if quiet else None
    return result


def _report(result: dict[str, Any]) -> None:
    print(
        f"gunicorn -w {result['workers']} -k {result['worker_class']}, {result['clients']} "
        f"normal clients paced at {result['rate_per_s']} req/s in all (half ping, half "
        f"submit), {result['hostile_clients']} hostile clients in closed loops, "
        f"{result['seconds']} s a phase, "
        + (
            f"a hostile client waits {result['pause_after_refusal_s']} s after a refusal"
            if result["pause_after_refusal_s"]
            else "refusals sent again at once"
        )
    )
    print(
        f"{'':<22}{'quiet p50':>10}{'quiet p99':>10}{'hostile p50':>12}{'hostile p99':>12}"
        f"{'p99 ratio':>10}{'errors':>8}"
    )
    for kind, label in (("ping", "no-op (ms)"), ("submit", "submission (ms)")):
        q, h = result["quiet"][kind], result["hostile"][kind]
        print(
            f"{label:<22}{q['p50_ms']:>10}{q['p99_ms']:>10}{h['p50_ms']:>12}{h['p99_ms']:>12}"
            f"{result[f'{kind}_p99_ratio']!s:>10}{q['errors'] + h['errors']:>8}"
        )
    for name, row in result["hostile_requests"].items():
        print(
            f"  hostile {name}: {row['count']} sent, statuses {row['statuses']}, mean "
            f"{row['mean_ms']} ms; accepted {row['accepted']} "
            f"({100 * row['accepted'] / max(1, row['count']):.0f}%), mean "
            f"{row['accepted_mean_ms']} ms, largest response {row['bytes']:,} bytes"
        )
    print(f"server CPU in the hostile phase: {result['server_cpu_s_hostile_phase']} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.hostile", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    parser.add_argument("--clients", type=int, default=8, help="normal clients")
    parser.add_argument(
        "--rate", type=float, default=20.0, help="normal requests per second, in all"
    )
    parser.add_argument("--hostile", type=int, default=4, help="hostile clients")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker-class", default="sync", choices=["sync", "gthread"])
    parser.add_argument(
        "--pause",
        type=float,
        default=0.0,
        help="seconds a hostile client waits after a 429 or 503 (0: none; 1 is "
        "the 503's Retry-After, shorter than a 429's)",
    )
    parser.add_argument("--quick", action="store_true", help="2 s phases")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args, _ = parser.parse_known_args(argv)
    if args.quick:
        args.seconds = min(args.seconds, 2.0)
    result = run(
        args.seconds,
        args.clients,
        args.hostile,
        args.workers,
        args.rate,
        args.worker_class,
        args.pause,
    )
    _report(result)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2))
    errors = sum(result[p][k]["errors"] for p in ("quiet", "hostile") for k in ("ping", "submit"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
