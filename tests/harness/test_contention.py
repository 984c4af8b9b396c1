"""Timing on a busy machine (issue 51, grader/harness/contention.py): the reference, timed in
the grading slot beside the engine's runs, measures its own share of a core; below
`BUSY_SHARE` the machine was busy and a worker defers the timing, then times it again with
every other test's result kept.

The busy machine is real: processes that spin, pinned with this one (and the engine it starts,
which inherits the pin) to one core, so each gets about a third of it whatever else the
machine runs. Each is bounded by RLIMIT_CPU and ended by its pid. Nothing asserts a wall-clock
time: only the share of a core, a ratio of two clocks over the same work."""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Iterator

from grader.harness.contention import BUSY_SHARE, Share, busy
from grader.harness.references import reference_run
from grader.harness.runner import Kept, defer_busy, grade_engine
from grader.harness.sandbox import SandboxConfig
from grader.harness.suite import load_suite
from grader.harness.verdicts import Verdict
from tests.harness._helpers import ALWAYS_BUSY, NEVER_BUSY, needs_bwrap, search_then_timing

MIDDLE = "B:W18,K19,20,21,23,25,26,27,29:B1,4,5,9,K31"
SPIN_CPU_SECONDS = 120  # each busy process's whole CPU, whatever happens to the test


def _bounded() -> None:
    """A busy process's limits: its CPU, and its death with the test's (PR_SET_PDEATHSIG)."""
    resource.setrlimit(resource.RLIMIT_CPU, (SPIN_CPU_SECONDS, SPIN_CPU_SECONDS))
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


@contextlib.contextmanager
def busy_core(spinners: int = 2) -> Iterator[None]:
    """This process (and what it starts) on one core with `spinners` processes that spin."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    spinning = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=_bounded)
        for _ in range(spinners)
    ]
    try:
        yield
    finally:
        for process in spinning:
            process.kill()
        for process in spinning:
            process.wait()
        os.sched_setaffinity(0, before)


def test_a_share_of_a_core_below_the_bound_is_a_busy_machine() -> None:
    assert busy(0.5) and busy(BUSY_SHARE - 0.01)
    assert not busy(BUSY_SHARE) and not busy(0.99)
    assert not busy(Share().share)  # nothing timed: nothing to say the machine was busy


def test_the_reference_beside_two_busy_processes_gets_a_third_of_a_core() -> None:
    share = Share()
    with busy_core(2):
        for _ in range(4):
            share.time(lambda: reference_run(MIDDLE, 6, at_least=0.2))
    assert share.cpu > 0.4  # enough work to measure
    assert share.share < 0.6 and busy(share.share)
    assert "of a core" in share.words()


@needs_bwrap
def test_a_timing_beside_busy_processes_is_deferred_then_timed_keeping_the_rest(
    submission, tmp_path
) -> None:
    suite = search_then_timing(tmp_path, depth=4, runs=3)
    engine = submission("correct")
    with busy_core(2):
        first = grade_engine(engine, suite, SandboxConfig(), defer_below=BUSY_SHARE)
        search, timing = first.tests
        assert first.deferred == [timing]
        assert timing.score == 0 and timing.extra["share"] < BUSY_SHARE
        assert timing.output.startswith("timing deferred: the machine was busy (the reference")
        assert timing.output.endswith("it will be timed again")
        assert search.verdict is Verdict.PASSED and search.score == 2

        # The retime, the machine still busy and deferral spent: timed anyway, and it says so;
        # the search test is the first run's, not run again.
        kept = Kept.from_dict(Kept.of(first).to_dict())  # as the progress stores it
        again = grade_engine(engine, suite, SandboxConfig(), kept=kept)
    search_again, timed = again.tests
    assert search_again == search and again.deferrals == 1
    assert not again.deferred and timed.verdict is Verdict.PASSED and timed.score > 0
    assert "The machine was busy while timing" in timed.output
    assert "deferred once for a busy machine; this run timed it anyway" in timed.output
    assert again.score == search.score + timed.score


TWO_TIMINGS = """{
  "name": "two-timings", "start": {"cpu": 5, "wall": 60},
  "groups": [
    {"kind": "timing", "points": 2, "cpu": 20, "wall": 120, "depths": [3], "runs": 1,
     "full_ratio": 10, "zero_ratio": 100, "positions": ["opening-1", "opening-2"]}
  ]
}"""
BUSY_LINE = "The machine was busy while timing"


@needs_bwrap
def test_a_timing_says_the_machine_was_busy_by_the_threshold_it_is_deferred_by(
    submission, tmp_path
) -> None:
    """The same threshold judges the words and the deferral: a worker whose threshold finds the
    machine quiet never tells a student it was busy, whatever contention's default says."""
    suite_file = tmp_path / "two.json"
    suite_file.write_text(TWO_TIMINGS)
    suite = load_suite(suite_file)
    engine = submission("correct")
    for threshold, said in ((ALWAYS_BUSY, True), (NEVER_BUSY, False)):
        report = grade_engine(engine, suite, SandboxConfig(), busy_below=threshold)
        for timing in report.tests:
            assert timing.verdict is Verdict.PASSED and timing.extra["busy"] is said
            assert (BUSY_LINE in timing.output) is said
            assert timing.output.count(BUSY_LINE) <= 1


@needs_bwrap
def test_a_timing_kept_from_the_deferred_run_keeps_its_own_words(submission, tmp_path) -> None:
    """Of two timings, one deferred and one not: the retime times the deferred one only and
    adds the retime's words to it alone; the one kept is as the first run gave it."""
    suite_file = tmp_path / "two.json"
    suite_file.write_text(TWO_TIMINGS)
    suite = load_suite(suite_file)
    engine = submission("correct")
    first = grade_engine(engine, suite, SandboxConfig(), busy_below=NEVER_BUSY)
    one, two = first.tests
    first.tests = [one, defer_busy(two, ALWAYS_BUSY)]  # the second's share fell under the bound
    assert first.deferred == [first.tests[1]]
    kept = Kept.from_dict(Kept.of(first).to_dict())

    again = grade_engine(engine, suite, SandboxConfig(), kept=kept, busy_below=ALWAYS_BUSY)
    kept_one, retimed = again.tests
    assert kept_one.to_dict() == one.to_dict()  # not run again, not a word added
    assert "deferred" not in kept_one.output and BUSY_LINE not in kept_one.output
    assert retimed.output.count(BUSY_LINE) == 1
    assert retimed.output.endswith(
        "Its timing was deferred once for a busy machine; this run timed it anyway, the "
        "machine still busy."
    )
