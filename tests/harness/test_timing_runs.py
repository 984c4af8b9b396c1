"""testkinds/timing.py: of a timing test's 3 runs a depth, the third is made only where it
could change the credit."""

from __future__ import annotations

import statistics
from pathlib import Path

from grader.harness.runner import grade_engine
from grader.harness.sandbox import SandboxConfig
from grader.harness.suite import load_suite
from grader.harness.testkinds.timing import settled, timing_credit
from grader.harness.verdicts import Verdict
from tests.harness._helpers import needs_bwrap

FULL, ZERO, STEP = 3.0, 30.0, 0.25


def test_two_runs_settle_the_credit_only_when_both_ends_give_the_same() -> None:
    # Full credit at both ends (ratios 1.0 and 1.5 against a reference of 1 s): settled.
    assert settled([[0.4, 0.5], [0.6, 1.0]], 1.0, FULL, ZERO, STEP)
    # Least 2.8 (full credit), greatest 4.5 (0.75 of it): the third run decides.
    assert not settled([[1.3, 2.0], [1.5, 2.5]], 1.0, FULL, ZERO, STEP)
    # No reference time, or fewer than two runs at a depth: never settled.
    assert not settled([[0.4, 0.5]], 0.0, FULL, ZERO, STEP)
    assert not settled([[0.4]], 1.0, FULL, ZERO, STEP)


def test_the_references_own_two_runs_beside_widen_the_bounds() -> None:
    # Against a reference of exactly 1 s, 3.2 to 3.7 gives full credit at both ends: settled.
    slow = [[1.6, 1.8], [1.6, 1.9]]
    assert settled(slow, 1.0, FULL, ZERO, STEP)
    # The reference timed beside them at 0.45 and 0.55 a depth: its least total, 0.9, puts the
    # greatest ratio at 4.1, three quarters of the credit: the third runs decide.
    beside = [[0.45, 0.55], [0.45, 0.55]]
    assert not settled(slow, beside, FULL, ZERO, STEP)
    assert settled([[0.6, 0.7], [0.6, 0.7]], beside, FULL, ZERO, STEP)
    assert not settled([[0.6, 0.7]], [[0.5]], FULL, ZERO, STEP)  # one reference run: unknown


def test_whatever_the_third_run_gives_a_settled_credit_does_not_change() -> None:
    first_two = [[1.0, 1.3], [0.9, 1.25]]  # ratios 1.9 to 2.55 of 1 s: full credit
    assert settled(first_two, 1.0, FULL, ZERO, STEP)
    credit = timing_credit(sum(min(t) for t in first_two), FULL, ZERO, STEP)
    for third in (0.0, 0.5, 1.1, 1.2, 5.0, 100.0):
        total = sum(statistics.median([*two, third]) for two in first_two)
        assert timing_credit(total, FULL, ZERO, STEP) == credit


TIMING = """{
  "name": "timing-runs", "start": {"cpu": 3, "wall": 6},
  "groups": [{"kind": "timing", "points": 2, "cpu": 10, "wall": 20, "depths": [4, 5],
              "runs": 3, "full_ratio": 3, "zero_ratio": 30, "step": 0.25,
              "positions": ["opening-1"]}]
}"""


@needs_bwrap
def test_an_engine_far_from_a_band_edge_runs_each_search_twice(submission, tmp_path: Path) -> None:
    """The correct engine, well within 3x the reference's CPU, is settled by its first two
    runs at each depth, and its result says how many it made."""
    suite_file = tmp_path / "timing.json"
    suite_file.write_text(TIMING)
    suite = load_suite(suite_file)
    report = grade_engine(submission("correct"), suite, SandboxConfig())
    (timing,) = report.tests
    assert timing.verdict is Verdict.PASSED and timing.score == 2
    assert [row["runs"] for row in timing.extra["rows"]] == [2, 2]
    assert "(medians of 2 runs)" in timing.output
    assert "Each search ran 2 times, not 3" in timing.output
