"""CPU per request of the attempt path, in one process (the Flask test client, no server).

`python -m bench.attempt_cpu [--requests 500] [--rounds 3] [--clients 100]
[--profile N [--warm-up 500] [--profile-out FILE]]`

Prepares what `bench.load` prepares (``--clients`` students, each with a graded variant),
then measures the process's CPU time per request, the minimum of `--rounds` rounds: the no-op
`GET /api/ping` (the peer), a graded submission (half the answers wrong), and a costly attempt
refused while another worker holds the only costly-work permit (503), on the largest typed tree
and on a best-order tree near the optimum's cap. CPU time, unlike wall time, barely depends on
what else the machine runs, so a before/after comparison holds on a shared machine.
`--profile N` instead runs N graded submissions under cProfile (after ``--warm-up`` of them:
imports, connections, every tree's cached analysis) and prints where their time went
(`--profile-out FILE` also writes the stats there, for `pstats`).
"""

from __future__ import annotations

import argparse
import cProfile
import fcntl
import os
import pstats
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.hostile import BEST_ORDER_TREE, _chains
from bench.load import _environment, _prepare


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.attempt_cpu", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--profile", type=int, default=0, metavar="N", help="profile N graded submissions"
    )
    parser.add_argument("--profile-out", metavar="FILE", help="also write the profile there")
    parser.add_argument(
        "--warm-up", type=int, default=500, help="graded submissions sent before the profile"
    )
    parser.add_argument("--clients", type=int, default=100, help="students, each a variant")
    args, _ = parser.parse_known_args(argv)  # `python -m bench` passes every bench its options
    with tempfile.TemporaryDirectory(prefix="grader-attempt-cpu-") as tmp:
        folder = Path(tmp)
        clients = _prepare(folder, args.clients, "IMMEDIATE", "graded")
        os.environ.update(_environment(folder, "IMMEDIATE"))
        from grader import create_app

        app = create_app()
        http = app.test_client()
        owner = {"Authorization": f"Bearer {clients[0].token}"}
        largest = http.post(
            "/api/exercises", headers=owner, json={"kind": "values", "tree": _chains(127, 15)}
        ).get_json()["urls"]["attempts"]
        best_order = http.post(
            "/api/exercises", headers=owner, json={"kind": "best-order", "tree": BEST_ORDER_TREE}
        ).get_json()["urls"]["attempts"]
        rng = random.Random(1)

        def ping() -> None:
            assert http.get("/api/ping").status_code == 200

        def submit() -> None:
            client = clients[rng.randrange(len(clients))]
            answer = client.wrong if rng.random() < 0.5 else client.right
            assert (
                http.post(
                    f"/api/exercises/{client.exercise_id}/attempts",
                    json={"answer": answer},
                    headers={"Authorization": f"Bearer {client.token}"},
                ).status_code
                == 201
            )

        def refused(url: str, answer: dict[str, object]) -> Callable[[], None]:
            def send() -> None:
                assert http.post(url, headers=owner, json={"answer": answer}).status_code == 503

            return send

        if args.profile:
            for _ in range(args.warm_up):
                submit()
            profiler = cProfile.Profile()
            profiler.runcall(lambda: [submit() for _ in range(args.profile)])
            if args.profile_out:
                profiler.dump_stats(args.profile_out)
            stats = pstats.Stats(profiler).strip_dirs().sort_stats("cumulative")
            stats.print_stats(60)
            stats.sort_stats("tottime").print_stats(40)
            return 0
        cases: dict[str, tuple[Callable[[], None], int]] = {
            "no-op": (ping, args.requests),
            "graded submission": (submit, args.requests),
            "refused costly attempt, largest tree": (
                refused(largest, {"values": {"": 1}}),
                max(1, args.requests // 10),
            ),
            "refused costly attempt, best-order": (
                refused(best_order, {"order": {"": [5, 4, 3, 2, 1, 0]}}),
                max(1, args.requests // 10),
            ),
        }
        lock = os.open(Path(app.instance_path) / "costly-0.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker holds the only costly-work permit
        best: dict[str, float] = {}
        try:
            for _ in range(args.rounds):
                for name, (send, count) in cases.items():
                    start = time.process_time()
                    for _ in range(count):
                        send()
                    per = (time.process_time() - start) / count * 1000
                    best[name] = min(best.get(name, per), per)
        finally:
            os.close(lock)
    for name, ms in best.items():
        print(f"{name:<40}{ms:8.2f} ms CPU   {ms / best['no-op']:6.1f}x the no-op")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
