"""The load benchmark runs end to end: gunicorn, a fresh database, nothing acknowledged is lost.
(Figures are only printed, never asserted: the machine is shared.)"""

from __future__ import annotations

import json

import pytest

from tests.bench.bench_support import run_bench


@pytest.mark.slow
def test_quick_load_run_loses_nothing(tmp_path):
    out = tmp_path / "load.json"
    stdout = run_bench("load", "--quick", "--seconds", "1.5", "--clients", "4", "--json", str(out))
    assert "no-op ceiling" in stdout
    (result,) = json.loads(out.read_text())
    assert result["load"]["requests"] > 0 and result["ceiling"]["requests"] > 0
    assert result["load"]["errors"] == 0, stdout
    assert result["missing"] == 0 and result["stored"] == result["acknowledged"]
