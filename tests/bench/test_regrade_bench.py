"""Smoke run of bench/regrade (figures only printed, never asserted: the machine is shared)."""

import re

from tests.bench.bench_support import run_bench


def test_the_regrade_benchmark_examines_every_upload():
    out = run_bench("regrade", "--uploads", "3", "--graded", "1", timeout=600)
    assert "first grading:" in out
    examined = re.search(r"regrade of 3 uploads after a suite fix: .* (\d+) scores examined", out)
    assert examined is not None, out
    assert int(examined.group(1)) == 3  # the graded upload and the two given its result
    assert re.search(r"ratio, regrade to first grading, per upload: [0-9.]+x", out)
