"""Smoke run of bench/bulk (figures only printed, never asserted: the machine is shared)."""

from tests.bench.bench_support import run_bench


def test_the_bulk_work_benchmark_runs_quick():
    out = run_bench("bulk", "--quick", timeout=600)
    assert "peer: the upload alone" in out
    assert "bulk work in its own queue" in out and "one queue for both" in out
