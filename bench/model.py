"""`python -m bench.model`: a queueing model of the deadline, fitted to a measured run: how many
machines a course needs.

The model is a discrete-event simulation of ``c`` grading slots (``c`` = machines x slots a
machine), fed by the real hour's arrival shape (`bench.deadline`'s `arrivals`: 30% of the
uploads over its first 45 minutes, 70% in the last 15, their rate rising to the deadline) and by
service times drawn from a measured run's (`bench.deadline --save`): each upload draws one
measured upload's (grading time, time to its first verdict) pair. The slots serve as the worker
does: each upload in two runs, every waiting first run before any rest (`simulate_two_runs`);
``--one-run`` serves whole gradings first come first served instead (`simulate`, the worker
before issue 51's split). Erlang C answers a stationary queue; a deadline is a rush whose rate
rises to the end, so the model simulates it instead (and `tests/bench/test_model.py` checks the
simulation against Erlang C, and the two-run one against Cobham's priority queue, where those
closed forms hold).

    .venv/bin/python -m bench.model --run RUN.json --check CHECK.json
    .venv/bin/python -m bench.model --run RUN.json --scale-to 8.3 --slots 2 --table

``--check`` predicts a measured run (its own arrival times, machines and slots, graded in one
run or two as its code did, service times from ``--run``) and prints the prediction beside the
measurement. ``--table`` prints p95 of upload to whole result for 300, 1,000 and 3,000 students
(one upload each) on 1 to 16 machines, and the fewest machines for a p95 of one minute.
``--scale-to S`` scales the measured service times to a mean of S seconds (the run's shape,
another machine's speed). Each figure is the median over ``--replications`` simulated hours
(seeded: the same output every time).
Standard library only.
"""

from __future__ import annotations

import argparse
import heapq
import json
import math
import random
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.deadline import arrivals, percentile

STUDENTS = (300, 1000, 3000)
MACHINES = range(1, 17)
AIM = 60.0  # seconds: the p95 of the whole result the table asks machines for
FIRST_AIM = 30.0  # and of the first verdict
#: The measured runs docs/benchmarks.md quotes (`bench.deadline --machines ... --save`), keyed by
#: machines: each upload's arrival, wait, grading and first verdict.
MEASURED = Path(__file__).with_name("runs") / "deadline-machines.json"


def simulate(
    times: Sequence[float], services: Sequence[tuple[float, float]], servers: int
) -> list[tuple[float, float]]:
    """Each arrival's (seconds to its first verdict, seconds to its whole result) when
    ``servers`` slots serve them first come first served; ``services[i]`` is arrival i's
    (whole grading, grading up to its first verdict)."""
    free = [0.0] * servers  # a heap of the moments each slot frees
    heapq.heapify(free)
    out = []
    for arrival, (whole, first) in zip(times, services, strict=True):
        start = max(arrival, heapq.heappop(free))
        heapq.heappush(free, start + whole)
        out.append((start - arrival + min(first, whole), start - arrival + whole))
    return out


def simulate_two_runs(
    times: Sequence[float], services: Sequence[tuple[float, float]], servers: int
) -> list[tuple[float, float]]:
    """`simulate` as the worker grades (grader/services/engines/leases.py's `queue_rest`): each
    upload in two runs, its first run (up to its first verdict) before every rest, and its rest
    (the whole grading less the first run) queued when its first run ends, behind every first
    run that waits; a run once started is not stopped (non-preemptive priority)."""
    order = sorted(range(len(times)), key=lambda i: times[i])
    free = [0.0] * servers
    heapq.heapify(free)
    rests: list[tuple[float, int]] = []  # (ready, upload): in the order their first runs end
    out = [(0.0, 0.0)] * len(times)
    nxt = 0
    while nxt < len(order) or rests:
        now = heapq.heappop(free)
        arrival = times[order[nxt]] if nxt < len(order) else math.inf
        ready = rests[0][0] if rests else math.inf
        if arrival <= max(now, ready):  # a first run waits, or comes before any rest is ready
            i, nxt = order[nxt], nxt + 1
            whole, first = services[i]
            start = max(now, arrival)
            end = start + min(first, whole)
            heapq.heappush(rests, (end, i))
            out[i] = (end - times[i], 0.0)
        else:
            ready, i = heapq.heappop(rests)
            whole, first = services[i]
            start = max(now, ready)
            end = start + whole - min(first, whole)
            out[i] = (out[i][0], end - times[i])
        heapq.heappush(free, end)
    return out


def erlang_c(servers: int, offered: float) -> float:
    """The probability that an arrival waits in an M/M/c queue (Erlang's C formula), with
    ``offered`` = arrival rate / service rate erlangs (< servers)."""
    top = offered**servers / math.factorial(servers) * servers / (servers - offered)
    below = sum(offered**k / math.factorial(k) for k in range(servers))
    return top / (below + top)


class Fitted:
    """A measured run's service times: (whole grading, up to the first verdict) per upload."""

    def __init__(self, pairs: list[tuple[float, float]]) -> None:
        if not pairs:
            raise ValueError("the run has no graded uploads")
        self.pairs = pairs

    @classmethod
    def from_run(cls, run: dict, scale_to: float | None = None) -> Fitted:
        """From one run of `bench.deadline --save`: its grading times, and the part of each
        up to its first verdict (the first verdict's wait less the upload's wait before its
        grading began). Each slot's first grading is left out: a machine starts with its
        reference cache empty, and fills it in that grading (about four times as long), before
        the rush; drawn in the rush, it would stand for a cost a warm machine does not have
        (a run with `--warm` graded those before its hour). A run of code that grades in two
        runs is refused: its grading times hold the wait between an upload's two runs."""
        if run.get("two_runs"):
            raise ValueError(
                "fit the model to a run of one-run code: a two-run upload's grading "
                "time holds its wait between its runs"
            )
        pairs = []
        cold = 0 if run.get("warm") else max(run.get("machines", 1), 1) * run.get("slots", 1)
        measured = zip(run["took"], run["grading"], run["first"], strict=True)
        for took, grading, first in list(measured)[cold:]:
            waited = took - grading
            pairs.append((grading, min(max(first - waited, 0.0), grading)))
        fitted = cls(pairs)
        if scale_to is not None:
            factor = scale_to / fitted.mean
            fitted = cls([(w * factor, f * factor) for w, f in pairs])
        return fitted

    @property
    def mean(self) -> float:
        return statistics.fmean(w for w, _ in self.pairs)

    def draw(self, count: int, rng: random.Random) -> list[tuple[float, float]]:
        return [rng.choice(self.pairs) for _ in range(count)]


def predict(
    fitted: Fitted,
    times: Sequence[float],
    servers: int,
    replications: int = 40,
    seed: int = 51,
    share: float = 0.95,
    two_runs: bool = True,
) -> dict[str, float]:
    """The median over `replications` simulated runs of each figure: first verdict and whole
    result at p50 and the `share` percentile, and the maximum; each upload graded in two runs
    (`simulate_two_runs`, as the worker does) or, `two_runs` false, in one (`simulate`)."""
    rng = random.Random(seed)
    figures: dict[str, list[float]] = {}
    serve = simulate_two_runs if two_runs else simulate
    for _ in range(replications):
        done = serve(times, fitted.draw(len(times), rng), servers)
        first, whole = [f for f, _ in done], [w for _, w in done]
        for name, value in (
            ("first_p50", statistics.median(first)),
            ("first_p95", percentile(first, share)),
            ("whole_p50", statistics.median(whole)),
            ("whole_p95", percentile(whole, share)),
            ("whole_max", max(whole)),
        ):
            figures.setdefault(name, []).append(value)
    return {name: statistics.median(values) for name, values in figures.items()}


def needed(p95: Callable[[int], float], aim: float = AIM, most: int = max(MACHINES)) -> int | None:
    """The fewest machines (1 to `most`) whose p95 is at most `aim` (None: none of them)."""
    for machines in range(1, most + 1):
        if p95(machines) <= aim:
            return machines
    return None


def check(fitted: Fitted, run: dict, replications: int) -> str:
    """A measured run predicted from `fitted`: its own arrivals, its machines x slots, graded
    as its code graded (in two runs, or in one: runs saved before the split say nothing)."""
    servers = max(run["machines"], 1) * run["slots"]
    two_runs = bool(run.get("two_runs"))
    guess = predict(fitted, run["arrivals"], servers, replications, two_runs=two_runs)
    took, first = run["took"], run["first"]
    return (
        f"| {run['machines']} x {run['slots']} | predicted | {guess['first_p50']:.1f}, "
        f"{guess['first_p95']:.1f} | {guess['whole_p50']:.1f}, {guess['whole_p95']:.1f}, "
        f"{guess['whole_max']:.1f} |\n"
        f"| {run['machines']} x {run['slots']} | measured | {statistics.median(first):.1f}, "
        f"{percentile(first, 0.95):.1f} | {statistics.median(took):.1f}, "
        f"{percentile(took, 0.95):.1f}, {max(took):.1f} |"
    )


def table(
    fitted: Fitted, slots: int, replications: int, hour: float = 3600.0, two_runs: bool = True
) -> str:
    """p95 of upload to whole result (and to first verdict) by students and machines."""
    lines = [
        "| students | "
        + " | ".join(f"{m}" for m in MACHINES)
        + f" | machines for p95 <= {AIM:.0f} s | for a first verdict's p95 <= {FIRST_AIM:.0f} s |",
        "|---|" + "---|" * (len(MACHINES) + 2),
    ]
    for students in STUDENTS:
        times = arrivals(students, hour)
        cache: dict[int, dict[str, float]] = {}

        def at(machines: int, times: list[float] = times, cache: dict = cache) -> dict:
            if machines not in cache:
                cache[machines] = predict(
                    fitted, times, machines * slots, replications, two_runs=two_runs
                )
            return cache[machines]

        cells = [at(m) for m in MACHINES]
        enough = needed(lambda m: at(m)["whole_p95"])
        first = needed(lambda m: at(m)["first_p95"], FIRST_AIM)
        lines.append(
            f"| {students:,} | "
            + " | ".join(f"{c['whole_p95']:.0f}" for c in cells)
            + f" | {enough or 'more than 16'} | {first or 'more than 16'} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.model")
    parser.add_argument(
        "--run", type=Path, default=MEASURED, help="bench.deadline --save's file (default: "
        "the runs docs/benchmarks.md quotes)"
    )  # fmt: skip
    parser.add_argument("--key", default=None, help="which run of the file (default: the first)")
    parser.add_argument("--check", type=Path, default=None, help="a run to predict and compare")
    parser.add_argument("--table", action="store_true", help="students x machines: p95")
    parser.add_argument("--slots", type=int, default=2, help="grading slots a machine")
    parser.add_argument("--scale-to", type=float, default=None, help="mean service time, s")
    parser.add_argument("--replications", type=int, default=40, help="simulated hours a figure")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 2 hours a figure")
    parser.add_argument(
        "--one-run", action="store_true", help="grade each upload in one run (before 51's split)"
    )
    args, _ = parser.parse_known_args(argv)
    if args.quick:
        args.table, args.replications = True, 2
    runs = json.loads(args.run.read_text())
    run = runs[args.key or next(iter(runs))]
    fitted = Fitted.from_run(run, args.scale_to)
    print(
        f"service times: {len(fitted.pairs)} measured uploads from {args.run.name}, mean "
        f"{fitted.mean:.1f} s"
        + (f" (scaled to {args.scale_to:g} s)" if args.scale_to else "")
        + f"; {args.replications} simulated hours a figure, their median"
    )
    if args.check:
        checked = json.loads(args.check.read_text())
        print("| machines x slots | | first verdict p50, p95 s | whole result p50, p95, max s |")
        print("|---|---|---|---|")
        for other in checked.values():
            print(check(fitted, other, args.replications))
    if args.table:
        print(
            f"p95 of upload to whole result, seconds, at the real hour's arrivals (one upload a "
            f"student), by machines of {args.slots} slots, each upload graded in "
            + ("one run:" if args.one_run else "two runs, every first verdict first:")
        )
        print(table(fitted, args.slots, args.replications, two_runs=not args.one_run))


if __name__ == "__main__":
    main()
