"""The attempt path's CPU benchmark runs end to end: every case answered as expected (its
asserts), a figure printed for each. (Figures are only printed, never asserted.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_attempt_cpu_benchmark_runs():
    done = subprocess.run(
        [sys.executable, "-m", "bench.attempt_cpu", "--requests", "20", "--rounds", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for case in (
        "no-op",
        "graded submission",
        "refused costly attempt, largest tree",
        "refused costly attempt, best-order",
    ):
        assert case in done.stdout


@pytest.mark.slow
def test_the_profile_says_where_graded_submissions_spend_their_time():
    done = subprocess.run(
        [sys.executable, "-m", "bench.attempt_cpu", "--profile", "20"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "function calls" in done.stdout and "attempts.py" in done.stdout
    assert "submit_attempt" in done.stdout  # the view is in the profile
