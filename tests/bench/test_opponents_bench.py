"""Smoke run of bench/opponents (figures only printed, never asserted: the machine is shared)."""

from tests.bench.bench_support import run_bench


def test_the_opponents_benchmark_runs_quick():
    out = run_bench("opponents", "--quick")
    # The enhanced engine searched on bitboards must choose every move the baseline's chose.
    assert "the same moves in both codes: yes" in out
    assert "ratio, median of 2 pairs:" in out and out.count("pair ") == 2
