"""The scaling replay runs end to end and draws its hour. (Figures are only printed, never
asserted.)"""

from __future__ import annotations

from pathlib import Path

from tests.bench.bench_support import run_bench


def test_the_scaling_replay_runs_and_draws_the_hour(tmp_path: Path):
    png = tmp_path / "hour.png"
    stdout = run_bench(
        "scaling", "--uploads", "60", "--hour", "900", "--grading-seconds", "8", "--png", str(png)
    )
    assert "grader_desired_workers first asks" in stdout and "an assumption" in stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
