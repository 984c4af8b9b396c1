"""Smoke run of bench/exams (figures only printed, never asserted: the machine is shared)."""

from tests.bench.bench_support import run_bench


def test_the_exam_printing_benchmark_runs_quick():
    out = run_bench("exams", "--quick", timeout=600)
    assert "the job:" in out and "the peer:" in out and "ratio:" in out
