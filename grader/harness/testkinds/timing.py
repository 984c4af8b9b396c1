"""The `timing` kind: the engine's CPU time against the reference's, the reference timed in
the same slot beside each of the engine's runs (references.py `References.beside`)."""

from __future__ import annotations

import math
import statistics
from typing import Any

from grader.harness.cases import TestCase, TestResult, failure, result_of
from grader.harness.contention import Share
from grader.harness.references import TIMING_RUNS, References
from grader.harness.sandbox import CallOutcome, EngineProcess
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


def settled(
    cpus: list[list[float]],
    theirs: float | list[list[float]],
    full: float,
    zero: float,
    step: float,
) -> bool:
    """Whether the credit of the medians of 3 runs a depth is known from each depth's first
    two runs `cpus` against the reference's (`theirs`: its total, or its two runs a depth
    beside them): each median lies between its depth's two runs, so the ratio of the medians'
    totals between the least total over the reference's greatest and the greatest over its
    least, and the credit never rises as the ratio grows: equal credits at both ends leave no
    other."""
    pairs = [[theirs, theirs]] if isinstance(theirs, int | float) else theirs
    if any(len(two) != 2 for two in (*cpus, *pairs)):
        return False
    least_theirs = sum(min(two) for two in pairs)
    if least_theirs <= 0:
        return False
    least = sum(min(two) for two in cpus) / sum(max(two) for two in pairs)
    most = sum(max(two) for two in cpus) / least_theirs
    return timing_credit(least, full, zero, step) == timing_credit(most, full, zero, step)


@register
class Timing(TestKind):
    """The engine's CPU time for search against the reference's, same position, same slot,
    the reference timed run for run beside the engine's: the median of several runs of each,
    at each depth; credit by the ratio (`timing_credit`). The result carries its chart's rows
    as data (`extra["rows"]`), one per depth, and the reference's share of a core while it timed
    (`extra["share"]`, contention.py): the runner judges from it, by the threshold it defers
    by, whether the machine was busy (`runner.judge_machine`), so a result's words and its
    deferral never disagree."""

    name = "timing"
    title = "Timing"
    fresh_group = True  # timed without the heap and caches the groups before it left
    alone = True  # timed with no other slot working (sandbox.machine_window)

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
        full, zero = test.params["full_ratio"], test.params["zero_ratio"]
        step = test.params.get("step", TIMING_STEP)
        depths = test.params["depths"]
        # The reference is timed in this slot, run for run beside the engine's, so both see the
        # same machine; its share of a core says whether the machine was busy (contention.py).
        share = Share()
        theirs_runs: dict[int, list[float]] = {depth: [] for depth in depths}
        cpus: dict[int, list[float]] = {depth: [] for depth in depths}
        walls: dict[int, list[float]] = {depth: [] for depth in depths}
        # Of 3 runs, the third is made only where it could change the credit (`settled`).
        for count in (2, 3) if runs == 3 else (runs,):
            if count == 3 and settled(
                list(cpus.values()), list(theirs_runs.values()), full, zero, step
            ):
                break
            for depth in depths:
                while len(cpus[depth]) < count:
                    theirs_runs[depth].append(refs.beside(fen, depth, share))
                    outcome = process.call("search", [fen, depth], test.cpu, test.wall)
                    wrong = _wrong(test, outcome, refs, fen, depth)
                    if wrong is not None:
                        return wrong
                    cpus[depth].append(outcome.cpu)
                    walls[depth].append(outcome.wall)
        reference = {depth: statistics.median(theirs_runs[depth]) for depth in depths}
        theirs = sum(reference.values())
        mine = wall = 0.0
        rows: list[dict[str, Any]] = []
        for depth in depths:
            cpu = statistics.median(cpus[depth])
            mine += cpu
            wall += sum(walls[depth])
            rows.append(
                {
                    "depth": depth,
                    "cpu": round(cpu, 6),
                    "reference_cpu": round(reference[depth], 6),
                    "wall": round(statistics.median(walls[depth]), 6),
                    "leaves": refs.search(fen, depth).leaves_alphabeta,
                    "runs": len(cpus[depth]),
                }
            )
        ratio = mine / theirs if theirs > 0 else math.inf
        fraction = timing_credit(ratio, full, zero, step)
        scale = f"full credit up to {full:g} times the reference's CPU, none from {zero:g}"
        if fraction < 1:
            head = (
                f"passed with reduced timing credit: {fraction * test.points:g} of "
                f"{test.points:g} points, your search takes {ratio:.1f} times the reference's "
                f"CPU ({scale})"
            )
        else:
            head = f"full timing credit: ratio {ratio:.2f} ({scale})"
        made = rows[0]["runs"] if rows else runs
        lines = [
            f"depth {r['depth']}: you {r['cpu']:.3f} s CPU, reference "
            f"{r['reference_cpu']:.3f} s (medians of {made} runs)"
            for r in rows
        ]
        if made < runs:
            lines.append(
                f"Each search ran {made} times, not {runs}: a third run's median would lie "
                "between the first two, where no figure changes the credit."
            )
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
            share=round(share.share, 3),
            machine=share.words(),
        )


def _wrong(
    test: TestCase, outcome: CallOutcome, refs: References, fen: str, depth: int
) -> TestResult | None:
    """The test's result when a timed search failed or answered wrong (no timing credit)."""
    if not outcome.answered:
        return failure(test, outcome, f"search at depth {depth}")
    check = check_search(outcome.result, refs.search(fen, depth), fen, depth)
    if check.verdict is Verdict.PASSED:
        return None
    named: dict[str, Any] = {"candidates": list(check.candidates)} if check.candidates else {}
    if check.differs:
        named["differs"] = [{**x, "what": f"{x['what']} at depth {depth}"} for x in check.differs]
    return result_of(
        test,
        check.verdict,
        "\n".join([f"a wrong answer at depth {depth} gets no timing credit:", *check.lines]),
        cpu=outcome.cpu,
        wall=outcome.wall,
        **named,
    )
