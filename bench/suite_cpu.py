"""`python -m bench.suite_cpu`: the CPU one upload costs, the suite graded in the sandbox.

Each run grades the sample correct engine (tests/harness/engines/correct.py) with a suite
through `grader.harness.grade_engine` in a fresh Python process, and counts the CPU (user +
system) of that process and of every process under it (bubblewrap, the engine, its workers),
as the kernel adds them up when each is waited for (`os.wait4`). Three runs, in one go:

- the peer: the code of a baseline commit (`--baseline`, by default the last before the
  reference cache and the shared engine process), taken from git into a temporary folder;
- this code, its reference cache empty (the first upload of a suite on a machine);
- this code again, the cache filled by the run before (every later upload).

It prints each run's CPU and wall time, the grading process's own CPU in `grade_engine` and that
of the processes under it (the sandbox and the engine: for this code mostly the engine's own
work, which no cut on the grader's side reaches; their ratio to the peer's whole is the least
ratio such cuts could give), each test kind's share, the points of each, the games
played of the suite's (a match stopped by its sequential test plays fewer) with the Elo they
give, and the ratios against the peer. `--points` grades every sample engine (tests/harness/engines) with
the peer's code and with this code and tables their points side by side, with the games this
code played. `--record FILE` grades every sample engine with the peer's code alone and writes
their verdicts and points to FILE (`--suite` a suite file; tests/harness/test_shared_process.py
compares this code with the record). `--groups` grades each group of the suite alone with this
code, the reference's cache filled by a pass before, and tables the CPU of the processes under
the grading process (the engine's start-ups and every run it makes, a timing test's runs beyond
the medians it reports included), the tests' own CPU as the harness measured it, and the
grading process's own, group by group, with the grading process's own in the pass before, the
cache empty (for the play group: the opponents' searches in positions none of them has met).
`--points --before OLD.json` grades every sample engine, and the engine files `--also` names
(by default bench/handout_engines, written from the handouts alone), by this code with the
suite file OLD.json and with `--suite`, and tables each engine's points, whether every verdict
is the same, its Elo and its processes' CPU with each suite (`--samples ''` grades the `--also`
engines alone): a suite's change measured on every engine (issue 51's cheaper games).
`--profile` profiles the grader's own side of one run of this code with the cache filled by a run before it
(cProfile: where the CPU outside the engine goes) instead.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ROOT / "tests" / "harness" / "engines"
ENGINE = ENGINES / "correct.py"
HANDOUT_ENGINES = ROOT / "bench" / "handout_engines"  # written from the handouts alone
BASELINE = "9581471"
# A game's verdicts that depend on which moves were played: the sample engines' choose_move
# deepens until a share of its clock is spent, so on a loaded machine two runs of the same code
# may play different games, and a mistake only some positions show (captures_not_forced) may or
# may not come up in them.
PATH_DEPENDENT = {"passed", "ILLEGAL_MOVE"}

# The child: grade each engine folder given, print one JSON line per engine: the points, and
# each test's name, kind, verdict, score and CPU. This code keeps the reference's work in
# GRADER_CACHE_DIR when it is set (a baseline without the cache has no such parameter).
CHILD = """
import json, os, resource, sys
from pathlib import Path
from grader.harness import SandboxConfig, grade_engine, load_suite
suite = load_suite(sys.argv[1])
extra = {"cache": Path(os.environ["GRADER_CACHE_DIR"])} if "GRADER_CACHE_DIR" in os.environ else {}
def cpu(who):
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime
for engine in sys.argv[2:]:
    before = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
    report = grade_engine(engine, suite, SandboxConfig(), **extra)
    print(json.dumps({
        "grader_cpu": cpu(resource.RUSAGE_SELF) - before[0],
        "under_cpu": cpu(resource.RUSAGE_CHILDREN) - before[1],
        "score": report.score, "max_score": report.max_score, "complete": report.complete,
        "tests": [[t.name, t.kind, t.verdict.value, t.score, t.cpu] for t in report.tests],
        "games": sum(t.kind == "play" for t in report.tests),
        "played": sum(t.kind == "play" and t.extra.get("played", True) for t in report.tests),
        "elo": report.elo.text() if report.elo else "",
    }), flush=True)
"""


def submissions(names: list[str], folder: Path) -> list[Path]:
    """A submission folder for each sample engine named (tests/harness/engines/NAME.py as
    engine.py, with the modules the samples import beside it)."""
    out = []
    for name in names:
        target = folder / name
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ENGINES / f"{name}.py", target / "engine.py")
        for helper in ("correct.py", "_channel.py"):
            shutil.copyfile(ENGINES / helper, target / helper)
        out.append(target)
    return out


def sample_engines() -> list[str]:
    return sorted(p.stem for p in ENGINES.glob("*.py") if not p.stem.startswith("_"))


def baseline_tree(revision: str, folder: Path, data: bool = False) -> Path:
    """The grader package of `revision`, from git, in `folder`. Its exercises and migrations
    are this checkout's (data the package finds by import), or with `data` the revision's own,
    inside its package where the import finds them first (a service run on its own schema)."""
    parts = ["grader", "exercises", "migrations"] if data else ["grader"]
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, *parts],
        check=True,
        capture_output=True,
    ).stdout
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:  # git's own archive, read in-process
        tar.extractall(folder, filter="data")
    for part in parts[1:]:
        (folder / part).rename(folder / "grader" / part)
    return folder


def first_on_path(code: Path | None) -> str:
    """The lines a child script starts with so that it imports the grader package at `code`
    (a baseline_tree) before this checkout's; none for this checkout's own."""
    if code is None:
        return ""
    return (
        f"import sys; sys.path.insert(0, {str(code)!r}); import grader; "
        f"assert grader.__file__.startswith({str(code)!r}), grader.__file__\n"
    )


def run(
    engines: list[Path], suite: str, code: Path | None = None, env: dict[str, str] | None = None
) -> tuple[list[dict], float, float]:
    """Grade `engines` one after the other in a fresh process (the code at `code`, else this
    checkout's): each engine's report, and the CPU seconds (the whole process tree) and wall
    time of the process."""
    prelude = first_on_path(code)
    start = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-c", prelude + CHILD, suite, *map(str, engines)],
        stdout=subprocess.PIPE,
        # The cache only where `env` names one (the caller's GRADER_CACHE_DIR is not passed
        # on: a baseline run has none, and each run says which cache it fills).
        env={**{k: v for k, v in os.environ.items() if k != "GRADER_CACHE_DIR"}, **(env or {})},
        cwd=ROOT,
    )
    assert process.stdout is not None
    with process.stdout:
        out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - start
    if process.returncode != 0:
        raise RuntimeError(f"the grading run failed (exit {process.returncode})")
    reports = [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]
    return reports, usage.ru_utime + usage.ru_stime, wall


def compare(
    names: list[str], suite: str, baseline: str, folder: Path
) -> tuple[list[dict], list[dict]]:
    """Every engine named graded by the baseline's code and by this code (cache filled
    as it goes): the two lists of reports, in the order of `names`."""
    engines = submissions(names, folder / "engines")
    base = baseline_tree(baseline, folder / "baseline")
    before, _, _ = run(engines, suite, base)
    after, _, _ = run(engines, suite, env={"GRADER_CACHE_DIR": str(folder / "cache")})
    return before, after


def differing(old: dict, new: dict) -> list[tuple[list, list | None]]:
    """The tests of report `old` whose verdict or points differ in report `new`, each with its
    test in `new` (None where `new` has none), by name: `new` may hold games `old` does not (a
    play group's "elo_games", which score no points); every test `old` has is compared."""
    mine = {t[0]: t for t in new["tests"]}
    return [
        (was, mine.get(was[0]))
        for was in old["tests"]
        if was[0] not in mine or was[2:4] != mine[was[0]][2:4]
    ]


def outside(paths: list[Path], folder: Path) -> dict[str, Path]:
    """A submission folder for each engine file given (written outside the repository), named
    by the file's folder when the file is an `engine.py`, else by its stem."""
    out = {}
    for path in paths:
        name = path.parent.name if path.name == "engine.py" else path.stem
        target = folder / name
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / "engine.py")
        out[name] = target
    return out


def suites_table(
    before: str, after: str, samples: list[str], also: list[Path], folder: Path
) -> None:
    """The sample engines named, and each engine of `also`, graded by this code with the suite
    `before` and with `after`, each suite with its own reference cache: their points, whether
    every verdict is the same, their Elo, and the CPU of the processes under the grading
    process (the engine's own work) with each."""
    engines = dict(zip(samples, submissions(samples, folder / "engines"), strict=True))
    engines.update(outside(also, folder / "outside"))
    folders = list(engines.values())
    old, _, _ = run(folders, before, env={"GRADER_CACHE_DIR": str(folder / "cache-before")})
    new, _, _ = run(folders, after, env={"GRADER_CACHE_DIR": str(folder / "cache-after")})
    print(
        f"every engine graded by this code with the suite {before} (before) and with {after} "
        "(after); CPU = user + system of the processes under the grading process"
    )
    print(
        "| engine | points before | points after | every verdict the same | Elo before | "
        "Elo after | engine CPU before s | after s | after / before | its games' CPU before s "
        "| after s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    totals = [0.0, 0.0]
    for name, was, now in zip(engines, old, new, strict=True):
        differ = [test for test, _ in differing(was, now)]
        totals[0] += was["under_cpu"]
        totals[1] += now["under_cpu"]
        print(
            f"| {name} | {was['score']:g}/{was['max_score']:g} | "
            f"{now['score']:g}/{now['max_score']:g} | "
            f"{'yes' if not differ else 'NO: ' + '; '.join(t[0] for t in differ)} | "
            f"{was['elo'] or '-'} | {now['elo'] or '-'} | {was['under_cpu']:.2f} | "
            f"{now['under_cpu']:.2f} | {now['under_cpu'] / max(was['under_cpu'], 1e-9):.2f}x | "
            f"{by_kind(was).get('play', 0.0):.2f} | {by_kind(now).get('play', 0.0):.2f} |",
            flush=True,
        )
    print(
        f"all engines: {totals[0]:.1f} s before, {totals[1]:.1f} s after: "
        f"{totals[1] / max(totals[0], 1e-9):.2f}x"
    )


def recorded(report: dict) -> dict:
    """What a record keeps of an engine's report: whether it completed, and each test's name,
    kind, verdict and points (never its CPU, which changes from run to run)."""
    return {"complete": report["complete"], "tests": [t[:4] for t in report["tests"]]}


def inputs_digest(suite: Path) -> str:
    """A digest of what a record of `suite` was graded from besides the baseline's code: the
    suite file, the positions it names and every sample engine."""
    from grader.harness.suite import positions

    table = positions()
    used = sorted(
        {p for g in json.loads(suite.read_text())["groups"] for p in g.get("positions", [])}
    )
    digest = hashlib.sha256(suite.read_bytes())
    digest.update(json.dumps({p: table[p] for p in used}, sort_keys=True).encode())
    for engine in sorted(ENGINES.glob("*.py")):
        digest.update(engine.name.encode() + b"\0" + engine.read_bytes())
    return digest.hexdigest()


def record(suite: Path, baseline: str, out: Path) -> None:
    """Every sample engine graded with `suite` (a file) by the baseline's code, written to `out`
    as JSON: the tests compare this code with it (tests/harness/test_shared_process.py)."""
    names = sample_engines()
    with tempfile.TemporaryDirectory(prefix="bench-suite-cpu-") as folder:
        engines = submissions(names, Path(folder) / "engines")
        reports, _, _ = run(engines, str(suite), baseline_tree(baseline, Path(folder) / "base"))
    data = {
        "baseline": baseline,
        "inputs": inputs_digest(suite),
        "engines": {name: recorded(r) for name, r in zip(names, reports, strict=True)},
    }
    out.write_text(json.dumps(data, indent=1) + "\n")


def by_kind(report: dict) -> dict[str, float]:
    """The engine's CPU in each test kind, as the harness measured it."""
    totals: dict[str, float] = {}
    for _name, kind, _verdict, _score, cpu in report["tests"]:
        totals[kind] = totals.get(kind, 0.0) + cpu
    return totals


def profile(engine: Path, suite: str, top: int) -> None:
    import cProfile
    import pstats

    from grader.harness import SandboxConfig, grade_engine, load_suite

    loaded = load_suite(suite)
    with tempfile.TemporaryDirectory(prefix="bench-suite-cpu-") as cache:
        grade_engine(engine, loaded, SandboxConfig(), cache=Path(cache))  # the cache filled
        profiler = cProfile.Profile()
        profiler.enable()
        grade_engine(engine, loaded, SandboxConfig(), cache=Path(cache))
        profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative").print_stats(top)


def group_table(engine: Path, suite: str, folder: Path) -> None:
    """Each group of `suite` graded alone by this code, in this process, after a pass that
    fills the reference's cache: where an upload's CPU goes, group by group."""
    import resource
    from dataclasses import replace

    from grader.harness import SandboxConfig, grade_engine, load_suite

    def cpu(who: int) -> float:
        usage = resource.getrusage(who)
        return usage.ru_utime + usage.ru_stime

    whole = load_suite(suite)
    alone = {  # the suite with one group's tests, by group
        number: replace(whole, tests=tuple(t for t in whole.tests if t.group == number))
        for number in sorted({t.group for t in whole.tests})
    }
    [submission] = submissions([engine.stem], folder / "engines")
    cache = folder / "cache"
    first: dict[int, float] = {}  # the grading process's CPU in each group's first pass
    rows = []
    for fill in (True, False):
        for number, part in alone.items():
            before = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
            report = grade_engine(submission, part, SandboxConfig(), cache=cache)
            if fill:
                first[number] = cpu(resource.RUSAGE_SELF) - before[0]
            else:
                rows.append(
                    (
                        number,
                        part.tests[0].kind,
                        len(report.tests),
                        cpu(resource.RUSAGE_CHILDREN) - before[1],
                        sum(t.cpu for t in report.tests),
                        cpu(resource.RUSAGE_SELF) - before[0],
                        first[number],
                    )
                )
    print(
        f"suite {suite}, engine {engine.name}, each group graded alone by this code, the "
        "reference's cache filled by a pass before (the grading process's CPU in that pass, "
        "the cache empty, in the last column); CPU = user + system"
    )
    print(
        "| group | kind | tests | processes under the grading process s | the tests' own CPU "
        "s (timing: the medians) | grading process s | grading process, cache empty s |"
    )
    print("|---|---|---|---|---|---|---|")
    for number, kind, tests, under, own, grader, empty in rows:
        print(
            f"| {number} | {kind} | {tests} | {under:.2f} | {own:.2f} | {grader:.2f} | "
            f"{empty:.2f} |"
        )
    print(
        f"| all | | {sum(r[2] for r in rows)} | "
        + " | ".join(f"{sum(r[c] for r in rows):.2f}" for c in (3, 4, 5, 6))
        + " |"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.suite_cpu")
    parser.add_argument("--suite", default="quick", help="quick, full or a suite file")
    parser.add_argument("--engine", type=Path, default=ENGINE, help="the engine graded")
    parser.add_argument("--baseline", default=BASELINE, help="the peer's git revision")
    parser.add_argument("--profile", action="store_true", help="profile this code's run")
    parser.add_argument("--top", type=int, default=40, help="rows of the profile")
    parser.add_argument(
        "--points", action="store_true", help="every sample engine's points, peer and this code"
    )
    parser.add_argument(
        "--groups", action="store_true", help="this code's CPU group by group, each graded alone"
    )
    parser.add_argument(
        "--record", type=Path, help="write every sample engine's verdicts with the peer's code"
    )
    parser.add_argument(
        "--before",
        help="with --points: a suite file to grade every engine with beside --suite, this code",
    )
    parser.add_argument(
        "--also",
        type=Path,
        nargs="*",
        default=sorted(HANDOUT_ENGINES.glob("*.py")),
        help="with --before: engine files written outside the repository (by default "
        "bench/handout_engines, written from the handouts alone)",
    )
    parser.add_argument("--samples", help="with --before: the sample engines, comma-separated")
    args, _ = parser.parse_known_args(argv)
    from grader.harness import SandboxConfig

    try:
        SandboxConfig().check()
    except Exception as exc:
        print(f"bench.suite_cpu: skipped ({exc})")
        return
    if args.profile:
        profile(args.engine, args.suite, args.top)
        return
    if args.record:
        record(Path(args.suite), args.baseline, args.record)
        return
    folder = Path(tempfile.mkdtemp(prefix="bench-suite-cpu-"))
    try:
        if args.points and args.before:
            samples = (
                sample_engines()
                if args.samples is None
                else [n for n in args.samples.split(",") if n]
            )
            suites_table(args.before, args.suite, samples, args.also, folder)
            return
        if args.points:
            points_table(args.suite, args.baseline, folder)
            return
        if args.groups:
            group_table(args.engine, args.suite, folder)
            return
        base = baseline_tree(args.baseline, folder / "baseline")
        cache = {"GRADER_CACHE_DIR": str(folder / "cache")}
        engine = submissions([args.engine.stem], folder / "engines")
        print(
            f"suite {args.suite}, engine {args.engine.name}, sandbox on, {os.cpu_count()} "
            "cores; CPU = user + system of the grading process and everything under it",
            flush=True,
        )
        runs = {
            f"peer: {args.baseline}": run(engine, args.suite, base),
            "this code, cache empty": run(engine, args.suite, env=cache),
            "this code, cache filled": run(engine, args.suite, env=cache),
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    _, peer_cpu, _ = next(iter(runs.values()))
    print(
        "| run | CPU s | ratio to the peer | wall s | points | games played | Elo (95%) "
        "| engine's CPU by kind | grading process s | processes under it s (their ratio to "
        "the peer's CPU) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, (reports, cpu, wall) in runs.items():
        report = reports[0]
        kinds = ", ".join(f"{k} {v:.1f}" for k, v in by_kind(report).items())
        print(
            f"| {name} | {cpu:.1f} | {cpu / peer_cpu:.2f}x | {wall:.1f} | "
            f"{report['score']:g}/{report['max_score']:g} | "
            f"{report['played']} of {report['games']} | {report['elo']} | {kinds} | "
            f"{report['grader_cpu']:.1f} | {report['under_cpu']:.1f} "
            f"({report['under_cpu'] / peer_cpu:.2f}x) |",
            flush=True,
        )
    scores = {reports[0]["score"] for reports, _, _ in runs.values()}
    print(f"points the same in every run: {'yes' if len(scores) == 1 else 'NO'}")


def points_table(suite: str, baseline: str, folder: Path) -> None:
    """Every sample engine's points with the baseline's code and with this code."""
    names = sample_engines()
    before, after = compare(names, suite, baseline, folder)
    print(
        f"| sample engine | points, {baseline} | points, this code | every verdict the same "
        "| games played, this code |"
    )
    print("|---|---|---|---|---|")
    for name, old, new in zip(names, before, after, strict=True):
        differ = differing(old, new)
        games = all(
            now is not None and was[1] == "play" and {was[2], now[2]} <= PATH_DEPENDENT
            for was, now in differ
        )
        same = "yes" if not differ else "games only (moves the clock chose)" if games else "NO"
        print(
            f"| {name} | {old['score']:g}/{old['max_score']:g} | "
            f"{new['score']:g}/{new['max_score']:g} | {same} | "
            f"{new['played']} of {new['games']} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
