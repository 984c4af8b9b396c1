"""Grading one engine (or several at once, one slot per core): every test of a suite in the
sandbox, internal errors retried, and a Report of it all.

One engine process serves the tests of a suite group, one after the other: started once, it
answers the next test only while every test it served passed. Any other verdict (a crash, a
timeout, a protocol fault, a wrong answer, an internal error) is charged to the test that caused
it, and the process goes with it: the next test gets a fresh one, so no fault reaches another
test's verdict. The reference's answers and timings come from `References`, kept per suite and
machine in `cache` (a folder) when one is given.
"""

# Whole: one engine's grading loop, its retries and its Report share one process.

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import platform
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.harness.cases import TestCase, TestResult, result_of
from grader.harness.contention import BUSY_SHARE, busy
from grader.harness.diagnosis import Explanation, explain
from grader.harness.elo import EloEstimate, estimate
from grader.harness.ladder import KeptMatch, Match, play_matches
from grader.harness.references import References
from grader.harness.sandbox import (
    EngineProcess,
    GradingSlot,
    SandboxConfig,
    SandboxError,
    SubmissionError,
    claim_slot,
    machine_window,
    prepare_submission,
)
from grader.harness.suite import Suite, load_suite, run_test
from grader.harness.testkinds import TEST_KINDS
from grader.harness.verdicts import Verdict

IE_ATTEMPTS = 3  # an internal error is retried this many times in all before the run gives up
# A wall-clock timeout of a process that used under this share of its CPU limit was not
# computing: it waited, by itself (a sleep, a blocking read) or because the machine stalled it.
IDLE_SHARE = 0.5

# progress(kind, done, total, label): kind "test" or "game"; done counts finished ones.
Progress = Callable[[str, int, int, str], None]
# Called once with the results of a suite's leading correctness tests (their kinds'
# `correctness`), as the first test of another kind starts: the first verdict.
FirstVerdict = Callable[[list[TestResult]], None]


@dataclass
class Report:
    """A graded run: the suite, the tests' results, the engine's Elo, how it was run."""

    suite: str
    submission: str
    tests: list[TestResult] = field(default_factory=list)
    sandbox: bool = True
    started: float = 0.0
    elapsed: float = 0.0
    engine_functions: tuple[str, ...] = ()
    engine_python: str = ""
    slot: int = 0
    error: str = ""  # why the run could not grade at all (a bad upload)
    elo: EloEstimate | None = None
    reference_cpu: float = 0.0  # the reference's CPU seconds in the timing tests
    reference_timed_at: float | None = None  # when they were first measured (epoch seconds)
    references_computed: int = 0  # reference answers and timings this run computed, not read
    engine_starts: int = 0  # engine processes started
    # the games by opponent, and why each ended (kept: played by an earlier run, `Kept`)
    matches: list[Match | KeptMatch] = field(default_factory=list)
    lanes: int = 1  # games played at once (grading slots held for the games)
    # The fewest known mistakes that explain the diagnosed failures (grader/harness/diagnosis.py).
    explanation: Explanation = field(default_factory=Explanation)
    suite_version: str = ""  # `Suite.version`: what the stored result records of its suite
    deferrals: int = 0  # the times this upload's timing was deferred before this run (`Kept`)
    # The tests after the first verdict were left for another run (`grade_engine(first_only)`):
    # the report holds the leading correctness tests' results alone.
    rest: bool = False

    @property
    def score(self) -> float:
        return round(sum(t.score for t in self.tests), 4)

    @property
    def max_score(self) -> float:
        return round(sum(t.max_score for t in self.tests), 4)

    @property
    def complete(self) -> bool:
        """Every test got a verdict that is the engine's (no internal error left)."""
        return not self.error.startswith("IE") and all(
            t.verdict is not Verdict.IE for t in self.tests
        )

    @property
    def games(self) -> list[TestResult]:
        return [t for t in self.tests if t.kind == "play"]

    @property
    def deferred(self) -> list[TestResult]:
        """The timing tests deferred because the machine was busy (`defer_busy`)."""
        return [t for t in self.tests if t.extra.get("deferred")]


@dataclass
class Kept:
    """What a run whose timing was deferred gave, kept for the run that times it again:
    every other test's result and the games' matches (that run skips them), and how many
    times the timing was deferred so far."""

    tests: list[TestResult]
    matches: list[dict[str, Any]] = field(default_factory=list)
    deferrals: int = 1
    engine_functions: tuple[str, ...] = ()
    engine_python: str = ""

    @classmethod
    def of(cls, report: Report, deferral: bool = True) -> Kept:
        """What ``report`` gave, for the run after it: a timing's deferral (counted), or the
        rest of the suite after a first verdict (``deferral=False``: not counted)."""
        return cls(
            [t for t in report.tests if not t.extra.get("deferred")],
            [m.summary() for m in report.matches],
            report.deferrals + (1 if deferral else 0),
            report.engine_functions,
            report.engine_python,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "tests": [t.to_dict() for t in self.tests],
            "matches": self.matches,
            "deferrals": self.deferrals,
            "engine_functions": list(self.engine_functions),
            "engine_python": self.engine_python,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Kept:
        return cls(
            [TestResult.from_dict(t) for t in data["tests"]],
            list(data.get("matches", [])),
            int(data.get("deferrals", 1)),
            tuple(data.get("engine_functions", ())),
            str(data.get("engine_python", "")),
        )


def defer_busy(result: TestResult, below: float = BUSY_SHARE) -> TestResult:
    """A timing result measured on a busy machine (the reference's share of a core, its
    `extra["share"]`, under `below`: contention.py), deferred: no timing verdict yet and no
    points, to be timed again. Any other result as it is."""
    share = result.extra.get("share")
    if result.kind != "timing" or share is None or not busy(share, below):
        return result
    if result.verdict is not Verdict.PASSED:  # a wrong or failed search: no timing to defer
        return result
    return TestResult(
        result.name,
        result.kind,
        Verdict.PASSED,
        0.0,
        result.max_score,
        "timing deferred: the machine was busy "
        f"({result.extra.get('machine', 'the reference got less than a core')}); "
        "it will be timed again",
        result.cpu,
        result.wall,
        {
            "deferred": True,
            "busy": True,
            "share": result.extra.get("share"),
            "machine": result.extra.get("machine"),
        },
        result.visibility,
        result.attempts,
    )


def judge_machine(result: TestResult, below: float) -> None:
    """Judge a timing result's machine by `below` (the threshold the run defers by):
    `extra["busy"]`, and where the reference got less than `below` of a core, a line saying
    the machine was busy. Any other result is left as it is."""
    share = result.extra.get("share")
    if result.kind != "timing" or share is None:
        return
    result.extra["busy"] = busy(share, below)
    if result.extra["busy"] and result.verdict is Verdict.PASSED:
        result.output += (
            f"\nThe machine was busy while timing ({result.extra.get('machine')}); the "
            "reference was timed beside each of your runs, so both met the same machine."
        )


def retimed_words(deferrals: int, still_busy: bool) -> str:
    """The line a retimed timing test adds: how often it was deferred, and whether the machine
    was still busy when this run timed it."""
    times = "once" if deferrals == 1 else f"{deferrals} times"
    if still_busy:
        how = "this run timed it anyway, the machine still busy"
    else:
        how = "this run timed it, the machine no longer busy"
    return f"\nIts timing was deferred {times} for a busy machine; {how}."


def grade_engine(
    submission: Path,
    suite: Suite | str,
    config: SandboxConfig | None = None,
    progress: Progress | None = None,
    slots: int | None = None,
    budget: float | None = None,
    cache: Path | None = None,
    first: FirstVerdict | None = None,
    defer_below: float = 0.0,
    kept: Kept | None = None,
    busy_below: float = 0.0,
    first_only: bool = False,
) -> Report:
    """Grade one submission with `suite` in a slot of its own; with `budget` (seconds of the
    worker's time, counted from when the slot is held) the tests left when it is spent are
    not run and charged as TLE_WALL. The reference's work is read from and kept in `cache` (a
    folder); the reference is timed beside the engine's timed runs. `first` hears the
    first verdict (`FirstVerdict`). A timing test measured while the reference got less than
    `defer_below` of a core (0: never) is deferred (`defer_busy`, `Report.deferred`); `kept`, what
    an earlier run whose timing was deferred gave, is taken for every test it holds, and those
    tests not run. Whether the machine was busy while a timing ran (its words, a retime's
    `retimed_words`, `judge_machine`) is judged by `defer_below`, or where this run may not
    defer by `busy_below` (0: contention's `BUSY_SHARE`). With `first_only`, the run ends at the
    first verdict: the tests after the leading correctness tests are left (`Report.rest`) for a
    run given `Kept.of(report, deferral=False)`, unless the engine did not start (every test is
    then charged at once)."""
    config = config or SandboxConfig()
    suite = load_suite(suite) if isinstance(suite, str) else suite
    config.check()
    refs = References.for_suite(suite.name, suite.tests, cache)
    with claim_slot(config, slots) as slot:
        deadline = None if budget is None else time.monotonic() + budget
        report = _grade_in(
            slot,
            Path(submission),
            suite,
            config,
            progress,
            deadline,
            refs,
            slots,
            first,
            kept,
            first_only,
        )
    # Only what this run measured is judged: a test kept from the deferred run keeps its words.
    given = {t.name for t in kept.tests} if kept is not None else set()
    judge = defer_below or busy_below or BUSY_SHARE
    for test in report.tests:
        if test.name not in given:
            judge_machine(test, judge)
    if defer_below > 0:
        report.tests = [t if t.name in given else defer_busy(t, defer_below) for t in report.tests]
    if kept is not None and kept.deferrals:  # a retime: each timing says how the machine was
        for test in report.tests:
            if test.name not in given and "busy" in test.extra and not test.extra.get("deferred"):
                test.output += retimed_words(kept.deferrals, test.extra["busy"])
    refs.save()
    return report


def _grade_in(
    slot: GradingSlot,
    submission: Path,
    suite: Suite,
    config: SandboxConfig,
    progress: Progress | None,
    deadline: float | None,
    refs: References,
    slots: int | None = None,
    first: FirstVerdict | None = None,
    kept: Kept | None = None,
    first_only: bool = False,
) -> Report:
    report = Report(
        suite.name,
        submission.name,
        sandbox=config.sandbox,
        started=time.time(),
        slot=slot.number,
        suite_version=suite.version,
    )
    start = time.monotonic()
    try:
        folder = prepare_submission(submission, slot.workdir / "submission")
    except SubmissionError as exc:
        report.error = str(exc)
        report.tests = [result_of(t, Verdict.PROTOCOL, f"not graded: {exc}") for t in suite.tests]
        report.elapsed = time.monotonic() - start
        return report
    start_failure: TestResult | None = None  # an engine that cannot be imported fails alike
    total = len(suite.tests)
    engine = _Engine(slot, folder, suite, config, report)
    tests = list(suite.tests)
    earlier = {t.name: t for t in kept.tests} if kept is not None else {}
    if kept is not None:
        report.deferrals = kept.deferrals
        report.matches.extend(KeptMatch(m) for m in kept.matches)
        report.engine_functions, report.engine_python = kept.engine_functions, kept.engine_python
    try:
        index = 0
        while index < total:
            test = tests[index]
            if test.name in earlier:  # given by the run whose timing was deferred
                report.tests.append(earlier[test.name])
                index += 1
                continue
            if (first is not None or first_only) and not TEST_KINDS[test.kind].correctness:
                leading = index > 0 and all(TEST_KINDS[t.kind].correctness for t in tests[:index])
                if leading and first is not None:
                    first(list(report.tests))
                first = None  # once, and only after leading correctness tests
                if leading and first_only and start_failure is None:
                    report.rest = True  # the rest is another run's
                    break
                first_only = False
            if test.kind == "play":  # the group's games, as matches (ladder.py)
                group = [t for t in tests[index:] if t.group == test.group]
                if start_failure is None and (deadline is None or time.monotonic() <= deadline):
                    engine.close()  # the group's lanes start their own processes
                    results = _play_group(
                        group, engine, submission, refs, deadline, slots, report, progress
                    )
                else:
                    results = [
                        _next_result(t, engine, refs, start_failure, deadline) for t in group
                    ]
                report.tests.extend(results)
                index += len(group)
                continue
            if progress:
                progress("test", index, total, test.name)
            result = _next_result(test, engine, refs, start_failure, deadline)
            if result.extra.get("at_start"):
                start_failure = result
            report.tests.append(result)
            index += 1
    finally:
        engine.close()
    if report.rest:
        report.elapsed = time.monotonic() - start
        return report
    if progress:
        progress("test", total, total, "done")
    _conclude(report, suite, refs)
    report.elapsed = time.monotonic() - start
    return report


def _next_result(
    test: TestCase,
    engine: _Engine,
    refs: References,
    start_failure: TestResult | None,
    deadline: float | None,
) -> TestResult:
    """The test's result: run, or charged without running (the worker's time is spent, or the
    engine did not start)."""
    if deadline is not None and time.monotonic() > deadline:
        return result_of(
            test,
            Verdict.TLE_WALL,
            "not run: grading this engine used all the worker time one upload may have",
        )
    if start_failure is not None:
        return result_of(
            test,
            start_failure.verdict,
            "the engine did not start (see "
            f"the first test): {start_failure.output.splitlines()[0]}",
        )
    return _attempts(test, engine, refs, deadline)


def _play_group(
    group: list[TestCase],
    engine: _Engine,
    submission: Path,
    refs: References,
    deadline: float | None,
    slots: int | None,
    report: Report,
    progress: Progress | None,
) -> list[TestResult]:
    """A play group's games as matches (ladder.py): on the runner's own slot, and on as many
    more free grading slots as there are matches beyond the first (each game its own engine
    process, in its own sandbox); none free, one game at a time."""
    opponents = len({t.params.get("opponent") for t in group})
    lanes = [engine]
    done_count = [0]
    with contextlib.ExitStack() as stack:
        for _ in range(opponents - 1):
            try:
                extra = stack.enter_context(claim_slot(engine.config, slots, wait=0))
            except SandboxError:
                break  # every other slot is busy: the games share the ones held
            try:
                folder = prepare_submission(submission, extra.workdir / "submission")
            except SubmissionError:
                break
            lane = _Engine(extra, folder, engine.suite, engine.config, report)
            stack.callback(lane.close)
            lanes.append(lane)
        report.lanes = max(report.lanes, len(lanes))

        def play(test: TestCase, lane: int) -> TestResult:
            return _next_result(test, lanes[lane], refs, None, deadline)

        def done(result: TestResult) -> None:
            done_count[0] += 1
            if progress:
                progress("game", done_count[0], len(group), result.name)

        def close() -> None:
            for lane in lanes:
                lane.close()

        results, matches = play_matches(group, play, len(lanes), done, close)
    report.matches.extend(matches)
    return results


def _conclude(report: Report, suite: Suite, refs: References) -> None:
    """What the whole run says: the Elo, the reference's timings, the explanation."""
    # Rated: the games the engine played, i.e. made at least one move in (one that forfeited
    # before its first move played no game, and gets no "Elo < 0").
    report.elo = estimate(
        [
            (suite.ratings.get(g.extra.get("opponent", ""), 0.0), g.extra["points"])
            for g in report.games
            if "points" in g.extra and g.extra.get("engine_moves", 1) > 0
        ]
    )
    report.reference_cpu = sum(t.extra.get("reference_cpu", 0.0) for t in report.tests)
    report.reference_timed_at = refs.timed_at
    report.references_computed = refs.computed
    report.explanation = explain(suite.tests, report.tests)


def _attempts(
    test: TestCase, engine: _Engine, refs: References, deadline: float | None = None
) -> TestResult:
    """Run a test; an internal error is retried (it is never charged to the engine), and so,
    once, is a wall-clock timeout of a process that was not computing (`idle_timeout`): a
    machine that stalled the engine's process is not the engine's fault, and an engine that
    waits by itself waits again, and is charged then. The run after a timeout starts a fresh
    process (a failed test's process is not kept)."""
    result = _runs(test, engine, refs, deadline)
    if not idle_timeout(test, result) or (deadline is not None and time.monotonic() > deadline):
        return result
    again = _runs(test, engine, refs, deadline)
    again.attempts += result.attempts
    first = (
        f"The first run of this test timed out on the wall clock after {result.wall:.1f} s "
        f"having used {result.cpu:.2f} s of CPU, so it was run again"
    )
    if again.verdict is Verdict.TLE_WALL:
        again.output += (
            f"\n{first}, and timed out again: waiting without computing (a sleep, a blocking "
            "read, a lock) is charged to the engine."
        )
    else:
        again.output += f"\n{first}; this verdict is the second run's."
    return again


def idle_timeout(test: TestCase, result: TestResult) -> bool:
    """A wall-clock timeout whose process used under `IDLE_SHARE` of the call's CPU limit."""
    return result.verdict is Verdict.TLE_WALL and result.cpu < IDLE_SHARE * test.cpu


def _runs(test: TestCase, engine: _Engine, refs: References, deadline: float | None) -> TestResult:
    """Run a test until it gives a verdict other than IE, at most IE_ATTEMPTS times."""
    result: TestResult | None = None
    for attempt in range(1, IE_ATTEMPTS + 1):
        result = engine.run(test, refs)
        result.attempts = attempt
        if result.verdict is not Verdict.IE or (
            deadline is not None and time.monotonic() > deadline
        ):
            return result
    assert result is not None
    result.output = (
        "internal error of the grader, not of your engine; it was retried "
        f"{IE_ATTEMPTS} times and will be re-graded: {result.output}"
    )
    return result


# The verdicts after which the process that gave them serves the next test of its group: every
# answer right, so nothing the engine did (a crash, a timeout, a protocol fault, or a wrong
# answer from a state an earlier call left behind) can reach the next test. Any other verdict
# ends it.
KEEPS_PROCESS = frozenset({Verdict.PASSED})
_STARTS = threading.Lock()  # the play group's lanes count their starts from several threads


class _Engine:
    """The engine's process for a run of the suite's tests: started for the first, kept while
    each test ends in KEEPS_PROCESS (across groups, but into a group whose kind starts fresh:
    `TestKind.fresh_group`), started afresh after any other."""

    def __init__(
        self,
        slot: GradingSlot,
        folder: Path,
        suite: Suite,
        config: SandboxConfig,
        report: Report,
    ) -> None:
        self.slot, self.folder, self.suite, self.config = slot, folder, suite, config
        self.report = report
        self.process: EngineProcess | None = None
        self.group = -1

    def run(self, test: TestCase, refs: References) -> TestResult:
        """The test's result, run in the machine's window (`sandbox.machine_window`): alone
        where its kind measures what the other slots' work would move (`TestKind.alone`)."""
        with machine_window(alone=TEST_KINDS[test.kind].alone):
            return self._run(test, refs)

    def _run(self, test: TestCase, refs: References) -> TestResult:
        process = self.process
        if process is not None and (
            (self.group != test.group and TEST_KINDS[test.kind].fresh_group)
            or not process.alive
            # the process's whole-life CPU backstop (RLIMIT_CPU) must never end a test
            or (process.cpu_used() or 0.0) > self.config.limits.cpu_total / 2
        ):
            self.close()
            process = None
        try:
            if process is None:
                process, failed = self._start(test)
                if failed is not None:
                    return failed
            process.new_test()
            result = run_test(test, process, refs)
        except SandboxError as exc:
            result = result_of(test, Verdict.IE, f"the sandbox failed: {exc}")
        except Exception as exc:  # a bug of the harness must not be charged to the engine
            result = result_of(test, Verdict.IE, f"{type(exc).__name__}: {exc}")
        if process is not None:
            if (
                result.verdict not in KEEPS_PROCESS
                or not process.alive
                or not TEST_KINDS[test.kind].reuses_process
            ):
                self.close()  # the log is whole once the process is gone
            else:
                process.settle_log()
            log = process.log_text()
            if log and result.verdict is not Verdict.PASSED:
                result.extra["log_head"] = log[:2000]
            result.extra.setdefault("log_bytes", process.log_bytes)
        return result

    def _start(self, test: TestCase) -> tuple[EngineProcess, TestResult | None]:
        """A started process for `test`'s group, or the test's result when the engine did not
        start (its import failed)."""
        process = EngineProcess(self.config, self.slot, self.folder)
        self.process, self.group = process, test.group
        with _STARTS:
            self.report.engine_starts += 1
        hello = process.start(self.suite.start_cpu, self.suite.start_wall)
        if hello.answered:
            self.report.engine_functions = process.functions
            self.report.engine_python = process.python
            return process, None
        assert hello.verdict is not None
        lines = [
            f"the engine failed while being imported: {hello.verdict.value}"
            + (f" ({hello.detail})" if hello.detail else "")
        ]
        if hello.traceback:
            lines += ["", "The traceback's last lines:", hello.traceback]
        result = result_of(
            test,
            hello.verdict,
            "\n".join(lines),
            cpu=hello.cpu,
            wall=hello.wall,
            at_start=hello.verdict is not Verdict.IE,
        )
        self.close()
        log = process.log_text()
        if log:
            result.extra["log_head"] = log[:2000]
        result.extra.setdefault("log_bytes", process.log_bytes)
        return process, result

    def close(self) -> None:
        if self.process is not None:
            self.process.close()
        self.process, self.group = None, -1


def grade_engines(
    submissions: list[Path],
    suite: Suite | str,
    config: SandboxConfig | None = None,
    slots: int | None = None,
    cache: Path | None = None,
) -> list[Report]:
    """Grade several submissions at once, one process and one slot per core."""
    config = config or SandboxConfig()
    config.check()
    workers = slots or os.cpu_count() or 1
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [
            pool.submit(grade_engine, path, suite, config, None, workers, None, cache)
            for path in submissions
        ]
        return [f.result() for f in futures]


def machine() -> dict[str, str | int]:
    return {
        "python": platform.python_version(),
        "cpus": os.cpu_count() or 1,
        "system": platform.platform(),
    }
