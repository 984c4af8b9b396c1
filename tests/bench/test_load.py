"""The load benchmark runs end to end: gunicorn, a fresh database, nothing acknowledged is lost.
(Figures are only printed, never asserted: the machine is shared.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_quick_load_run_loses_nothing(tmp_path):
    out = tmp_path / "load.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.load",
            "--quick",
            "--seconds",
            "1.5",
            "--clients",
            "4",
            "--json",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no-op ceiling" in done.stdout
    (result,) = json.loads(out.read_text())
    assert result["load"]["requests"] > 0 and result["ceiling"]["requests"] > 0
    assert result["load"]["errors"] == 0, done.stdout
    assert result["missing"] == 0 and result["stored"] == result["acknowledged"]
