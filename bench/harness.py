"""`python -m bench.harness [--suite quick|full]`: the wall time of grading the correct sample
engine with a suite in the sandbox, and beside it, measured in the same run, the reference
search's CPU time on the timing tests against the sample engine's (the peer ratio), and the
sandbox's start-up cost against a bare Python start. `python -m bench` runs the quick suite."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from grader.harness.runner import grade
from grader.harness.sandbox import EngineProcess, SandboxConfig, claim_slot, prepare_submission

ENGINE = Path(__file__).resolve().parents[1] / "tests" / "harness" / "engines" / "correct.py"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.harness")
    parser.add_argument("--suite", default="quick", help="quick (default) or full")
    args, _ = parser.parse_known_args(argv)
    config = SandboxConfig()
    try:
        config.check()
    except Exception as exc:
        print(f"bench.harness: skipped ({exc})")
        return
    start = time.perf_counter()
    report = grade(ENGINE, args.suite, config)
    wall = time.perf_counter() - start
    timing = [t for t in report.tests if t.kind == "timing"]
    engine_cpu = sum(t.cpu for t in timing)
    reference_cpu = sum(t.extra.get("reference_cpu", 0.0) for t in timing)
    engine_total = sum(t.cpu for t in report.tests)
    games = report.games
    print(f"suite {report.suite}: {len(report.tests)} tests ({len(games)} games) graded in "
          f"{wall:.1f} s wall clock; score {report.score:g}/{report.max_score:g}; "
          f"engine CPU {engine_total:.1f} s; Elo {report.elo.text() if report.elo else '-'}")
    if reference_cpu > 0:
        print(f"timing tests: sample engine {engine_cpu:.3f} s CPU, reference alpha-beta "
              f"{reference_cpu:.3f} s CPU in the same run: ratio {engine_cpu / reference_cpu:.2f}")
    speedups = [t.extra["speedup"] for t in report.tests if t.extra.get("speedup")]
    if speedups:
        print(f"search_parallel speedup (2 workers, wall clock): "
              f"{', '.join(f'{s:.2f}' for s in speedups)}")
    bare, boxed = _bare_start(), _sandbox_start(config)
    print(f"engine start in the sandbox (bwrap, adapter, import): {boxed * 1000:.0f} ms; a bare "
          f"`python3 -I -S -c pass`: {bare * 1000:.0f} ms: ratio {boxed / bare:.1f}")


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
        subprocess.run([SandboxConfig().interpreter or sys.executable, "-I", "-S", "-c", "pass"],
                       check=True)
    return (time.perf_counter() - start) / runs


if __name__ == "__main__":
    main()
