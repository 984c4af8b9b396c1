"""`python -m bench.repeatability`: the same engines graded again and again, at two loads and
with one and two grading slots, and which tests' points differ from run to run (issue 51).

For each code (this checkout's, and with `--baseline REV` that revision's, taken from git
as `bench.suite_cpu` takes its peer), each load and each slot count, each engine is graded
`--runs` times with the suite (the quick suite by default; `--kinds` keeps only some kinds of
test, for a small run):

- load `idle`: nothing started beside the grading. The machine may be shared with other work,
  so it is never truly idle: each run records the one-minute load average when it starts, and
  the table prints it;
- load `busy`: two processes that spin, started by this script beside the grading (each bounded
  by RLIMIT_CPU, ended by its pid when the load's runs end);
- 1 slot: one engine graded at a time; 2 slots: two copies of the engine graded at once; each
  grading in a process forked for it and a slot of its own (`grade_engines`), as a worker's
  are, so the slot count is the only thing that differs; both copies recorded.

Every grading runs in a fresh Python process (the code's own package first on its path) with a
reference cache of its own per code, kept across that code's runs: a code that keeps the
reference's timings (before issue 51) compares every run with the timing its first run made.

It prints a row per grading (points, the timing tests' points and CPU ratios, the reference's
share of a core while it was timed beside the engine, and whether that share is one a worker
defers), then, per code and engine, every test whose points differed between runs, with the
points seen.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from bench.suite_cpu import ENGINES, baseline_tree, first_on_path

ROOT = Path(__file__).resolve().parents[1]
SPIN_CPU_SECONDS = 900  # each busy process's CPU at most, whatever happens to this script
# An engine built here: the correct sample with its search repeated, correct but slow enough to
# land inside the timing credit's sloping band (the one whose points noise could move).
SLOW_REPEATS = 6

CHILD = """
import dataclasses, json, os, sys
from pathlib import Path
from grader.harness import SandboxConfig, grade_engines, load_suite
suite = load_suite(sys.argv[1])
kinds = os.environ.get("BENCH_KINDS")
if kinds:
    suite = dataclasses.replace(
        suite, tests=tuple(t for t in suite.tests if t.kind in kinds.split(",")))
slots, engines = int(sys.argv[2]), sys.argv[3:]
cache = Path(os.environ["GRADER_CACHE_DIR"])
# One slot or two, each grading in a process forked for it, as a worker's are: the slot count
# is the only thing that differs.
reports = grade_engines(engines, suite, SandboxConfig(), slots, cache)
print(json.dumps([{
    "score": r.score, "max_score": r.max_score, "complete": r.complete,
    "tests": [[t.name, t.kind, t.score, t.extra.get("share"), t.extra.get("ratio")]
              for t in r.tests],
} for r in reports]), flush=True)
"""


def engines(names: list[str], folder: Path) -> dict[str, Path]:
    """A submission folder per engine: a sample of tests/harness/engines, or `slow`, the
    correct sample with its search repeated SLOW_REPEATS times."""
    out = {}
    for name in names:
        target = folder / name
        target.mkdir(parents=True, exist_ok=True)
        for helper in ("correct.py", "_channel.py"):
            shutil.copyfile(ENGINES / helper, target / helper)
        if name == "slow":
            (target / "engine.py").write_text(
                "import correct\nfrom correct import *  # noqa: F403\n\n_search = correct.search\n\n\n"
                "def search(fen, depth, alpha=-correct.INF, beta=correct.INF):\n"
                f"    for _ in range({SLOW_REPEATS - 1}):\n"
                "        _search(fen, depth, alpha, beta)\n"
                "    return _search(fen, depth, alpha, beta)\n"
            )
        else:
            shutil.copyfile(ENGINES / f"{name}.py", target / "engine.py")
        out[name] = target
    return out


def _bounded() -> None:
    """A busy process's limits: its CPU, and its death with this script (PR_SET_PDEATHSIG)."""
    resource.setrlimit(resource.RLIMIT_CPU, (SPIN_CPU_SECONDS, SPIN_CPU_SECONDS))
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


def spin(count: int) -> list[subprocess.Popen[bytes]]:
    return [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=_bounded)
        for _ in range(count)
    ]


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        process.kill()
    for process in processes:
        process.wait()


def grade(code: Path | None, cache: Path, suite: str, slots: int, paths: list[Path], kinds: str):
    """The reports of one grading process (`code`: a package tree first on the path, or None
    for this checkout)."""
    env = {**os.environ, "GRADER_CACHE_DIR": str(cache), "BENCH_KINDS": kinds}
    done = subprocess.run(
        [sys.executable, "-c", first_on_path(code) + CHILD, suite, str(slots), *map(str, paths)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.repeatability")
    parser.add_argument("--suite", default="quick", help="suite name or file")
    parser.add_argument("--engines", default="correct,slow", help="samples, or slow")
    parser.add_argument("--runs", type=int, default=5, help="gradings per engine and setting")
    parser.add_argument("--loads", default="idle,busy", help="idle and/or busy")
    parser.add_argument("--slots", default="1,2", help="grading slots: 1 and/or 2")
    parser.add_argument("--kinds", default="", help="keep only these kinds of test (timing,...)")
    parser.add_argument("--baseline", default="", help="also grade with this revision's code")
    parser.add_argument(
        "--baseline-only", action="store_true", help="grade with the baseline's code alone"
    )
    args = parser.parse_args(argv)
    from grader.harness.contention import BUSY_SHARE

    with tempfile.TemporaryDirectory(prefix="bench-repeat-") as tmp:
        folder = Path(tmp)
        paths = engines(args.engines.split(","), folder / "engines")
        codes: dict[str, Path | None] = {} if args.baseline_only else {"this code": None}
        if args.baseline:
            codes[args.baseline] = baseline_tree(args.baseline, folder / "baseline")
        rows = []
        print(
            "| code | engine | load | slots | run | load avg | points | timing points "
            "| timing ratios | reference's share of a core | deferred by a worker |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for load in args.loads.split(","):
            spinning = spin(2) if load == "busy" else []
            try:
                for slots in (int(s) for s in args.slots.split(",")):
                    for run in range(1, args.runs + 1):
                        for code_name, code in codes.items():
                            for engine, path in paths.items():
                                average = os.getloadavg()[0]
                                reports = grade(
                                    code,
                                    folder / f"cache-{len(code_name)}-{hash(code_name) & 0xFFFF}",
                                    args.suite,
                                    slots,
                                    [path] * slots,
                                    args.kinds,
                                )
                                for copy, report in enumerate(reports):
                                    timing = [t for t in report["tests"] if t[1] == "timing"]
                                    shares = [t[3] for t in timing if t[3] is not None]
                                    least = min(shares) if shares else None
                                    rows.append((code_name, engine, load, slots, report))
                                    print(
                                        f"| {code_name} | {engine} | {load} | {slots} "
                                        f"| {run}{'ab'[copy] if slots > 1 else ''} "
                                        f"| {average:.1f} | {report['score']:g} "
                                        f"| {sum(t[2] for t in timing):g} "
                                        f"| {', '.join(f'{t[4]:.2f}' for t in timing if t[4])} "
                                        f"| {'' if least is None else f'{least:.2f}'} "
                                        f"| {'' if least is None else ('yes' if least < BUSY_SHARE else 'no')} |",
                                        flush=True,
                                    )
            finally:
                stop(spinning)
        print()
        print("Tests whose points differed between runs (code, engine: test: points seen):")
        seen: dict[tuple[str, str], dict[str, set[float]]] = defaultdict(lambda: defaultdict(set))
        for code_name, engine, _load, _slots, report in rows:
            for name, _kind, score, _share, _ratio in report["tests"]:
                seen[(code_name, engine)][name].add(score)
        for (code_name, engine), tests in seen.items():
            differed = {name: sorted(s) for name, s in tests.items() if len(s) > 1}
            totals = sorted({r[4]["score"] for r in rows if r[:2] == (code_name, engine)})
            print(f"- {code_name}, {engine}: points {totals}")
            for name, scores in differed.items():
                print(f"  - {name}: {scores}")
            if not differed:
                print("  - none")


if __name__ == "__main__":
    main()
