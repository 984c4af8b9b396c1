"""`python -m bench.harness [--suite quick|full]`: the wall time of grading the correct sample
engine with a suite in the sandbox, and beside it, measured in the same run, the reference
search's CPU time on the timing tests against the sample engine's (the peer ratio), and the
sandbox's start-up cost against a bare Python start. `python -m bench` runs the quick suite.

`--runs N` grades the engine N times and prints the run-to-run spread of the score (what a
student would see resubmitting the same file), against the suite's maximum."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from grader.harness.runner import grade_engine
from grader.harness.sandbox import EngineProcess, SandboxConfig, claim_slot, prepare_submission

ENGINE = Path(__file__).resolve().parents[1] / "tests" / "harness" / "engines" / "correct.py"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.harness")
    parser.add_argument("--suite", default="quick", help="quick (default) or full")
    parser.add_argument("--runs", type=int, default=1, help="grade this many times: the spread")
    args, _ = parser.parse_known_args(argv)
    config = SandboxConfig()
    try:
        config.check()
    except Exception as exc:
        print(f"bench.harness: skipped ({exc})")
        return
    if args.runs > 1:
        spread(args.suite, args.runs, config)
        return
    start = time.perf_counter()
    report = grade_engine(ENGINE, args.suite, config)
    wall = time.perf_counter() - start
    timing = [t for t in report.tests if t.kind == "timing"]
    engine_cpu = sum(t.cpu for t in timing)
    reference_cpu = sum(t.extra.get("reference_cpu", 0.0) for t in timing)
    engine_total = sum(t.cpu for t in report.tests)
    games = report.games
    print(
        f"suite {report.suite}: {len(report.tests)} tests ({len(games)} games) graded in "
        f"{wall:.1f} s wall clock; score {report.score:g}/{report.max_score:g}; "
        f"engine CPU {engine_total:.1f} s; Elo {report.elo.text() if report.elo else '-'}"
    )
    if reference_cpu > 0:
        print(
            f"timing tests: sample engine {engine_cpu:.3f} s CPU, reference alpha-beta "
            f"{reference_cpu:.3f} s CPU in the same run: ratio {engine_cpu / reference_cpu:.2f}"
        )
    speedups = [t.extra["speedup"] for t in report.tests if t.extra.get("speedup")]
    if speedups:
        print(
            f"search_parallel speedup (2 workers, wall clock): "
            f"{', '.join(f'{s:.2f}' for s in speedups)}"
        )
    bare, boxed = _bare_start(), _sandbox_start(config)
    print(
        f"engine start in the sandbox (bwrap, adapter, import): {boxed * 1000:.0f} ms; a bare "
        f"`python3 -I -S -c pass`: {bare * 1000:.0f} ms: ratio {boxed / bare:.1f}"
    )


def spread(suite: str, runs: int, config: SandboxConfig) -> None:
    """Grade the correct sample engine `runs` times: each run's score, timing ratio and wall
    clock, then the score's spread (max - min) against the suite's maximum."""
    scores, reports = [], []
    for number in range(1, runs + 1):
        start = time.perf_counter()
        report = grade_engine(ENGINE, suite, config)
        wall = time.perf_counter() - start
        ratios = [t.extra["ratio"] for t in report.tests if "ratio" in t.extra]
        scores.append(report.score)
        reports.append(report)
        print(
            f"run {number}: {report.score:g}/{report.max_score:g}, timing ratios "
            f"{', '.join(f'{r:.2f}' for r in ratios)}, {wall:.1f} s wall clock",
            flush=True,
        )
    varying = sum(
        len({r.tests[i].score for r in reports}) > 1 for i in range(len(reports[0].tests))
    )
    top = reports[0].max_score
    print(
        f"suite {suite}, {runs} runs: score min {min(scores):g}, median "
        f"{statistics.median(scores):g}, max {max(scores):g} of {top:g}: spread "
        f"{max(scores) - min(scores):g} points ({(max(scores) - min(scores)) / top:.1%} of the "
        f"maximum); {varying} of {len(reports[0].tests)} tests scored differently between runs"
    )


def _sandbox_start(config: SandboxConfig, runs: int = 5) -> float:
    with claim_slot(config) as slot:
        folder = prepare_submission(ENGINE, slot.workdir / "submission")
        start = time.perf_counter()
        for _ in range(runs):
            with EngineProcess(config, slot, folder) as process:
                process.start(5, 10)
        return (time.perf_counter() - start) / runs


def _bare_start(runs: int = 5) -> float:
    start = time.perf_counter()
    for _ in range(runs):
        subprocess.run(
            [SandboxConfig().interpreter or sys.executable, "-I", "-S", "-c", "pass"], check=True
        )
    return (time.perf_counter() - start) / runs


if __name__ == "__main__":
    main()
