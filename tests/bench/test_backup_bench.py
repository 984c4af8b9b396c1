"""Smoke run of bench/backup (figures only printed, never asserted: the machine is shared)."""

from tests.bench.bench_support import run_bench


def test_the_backup_benchmark_runs_quick():
    out = run_bench("backup", "--quick", timeout=600)
    assert "the peer, a plain copy" in out and out.count("ratio:") == 2
