"""bench/deadline: the arrival curve, and a smoke run of both codes (figures only printed, never
asserted: the machine is shared; that no upload waits behind bulk work with this code is a
property of the queues, not a time)."""

import math

import pytest

from bench.deadline import BEFORE_RUSH, RUSH, arrivals, estimate_error, percentile, replayed
from tests.bench.bench_support import run_bench


def test_the_uploads_arrive_in_order_within_the_hour_most_in_its_last_quarter():
    times = arrivals(300, 900.0)
    assert len(times) == 300 and times == sorted(times)
    assert times[0] > 0 and times[-1] < 900.0
    late = sum(t >= RUSH * 900.0 for t in times)
    assert late == round(300 * (1 - BEFORE_RUSH))  # 210: 70% in the last 15 minutes
    # the rate rises to the deadline: the last 5 minutes get more than the 5 before them
    assert sum(t >= 800.0 for t in times) > sum(700.0 <= t < 800.0 for t in times)


def test_percentile_is_the_nearest_rank():
    values = [float(n) for n in range(1, 21)]
    assert percentile(values, 0.5) == 10.0
    assert percentile(values, 0.95) == 19.0
    assert percentile([3.0], 0.95) == 3.0


@pytest.mark.slow
def test_the_deadline_benchmark_runs_quick():
    # The peer is this checkout's own commit, taken from git as any peer is: the smoke run
    # checks the benchmark's machinery (both runs, the table), in a clone with no history too.
    out = run_bench("deadline", "--quick", "--baseline", "HEAD", timeout=900)
    assert "compressed into 4 s (900.0x real time" in out
    rows = {
        line.split("|")[1].strip(): line.split("|")
        for line in out.splitlines()
        if line.startswith(("| this code", "| peer: HEAD"))
    }
    assert set(rows) == {"this code", "peer: HEAD"}, out
    for cells in rows.values():
        assert cells[7].strip() == "0", out  # no upload failed
        assert cells[10].strip().isdigit(), out  # the uploads whose timing was deferred
    assert rows["this code"][6].strip().startswith("0 "), out  # none behind bulk work
    assert "not replayed (it grades an upload in two runs)" in out  # this code's


def test_replayed_meets_each_arrival_with_the_first_free_worker():
    at = arrivals(4, 16.0)  # 5.0, 13.3, 14.7, 15.6 s
    took = replayed([10.0, 10.0, 10.0, 1.0], hour=16.0, workers=2)
    # the first two start as they arrive; the third waits for the first worker (free at 15.0),
    # the fourth for the second (free at 23.3, before the first's 25.0)
    ends = [at[0] + 10.0, at[1] + 10.0, at[0] + 20.0, at[1] + 11.0]
    assert took == pytest.approx([end - a for end, a in zip(ends, at, strict=True)])
    # with a worker each, nobody waits
    assert replayed([10.0, 10.0, 10.0, 1.0], hour=16.0, workers=4) == pytest.approx(
        [10.0, 10.0, 10.0, 1.0]
    )


def test_the_estimates_error_is_the_90th_percentile_of_the_relative_error():
    # errors 0.5, 0, 0.25, 0.1 and nine of 0: the 90th percentile (nearest rank) of 13 is the
    # 12th smallest, 0.25; the uploads without an estimate are left out and counted
    actual = [10.0, 20.0, 40.0, 10.0] + [30.0] * 9 + [5.0, 7.0]
    estimates = [15.0, 20.0, 30.0, 9.0] + [30.0] * 9 + [None, None]
    assert estimate_error(estimates, actual) == (pytest.approx(0.25), 13)
    # too high and too low count alike
    assert estimate_error([5.0], [10.0]) == estimate_error([15.0], [10.0]) == (0.5, 1)
    error, had = estimate_error([None], [10.0])
    assert had == 0 and math.isnan(error)
