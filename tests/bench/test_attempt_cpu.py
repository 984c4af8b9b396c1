"""The attempt path's CPU benchmark runs end to end: every case answered as expected (its
asserts), a figure printed for each. (Figures are only printed, never asserted.)"""

from __future__ import annotations

import pytest

from tests.bench.bench_support import run_bench


@pytest.mark.slow
def test_the_attempt_cpu_benchmark_runs():
    stdout = run_bench("attempt_cpu", "--requests", "20", "--rounds", "1", "--clients", "2")
    for case in (
        "no-op",
        "graded submission",
        "refused costly attempt, largest tree",
        "refused costly attempt, best-order",
    ):
        assert case in stdout


@pytest.mark.slow
def test_the_profile_says_where_graded_submissions_spend_their_time():
    stdout = run_bench("attempt_cpu", "--profile", "20", "--warm-up", "4", "--clients", "2")
    assert "function calls" in stdout and "attempts.py" in stdout
    assert "submit_attempt" in stdout  # the view is in the profile
