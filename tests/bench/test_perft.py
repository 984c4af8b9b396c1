"""Smoke run of bench/perft (figures only printed, never asserted: the machine is shared)."""

from tests.bench.bench_support import run_bench


def test_the_perft_benchmark_runs_quick():
    out = run_bench("perft", "--quick", timeout=120)
    assert "(ok)" in out and "WRONG" not in out and "DIFFERENT" not in out
    assert "ratio" in out and "speedup of 2 processes" in out
