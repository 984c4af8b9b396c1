"""Running a benchmark as its README command does (`python -m bench.NAME ...` from the checkout),
for the smoke tests: its output, with a failure that shows what it printed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_bench(module: str, *args: str, timeout: float = 300) -> str:
    """`python -m bench.<module> args...`; its stdout, once it has exited with 0."""
    done = subprocess.run(
        [sys.executable, "-m", f"bench.{module}", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout
