"""Smoke run of bench/perft (figures only printed, never asserted: the machine is shared)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_perft_benchmark_runs_quick():
    out = subprocess.run(
        [sys.executable, "-m", "bench.perft", "--quick"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert "(ok)" in out and "WRONG" not in out and "DIFFERENT" not in out
    assert "ratio" in out and "speedup of 2 processes" in out
