"""The engine test suite: definitions read from data (grader/data/checkers/suite/), expanded into
tests, and the tests themselves (move generation, perft, search, timing, parallel, play).

A suite file is JSON: a name, the import limits, and groups of one kind each. Every group
expands into tests; a test is run by `run_test` in one fresh sandboxed engine process and
returns a `TestResult` with a verdict (grader/harness/verdicts.py), a score and what to tell
the student. The reference answers are computed in the same run with grader.checkers.
"""

from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from grader import data
from grader.checkers import Board, alphabeta, minimax
from grader.checkers.engine import INFINITY
from grader.checkers.variants import VARIANTS, diagnose_moves, diagnose_search
from grader.harness.sandbox import CallOutcome, EngineProcess
from grader.harness.verdicts import Verdict

SUITES = ("quick", "full")
KINDS = ("movegen", "perft", "search", "timing", "parallel", "play")
# Credit for each part of a search answer (grader/data/checkers/ASSIGNMENT.md says the same).
SEARCH_PARTS = {"value": 0.4, "move": 0.2, "bound": 0.1, "exact": 0.3}
# A search with a window (alpha, beta) has no best move to judge when its value is a bound.
WINDOW_PARTS = {"value": 0.5, "bound": 0.1, "exact": 0.4}
# Timing: full credit up to FULL_RATIO times the reference's CPU, none from ZERO_RATIO, the
# median of TIMING_RUNS runs, the credit in steps of TIMING_STEP of the points (the band that
# keeps run-to-run noise from moving the score). A suite file may set each per group.
FULL_RATIO, ZERO_RATIO, TIMING_RUNS, TIMING_STEP = 3.0, 30.0, 3, 0.25
# The parallel speedup is timed only on searches that take at least this much CPU.
SPEEDUP_MIN_CPU = 2.0


@dataclass(frozen=True)
class TestCase:
    """One test of a suite: a kind, its parameters, its points and its limits."""

    name: str
    kind: str
    points: float
    params: dict[str, Any]
    cpu: float
    wall: float
    visibility: str = "visible"

    @property
    def games(self) -> int:
        return 1 if self.kind == "play" else 0


@dataclass
class TestResult:
    """What one test gave: verdict, score, what to tell the student, and measurements."""

    name: str
    kind: str
    verdict: Verdict
    score: float
    max_score: float
    output: str
    cpu: float = 0.0
    wall: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    visibility: str = "visible"
    attempts: int = 1


@dataclass(frozen=True)
class Suite:
    name: str
    description: str
    start_cpu: float
    start_wall: float
    tests: tuple[TestCase, ...]
    ratings: dict[str, float]

    @property
    def max_score(self) -> float:
        return sum(t.points for t in self.tests)

    @property
    def game_count(self) -> int:
        return sum(t.games for t in self.tests)


@cache
def positions(path: Path | None = None) -> dict[str, dict[str, str]]:
    """The named positions of a suite (the shipped positions.json by default)."""
    table = json.loads(Path(path or data.suite_dir() / "positions.json").read_text(
        encoding="utf-8"))
    return {name: entry for name, entry in table.items() if not name.startswith("_")}


def load_suite(name_or_path: str | Path) -> Suite:
    """A suite by name (quick, full) or from a JSON file."""
    path = Path(name_or_path)
    if not path.suffix:
        path = data.suite_dir() / f"{name_or_path}.json"
    definition = json.loads(path.read_text(encoding="utf-8"))
    # An instructor's suite may name its own positions file, relative to the suite file.
    table = positions(path.parent / definition["positions"] if "positions" in definition
                      else None)
    tests: list[TestCase] = []
    for group in definition["groups"]:
        tests.extend(_expand(group, table))
    start = definition.get("start", {})
    from grader.harness.elo import LADDER_RATINGS
    return Suite(definition["name"], definition.get("description", ""),
                 float(start.get("cpu", 5)), float(start.get("wall", 10)), tuple(tests),
                 {**LADDER_RATINGS, **definition.get("ratings", {})})


def _expand(group: dict[str, Any], table: dict[str, dict[str, str]]) -> list[TestCase]:
    kind = group["kind"]
    if kind not in KINDS:
        raise ValueError(f"unknown test kind {kind!r}: expected one of {', '.join(KINDS)}")
    cpu, wall = float(group.get("cpu", 5)), float(group.get("wall", 10))
    points = float(group.get("points", 1))
    visibility = group.get("visibility", "visible")

    def case(name: str, **params: Any) -> TestCase:
        return TestCase(name, kind, points, params, cpu, wall, visibility)

    def fen(position: str) -> str:
        return table[position]["fen"]

    out = []
    if kind == "movegen":
        for p in group["positions"]:
            out.append(case(f"Move generation: {p}", position=p, fen=fen(p)))
    elif kind == "perft":
        for p in group["positions"]:
            out.append(case(f"Perft {group['depth']}: {p}", position=p, fen=fen(p),
                            depth=int(group["depth"])))
    elif kind == "search":
        windows = _windows(group)
        for p in group["positions"]:
            for d in group["depths"]:
                if not windows:
                    out.append(case(f"Search depth {d}: {p}", position=p, fen=fen(p),
                                    depth=int(d)))
                for window, text in windows:
                    out.append(case(f"Search depth {d}, {text}: {p}", position=p, fen=fen(p),
                                    depth=int(d), window_offsets=window))
    elif kind == "timing":
        for p in group["positions"]:
            out.append(case(f"Timing depths {'-'.join(map(str, group['depths']))}: {p}",
                            position=p, fen=fen(p), depths=[int(d) for d in group["depths"]],
                            full_ratio=float(group.get("full_ratio", FULL_RATIO)),
                            zero_ratio=float(group.get("zero_ratio", ZERO_RATIO)),
                            runs=int(group.get("runs", TIMING_RUNS)),
                            step=float(group.get("step", TIMING_STEP))))
    elif kind == "parallel":
        windows = _windows(group)
        for p in group["positions"]:
            common = {"position": p, "fen": fen(p), "depth": int(group["depth"]),
                      "workers": int(group.get("workers", 2)),
                      "min_cpu": float(group.get("min_cpu", SPEEDUP_MIN_CPU))}
            if not windows:
                out.append(case(f"Parallel search depth {group['depth']}: {p}", **common))
            for window, text in windows:
                out.append(case(f"Parallel search depth {group['depth']}, {text}: {p}",
                                window_offsets=window, **common))
    else:  # play
        from grader.checkers import load_ballots
        from grader.harness.referee import pick_ballots
        ballots = pick_ballots(load_ballots(), int(group.get("ballots", 1)),
                               int(group.get("seed", 0)))
        per_move = float(group.get("time_per_move", 0.5))
        margin = float(group.get("margin", 0.25))
        for opponent in group["opponents"]:
            for ballot, opening in ballots:
                for colour in ("black", "white"):
                    out.append(TestCase(
                        f"Game vs {opponent}, ballot {ballot}, you play {colour}", kind,
                        points, {"opponent": opponent, "ballot": ballot,
                                 "opening": list(opening), "colour": colour,
                                 "time_per_move": per_move, "margin": margin,
                                 "max_plies": int(group.get("max_plies", 200)),
                                 "seed": int(group.get("seed", 0))},
                        per_move + margin, 3 * (per_move + margin) + 1, visibility))
    return out


def _windows(group: dict[str, Any]) -> list[tuple[tuple[int, int], str]]:
    """A group's root windows, as offsets from the contract's value v, each with its words:
    "null_windows": [o, ...] is (v + o, v + o + 1); "windows": [[lo, hi], ...] is
    (v + lo, v + hi), a narrow window. None: the full window only."""
    out = [((int(o), int(o) + 1), f"null window at value{int(o):+d}")
           for o in group.get("null_windows", ())]
    for lo, hi in group.get("windows", ()):
        if int(lo) >= int(hi):
            raise ValueError(f"a window needs lo < hi, got [{lo}, {hi}]")
        out.append(((int(lo), int(hi)), f"window (value{int(lo):+d}, value{int(hi):+d})"))
    return out


# -- running one test -----------------------------------------------------------------------

Progress = Callable[[str, int, int, str], None]


def run_test(test: TestCase, process: EngineProcess) -> TestResult:
    """Run `test` on a started engine process."""
    runner = {"movegen": _movegen, "perft": _perft, "search": _search, "timing": _timing,
              "parallel": _parallel}
    if test.kind == "play":
        from grader.harness.referee import play_test
        return play_test(test, process)
    return runner[test.kind](test, process)


def result_of(test: TestCase, verdict: Verdict, output: str, score: float = 0.0,
              cpu: float = 0.0, wall: float = 0.0, **extra: Any) -> TestResult:
    return TestResult(test.name, test.kind, verdict, round(score, 4), test.points, output,
                      cpu, wall, extra, test.visibility)


def failure(test: TestCase, outcome: CallOutcome, what: str) -> TestResult:
    """The result of a call that ended in a verdict instead of an answer."""
    assert outcome.verdict is not None
    lines = [f"{what}: {outcome.verdict.value} ({outcome.detail})" if outcome.detail
             else f"{what}: {outcome.verdict.value}"]
    if outcome.traceback:
        lines += ["", "The traceback's last lines:", outcome.traceback]
    return result_of(test, outcome.verdict, "\n".join(lines), cpu=outcome.cpu,
                     wall=outcome.wall)


def _moves_list(value: Any) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(m, str) for m in value):
        return value
    return None


def _compare_moves(fen: str, got: list[str]) -> tuple[bool, str, dict[str, str]]:
    """Right or not, what to say, and {"diagnosis": code} when a misconception explains it."""
    expected = {m.pdn() for m in Board(fen).generate_legal_moves()}
    stripped = [m.strip() for m in got]
    missing = sorted(expected - set(stripped), key=_numbers)
    extra = sorted(set(stripped) - expected, key=_numbers)
    twice = sorted({m for m in stripped if stripped.count(m) > 1}, key=_numbers)
    if not (missing or extra or twice):
        return True, f"{len(expected)} moves, all right", {}
    parts = []
    if missing:
        parts.append(f"missing {', '.join(missing)}")
    if extra:
        parts.append(f"not legal here {', '.join(_short(e) for e in extra)}")
    if twice:
        parts.append(f"listed more than once {', '.join(twice)}")
    # The FEN on a line of its own, as `grader checkers moves --fen` takes it.
    lines = ["; ".join(parts), f"position: {fen}"]
    variant = diagnose_moves(fen, stripped)
    if variant is None:
        return False, "\n".join(lines), {}
    lines.append(f"What it looks like: {variant.sentence}")
    return False, "\n".join(lines), {"diagnosis": variant.code}


def _numbers(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.replace("x", "-").split("-"))
    except ValueError:
        return (10**6,)


def _short(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _movegen(test: TestCase, process: EngineProcess) -> TestResult:
    fen = test.params["fen"]
    outcome = process.call("legal_moves", [fen], test.cpu, test.wall)
    if not outcome.answered:
        return failure(test, outcome, "legal_moves")
    moves = _moves_list(outcome.result)
    if moves is None:
        return result_of(test, Verdict.PROTOCOL,
                         f"legal_moves must return a list of strings, got {_type(outcome.result)}",
                         cpu=outcome.cpu, wall=outcome.wall)
    ok, text, diagnosis = _compare_moves(fen, moves)
    return result_of(test, Verdict.PASSED if ok else Verdict.WA, text,
                     test.points if ok else 0.0, outcome.cpu, outcome.wall, **diagnosis)


def _type(value: Any) -> str:
    text = type(value).__name__
    return f"{text} {_short(str(value), 40)}"


def _perft(test: TestCase, process: EngineProcess) -> TestResult:
    """Walk the tree to `depth`, asking the engine's legal_moves at every inner node."""
    board = Board(test.params["fen"])
    depth = test.params["depth"]
    cpu = wall = 0.0
    calls = 0
    deadline = time.monotonic() + test.wall * 10

    def walk(d: int) -> tuple[int, TestResult | None]:
        nonlocal cpu, wall, calls
        if d == 0:
            return 1, None
        fen = board.fen()
        outcome = process.call("legal_moves", [fen], test.cpu, test.wall)
        calls += 1
        cpu += outcome.cpu
        wall += outcome.wall
        if not outcome.answered:
            return 0, failure(test, outcome, f"legal_moves on {fen}")
        moves = _moves_list(outcome.result)
        if moves is None:
            return 0, result_of(test, Verdict.PROTOCOL, "legal_moves must return a list of "
                                f"strings, got {_type(outcome.result)}")
        ok, text, diagnosis = _compare_moves(fen, moves)
        if not ok:
            return 0, result_of(test, Verdict.WA, f"at depth {depth - d} of the walk, {text}",
                                **diagnosis)
        if time.monotonic() > deadline:
            return 0, result_of(test, Verdict.TLE_WALL, "the perft walk took too long")
        total = 0
        for move in board.generate_legal_moves():
            board.push(move)
            try:
                count, bad = walk(d - 1)
            finally:
                board.pop()
            if bad:
                return 0, bad
            total += count
        return total, None

    count, bad = walk(depth)
    if bad:
        bad.cpu, bad.wall = cpu, wall
        return bad
    return result_of(test, Verdict.PASSED, f"perft({depth}) = {count}, the same as the "
                     f"reference ({calls} calls to legal_moves)", test.points, cpu, wall,
                     perft=count)


@dataclass(frozen=True)
class Reference:
    """The reference's answers for one position, depth and root window."""

    value: int
    best_moves: tuple[str, ...]
    first_move: str | None
    leaves_alphabeta: int
    leaves_minimax: int
    cpu: float
    alpha: int = -INFINITY
    beta: int = INFINITY

    @property
    def windowed(self) -> bool:
        return (self.alpha, self.beta) != (-INFINITY, INFINITY)


@cache
def reference(fen: str, depth: int, alpha: int = -INFINITY, beta: int = INFINITY,
              count_minimax: bool = True) -> Reference:
    """The reference's answers; without `count_minimax` (a deep parallel test) minimax's leaf
    count is not computed (0) and only the value and the best moves are meant to be used."""
    board = Board(fen)
    start = time.process_time()
    ab = alphabeta(board, depth, alpha=alpha, beta=beta)
    cpu = time.process_time() - start
    mm = minimax(board, depth) if count_minimax else None
    leaves_minimax = mm.leaves if mm else 0
    if (alpha, beta) != (-INFINITY, INFINITY):  # a bound: no best move to compare
        return Reference(ab.value, (), None, ab.leaves, leaves_minimax, cpu, alpha, beta)
    assert mm is None or ab.value == mm.value, \
        "alpha-beta and minimax disagree: a bug in grader.checkers"
    best: list[str] = []
    if depth > 0:
        for move in board.generate_legal_moves():
            board.push(move)
            try:
                value = -_child_value(board, depth - 1)
            finally:
                board.pop()
            if value == ab.value:
                best.append(move.pdn())
    first = ab.best_move.pdn() if ab.best_move else None
    return Reference(ab.value, tuple(best) or ((first,) if first else ()), first, ab.leaves,
                     leaves_minimax, cpu)


def _child_value(board: Board, depth: int) -> int:
    """A root move's value seen from the child, with win scores one ply further away."""
    from grader.checkers.engine import WIN
    value = alphabeta(board, depth).value
    if value > WIN - 1000:
        return value - 1
    if value < -(WIN - 1000):
        return value + 1
    return value


@dataclass(frozen=True)
class SearchCheck:
    """A search answer judged: verdict, fraction of the credit, which parts are right, why."""

    verdict: Verdict
    credit: float
    parts: dict[str, bool]
    lines: list[str]
    diagnosis: str | None = None  # the misconception code the answer matches


def check_search(answer: Any, ref: Reference, fen: str = "", depth: int = 0) -> SearchCheck:
    """Judge one search answer part by part (SEARCH_PARTS, or WINDOW_PARTS with a window);
    a wrong one is compared with the misconception variants when `fen` is given."""
    if not isinstance(answer, dict):
        return SearchCheck(Verdict.PROTOCOL, 0.0, {},
                           [f"search must return a dict, got {_type(answer)}"])
    value, move, leaves = answer.get("value"), answer.get("move"), answer.get("leaves")
    problems = []
    if not isinstance(value, int) or isinstance(value, bool):
        problems.append(f"'value' must be an int, got {_type(value)}")
    if move is not None and not isinstance(move, str):
        problems.append(f"'move' must be a string or None, got {_type(move)}")
    if not isinstance(leaves, int) or isinstance(leaves, bool):
        problems.append(f"'leaves' must be an int, got {_type(leaves)}")
    if problems:
        return SearchCheck(Verdict.PROTOCOL, 0.0, {}, problems)
    parts = {
        "value": value == ref.value,
        "move": (move is None and not ref.best_moves) or
                (isinstance(move, str) and move.strip() in ref.best_moves),
        "bound": 0 < leaves <= ref.leaves_minimax,
        "exact": leaves == ref.leaves_alphabeta,
    }
    weights = SEARCH_PARTS
    best = ", ".join(ref.best_moves) or "None (no legal move)"
    lines = [f"value {value}: {'right' if parts['value'] else f'expected {ref.value}'}"]
    if ref.windowed:
        weights = WINDOW_PARTS
        del parts["move"]
        if not parts["value"]:
            lines[0] += " (fail-soft: the best value found, even outside the window)"
    else:
        lines.append(f"move {move}: "
                     f"{'one of the best' if parts['move'] else f'expected one of {best}'}")
    lines += [
        f"leaves {leaves}: " + ("at most minimax's" if parts["bound"] else
                                f"must be between 1 and minimax's {ref.leaves_minimax}"),
        f"leaves {leaves}: " + ("exactly alpha-beta's in canonical order" if parts["exact"]
                                else f"expected {ref.leaves_alphabeta} (alpha-beta in "
                                     f"canonical order; minimax evaluates {ref.leaves_minimax})"),
    ]
    credit = sum(weights[k] for k, ok in parts.items() if ok)
    passed = all(parts.values())
    diagnosis = None
    if not passed and fen:
        variant = diagnose_search(fen, depth, value, leaves, ref.alpha, ref.beta,
                                  ref.leaves_minimax)
        if variant is not None:
            diagnosis = variant.code
            lines.append(f"What it looks like: {variant.sentence}")
    return SearchCheck(Verdict.PASSED if passed else Verdict.WA, credit, parts, lines, diagnosis)


def _window(test: TestCase) -> tuple[int, int]:
    """The test's root window: the full one, or a null or narrow one around the value."""
    offsets = test.params.get("window_offsets")
    if offsets is None:
        return -INFINITY, INFINITY
    value = reference(test.params["fen"], test.params["depth"], count_minimax=False).value
    return value + offsets[0], value + offsets[1]


def _search(test: TestCase, process: EngineProcess) -> TestResult:
    fen, depth = test.params["fen"], test.params["depth"]
    alpha, beta = _window(test)
    ref = reference(fen, depth, alpha, beta)
    args: list[Any] = [fen, depth]
    if ref.windowed:
        args += [alpha, beta]
        if 0 <= process.arity.get("search", -1) < 4:
            return result_of(test, Verdict.PROTOCOL, f"search({fen!r}, {depth}, {alpha}, "
                             f"{beta}): your search takes {process.arity['search']} arguments; "
                             "the contract is search(fen, depth, alpha=-INF, beta=INF)")
    outcome = process.call("search", args, test.cpu, test.wall)
    if not outcome.answered:
        return failure(test, outcome, "search")
    check = check_search(outcome.result, ref, fen, depth)
    call = ", ".join(repr(a) for a in args)
    extra: dict[str, Any] = {"parts": check.parts}
    if check.diagnosis:
        extra["diagnosis"] = check.diagnosis
    return result_of(test, check.verdict, "\n".join([f"search({call}):", *check.lines]),
                     check.credit * test.points, outcome.cpu, outcome.wall, **extra)


def timing_credit(ratio: float, full: float, zero: float, step: float) -> float:
    """The fraction of a timing test's points for a CPU ratio: 1 up to `full`, 0 from `zero`,
    linear in the ratio's logarithm between, rounded to the nearest `step`."""
    if ratio <= full:
        return 1.0
    if ratio >= zero:
        return 0.0
    fraction = (math.log(zero) - math.log(ratio)) / (math.log(zero) - math.log(full))
    return round(fraction / step) * step if step > 0 else fraction


def _timing(test: TestCase, process: EngineProcess) -> TestResult:
    """The engine's CPU time against the reference's, same position, same run: the median of
    several runs of each, at each depth."""
    fen = test.params["fen"]
    runs = max(1, test.params.get("runs", TIMING_RUNS))
    mine = theirs = wall = 0.0
    rows = []
    for depth in test.params["depths"]:
        ref_cpu = _reference_cpu(fen, depth, runs)
        cpus, walls = [], []
        for _ in range(runs):
            outcome = process.call("search", [fen, depth], test.cpu, test.wall)
            if not outcome.answered:
                return failure(test, outcome, f"search at depth {depth}")
            check = check_search(outcome.result, reference(fen, depth), fen, depth)
            if check.verdict is not Verdict.PASSED:
                return result_of(test, check.verdict, "\n".join(
                    [f"a wrong answer at depth {depth} gets no timing credit:", *check.lines]),
                    cpu=outcome.cpu, wall=outcome.wall,
                    **({"diagnosis": check.diagnosis} if check.diagnosis else {}))
            cpus.append(outcome.cpu)
            walls.append(outcome.wall)
        cpu = statistics.median(cpus)
        mine += cpu
        theirs += ref_cpu
        wall += sum(walls)
        rows.append(f"depth {depth}: you {cpu:.3f} s CPU, reference {ref_cpu:.3f} s "
                    f"(medians of {runs} runs)")
    ratio = mine / theirs if theirs > 0 else math.inf
    full, zero = test.params["full_ratio"], test.params["zero_ratio"]
    fraction = timing_credit(ratio, full, zero, test.params.get("step", TIMING_STEP))
    scale = f"full credit up to {full:g} times the reference's CPU, none from {zero:g}"
    if fraction < 1:
        head = (f"passed with reduced timing credit: {fraction * test.points:g} of "
                f"{test.points:g} points, your search takes {ratio:.1f} times the reference's "
                f"CPU ({scale})")
    else:
        head = f"full timing credit: ratio {ratio:.2f} ({scale})"
    return result_of(test, Verdict.PASSED, "\n".join([head, *rows]), fraction * test.points,
                     mine, wall, ratio=round(ratio, 3), reference_cpu=round(theirs, 4),
                     reduced=fraction < 1)


def _reference_cpu(fen: str, depth: int, runs: int = TIMING_RUNS,
                   at_least: float = 0.05) -> float:
    """The reference's CPU seconds for one fixed-depth search: the median of `runs` timings,
    each repeated until measurable."""
    board = Board(fen)
    timings = []
    for _ in range(runs):
        repeats, start = 0, time.process_time()
        while True:
            alphabeta(board, depth)
            repeats += 1
            spent = time.process_time() - start
            if spent >= at_least or repeats >= 50:
                timings.append(spent / repeats)
                break
    return statistics.median(timings)


def _parallel(test: TestCase, process: EngineProcess) -> TestResult:
    """search_parallel's answer equals the reference (value and move); its wall-clock speedup
    over the engine's own search is measured and shown when that search takes at least
    `min_cpu` seconds of CPU (shorter ones are too noisy to time); it earns no points."""
    fen, depth, workers = test.params["fen"], test.params["depth"], test.params["workers"]
    min_cpu = test.params.get("min_cpu", SPEEDUP_MIN_CPU)
    if "search_parallel" not in process.functions:
        return result_of(test, Verdict.PASSED, "search_parallel is not defined (optional)",
                         test.points, implemented=False)
    if "window_offsets" in test.params:
        return _parallel_window(test, process)
    ref = reference(fen, depth, count_minimax=False)
    serial = process.call("search", [fen, depth], test.cpu, test.wall)
    if not serial.answered:
        return failure(test, serial, "search")
    outcome = process.call("search_parallel", [fen, depth, workers], test.cpu, test.wall)
    if not outcome.answered:
        return failure(test, outcome, "search_parallel")
    check = check_search(outcome.result, ref)
    verdict, lines = check.verdict, check.lines
    # The leaves of a root-parallel search are not alpha-beta's: only value and move count.
    if verdict is Verdict.WA and check.parts["value"] and check.parts["move"]:
        verdict = Verdict.PASSED
    extra: dict[str, Any] = {"implemented": True}
    if serial.cpu >= min_cpu:
        speedup = serial.wall / outcome.wall if outcome.wall > 0 else 0.0
        extra["speedup"] = round(speedup, 3)
        timing = (f"wall clock: search {serial.wall:.3f} s, search_parallel "
                  f"{outcome.wall:.3f} s with {workers} workers: speedup {speedup:.2f}")
    else:
        timing = (f"speedup not measured: your search took {serial.cpu:.2f} s of CPU here, "
                  f"under the {min_cpu:g} s a search needs to be timed reliably")
    text = "\n".join([*lines[:2], timing])
    return result_of(test, verdict, text, test.points if verdict is Verdict.PASSED else 0.0,
                     outcome.cpu, outcome.wall, **extra)


def _parallel_window(test: TestCase, process: EngineProcess) -> TestResult:
    """search_parallel with a null window: its value is the best of the root moves' fail-soft
    values, each searched with the root's window (grader.checkers.root_parallel)."""
    from grader.checkers.parallel import root_parallel

    fen, depth, workers = test.params["fen"], test.params["depth"], test.params["workers"]
    alpha, beta = _window(test)
    call = f"search_parallel({fen!r}, {depth}, {workers}, {alpha}, {beta})"
    if 0 <= process.arity.get("search_parallel", -1) < 5:
        return result_of(test, Verdict.PROTOCOL, f"{call}: your search_parallel takes "
                         f"{process.arity['search_parallel']} arguments; the contract is "
                         "search_parallel(fen, depth, workers, alpha=-INF, beta=INF)")
    expected = root_parallel(Board(fen), depth, "split", alpha=alpha, beta=beta).value
    outcome = process.call("search_parallel", [fen, depth, workers, alpha, beta], test.cpu,
                           test.wall)
    if not outcome.answered:
        return failure(test, outcome, "search_parallel")
    answer = outcome.result
    value = answer.get("value") if isinstance(answer, dict) else None
    if not isinstance(value, int) or isinstance(value, bool):
        return result_of(test, Verdict.PROTOCOL, f"{call}: must return a dict with an int "
                         f"'value', got {_type(answer)}", cpu=outcome.cpu, wall=outcome.wall)
    right = value == expected
    text = (f"{call}:\nvalue {value}: " + ("right" if right else
            f"expected {expected} (fail-soft: the best of the root moves' values, each searched "
            f"with the window ({-beta}, {-alpha}) seen from the move)"))
    extra: dict[str, Any] = {}
    if not right:
        for variant in VARIANTS.values():  # the first whose value is the student's, not ours
            board = variant.board(fen)
            if root_parallel(board, depth, "split", alpha=alpha, beta=beta,
                             rules=variant.rules).value == value:
                text += f"\nWhat it looks like: {variant.sentence}"
                extra["diagnosis"] = variant.code
                break
    return result_of(test, Verdict.PASSED if right else Verdict.WA, text,
                     test.points if right else 0.0, outcome.cpu, outcome.wall, **extra)
