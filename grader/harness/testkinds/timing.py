"""The `timing` kind: the engine's CPU time against the reference's, measured on the same
machine (references.py: measured again at intervals)."""

from __future__ import annotations

import math
import statistics
from typing import Any

from grader.harness.cases import TestCase, TestResult, failure, result_of
from grader.harness.references import TIMING_RUNS, References
from grader.harness.sandbox import EngineProcess
from grader.harness.testkinds.base import Group, TestKind, register
from grader.harness.testkinds.search import check_search
from grader.harness.verdicts import Verdict

# Full credit up to FULL_RATIO times the reference's CPU, none from ZERO_RATIO, the median of
# TIMING_RUNS runs, the credit in steps of TIMING_STEP of the points (the band that keeps
# run-to-run noise from moving the score). A suite file may set each per group.
FULL_RATIO, ZERO_RATIO, TIMING_STEP = 3.0, 30.0, 0.25


def timing_credit(ratio: float, full: float, zero: float, step: float) -> float:
    """The fraction of a timing test's points for a CPU ratio: 1 up to `full`, 0 from `zero`,
    linear in the ratio's logarithm between, rounded to the nearest `step`."""
    if ratio <= full:
        return 1.0
    if ratio >= zero:
        return 0.0
    fraction = (math.log(zero) - math.log(ratio)) / (math.log(zero) - math.log(full))
    return round(fraction / step) * step if step > 0 else fraction


@register
class Timing(TestKind):
    """The engine's CPU time for search against the reference's, same position, same machine
    (the reference timed at most `retime` seconds before, references.py): the median of several
    runs of each, at each depth; credit by the ratio (`timing_credit`). The
    result carries its chart's rows as data (`extra["rows"]`), one per depth."""

    name = "timing"
    title = "Timing"
    fresh_group = True  # timed without the heap and caches the groups before it left

    def expand(self, group: Group) -> list[TestCase]:
        spec = group.spec
        depths = [int(d) for d in spec["depths"]]
        return [
            group.case(
                f"Timing depths {'-'.join(map(str, depths))}: {p}",
                position=p,
                fen=group.fen(p),
                depths=depths,
                full_ratio=float(spec.get("full_ratio", FULL_RATIO)),
                zero_ratio=float(spec.get("zero_ratio", ZERO_RATIO)),
                runs=int(spec.get("runs", TIMING_RUNS)),
                step=float(spec.get("step", TIMING_STEP)),
            )
            for p in spec["positions"]
        ]

    def run(self, test: TestCase, process: EngineProcess, refs: References) -> TestResult:
        fen = test.params["fen"]
        runs = max(1, test.params.get("runs", TIMING_RUNS))
        mine = theirs = wall = 0.0
        rows: list[dict[str, Any]] = []
        for depth in test.params["depths"]:
            ref_cpu = refs.timing(fen, depth, runs)
            cpus, walls = [], []
            for _ in range(runs):
                outcome = process.call("search", [fen, depth], test.cpu, test.wall)
                if not outcome.answered:
                    return failure(test, outcome, f"search at depth {depth}")
                check = check_search(outcome.result, refs.search(fen, depth), fen, depth)
                if check.verdict is not Verdict.PASSED:
                    named: dict[str, Any] = (
                        {"candidates": list(check.candidates)} if check.candidates else {}
                    )
                    if check.differs:
                        named["differs"] = [
                            {**x, "what": f"{x['what']} at depth {depth}"} for x in check.differs
                        ]
                    return result_of(
                        test,
                        check.verdict,
                        "\n".join(
                            [
                                f"a wrong answer at depth {depth} gets no timing credit:",
                                *check.lines,
                            ]
                        ),
                        cpu=outcome.cpu,
                        wall=outcome.wall,
                        **named,
                    )
                cpus.append(outcome.cpu)
                walls.append(outcome.wall)
            cpu = statistics.median(cpus)
            mine += cpu
            theirs += ref_cpu
            wall += sum(walls)
            rows.append(
                {
                    "depth": depth,
                    "cpu": round(cpu, 6),
                    "reference_cpu": round(ref_cpu, 6),
                    "wall": round(statistics.median(walls), 6),
                    "leaves": refs.search(fen, depth).leaves_alphabeta,
                    "runs": runs,
                }
            )
        ratio = mine / theirs if theirs > 0 else math.inf
        full, zero = test.params["full_ratio"], test.params["zero_ratio"]
        fraction = timing_credit(ratio, full, zero, test.params.get("step", TIMING_STEP))
        scale = f"full credit up to {full:g} times the reference's CPU, none from {zero:g}"
        if fraction < 1:
            head = (
                f"passed with reduced timing credit: {fraction * test.points:g} of "
                f"{test.points:g} points, your search takes {ratio:.1f} times the reference's "
                f"CPU ({scale})"
            )
        else:
            head = f"full timing credit: ratio {ratio:.2f} ({scale})"
        lines = [
            f"depth {r['depth']}: you {r['cpu']:.3f} s CPU, reference "
            f"{r['reference_cpu']:.3f} s (medians of {runs} runs)"
            for r in rows
        ]
        return result_of(
            test,
            Verdict.PASSED,
            "\n".join([head, *lines]),
            fraction * test.points,
            mine,
            wall,
            ratio=round(ratio, 3),
            reference_cpu=round(theirs, 4),
            reduced=fraction < 1,
            rows=rows,
        )
