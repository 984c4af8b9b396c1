"""Smoke run of bench/upgrade (figures only printed, never asserted: the machine is shared)."""

import re

from tests.bench.bench_support import run_bench


def test_the_upgrade_benchmark_times_every_revision_after_the_release():
    out = run_bench("upgrade", "--attempts", "300", timeout=600)
    assert "database with 300 attempts" in out
    timed = re.findall(r"^  ([0-9a-f]{12}) ", out, re.MULTILINE)
    assert timed[0] == "b3e41c7d9a20" and "3f1b2c4d5e6a" in timed
    assert "per 10,000 attempts" in out
