"""Smoke run of bench/integrity (figures only printed, never asserted: the machine is shared)."""

from tests.bench.bench_support import run_bench


def test_the_integrity_benchmark_runs_quick():
    out = run_bench("integrity", "--quick", timeout=600)
    # 30 students, one of whom hands in another's engine renamed: exactly that pair above 90%.
    assert "pairs above 90%: 1 (the 1 planted copies)" in out
    assert "435 pairs read back" in out and "ratio: ours / copydetect" in out
