"""The load benchmark runs end to end: gunicorn, a fresh database, nothing acknowledged is lost,
and its profile splits the workers' CPU. (Figures are only printed, never asserted: the machine
is shared.)"""

from __future__ import annotations

import json

import pytest

from tests.bench.bench_support import run_bench


@pytest.mark.slow
def test_quick_load_run_loses_nothing_and_its_profile_splits_the_workers_cpu(tmp_path):
    """One profiled run (the profile samples the load phase of the same run a plain one makes):
    nothing acknowledged is lost; py-spy samples both workers during the load; every sampled
    stack falls in one part, the parts cover it all, and the graded submission's own parts are
    seen."""
    from bench.hot_path import GUNICORN, SPLIT

    out = tmp_path / "load.json"
    stdout = run_bench(
        "load",
        "--quick",
        "--seconds",
        "2",
        "--clients",
        "4",
        "--json",
        str(out),
        "--profile",
        str(tmp_path / "stacks"),
    )
    assert "no-op ceiling" in stdout
    (result,) = json.loads(out.read_text())
    assert result["load"]["requests"] > 0 and result["ceiling"]["requests"] > 0
    assert result["load"]["errors"] == 0, stdout
    assert result["missing"] == 0 and result["stored"] == result["acknowledged"]
    shares = dict(result["split"])
    assert list(shares) == [name for name, _ in SPLIT] + [GUNICORN]
    assert sum(shares.values()) == pytest.approx(1.0)
    for part in (SPLIT[0][0], SPLIT[3][0], GUNICORN):  # the token, storing, gunicorn's own
        assert shares[part] > 0, stdout
    assert len(list((tmp_path / "stacks").glob("worker-*.txt"))) == 2
    assert "where a graded submission's server CPU went" in stdout
