"""`grader engine check`: results.json and the rich results written, progress on stderr and
the table on stdout, refused without the sandbox unless `--no-sandbox` says so (and records it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from grader.cli.engine import engine, shown
from grader.harness.runner import grade_engine
from grader.harness.sandbox import SandboxConfig, SandboxUnavailable
from tests.harness._helpers import ENGINES, TINY, assert_gradescope_shape, needs_bwrap


@needs_bwrap
def test_check_writes_results_and_exits_zero(submission, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GRADER_CACHE_DIR", str(tmp_path / "cache"))
    out, rich = tmp_path / "results.json", tmp_path / "rich.json"
    result = CliRunner().invoke(
        engine,
        [
            "check",
            str(submission("no_pruning")),
            "--suite",
            str(TINY),
            "--json",
            str(out),
            "--rich-json",
            str(rich),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert_gradescope_shape(data)
    assert [t["extra_data"]["verdict"] for t in data["tests"]] == [
        "passed",
        "WA",
        "passed",
        "passed",
    ]
    assert data["extra_data"]["sandbox"] is True
    detail = json.loads(rich.read_text())
    assert len(detail["games"]) == 2
    assert all(g["pdn"].startswith("[") and "[Opening" in g["pdn"] for g in detail["games"])
    assert detail["verdict_priority"][0] == "IE"
    assert "no_pruning" not in result.output or "suite tiny" in result.output
    # The reference's work for the suite, kept where GRADER_CACHE_DIR says.
    assert len(list((tmp_path / "cache").glob("references-*.json"))) == 1


def test_missing_bwrap_is_refused_with_sandbox(tmp_path: Path) -> None:
    config = SandboxConfig(bwrap="/nonexistent/bwrap")
    with pytest.raises(SandboxUnavailable):
        grade_engine(ENGINES / "correct.py", str(TINY), config)
    result = CliRunner(env={"GRADER_BWRAP": "/nonexistent/bwrap"}).invoke(
        engine, ["check", str(ENGINES / "correct.py"), "--suite", str(TINY), "--sandbox"]
    )
    assert result.exit_code == 2
    assert "refusing to run" in result.output and "--no-sandbox" in result.output


def test_without_bwrap_the_default_runs_unsandboxed_and_says_so(submission, tmp_path: Path) -> None:
    # A student's machine without bubblewrap: no flag runs the engine as --no-sandbox does.
    out = tmp_path / "results.json"
    result = CliRunner(env={"GRADER_BWRAP": "/nonexistent/bwrap"}).invoke(
        engine, ["check", str(submission("correct")), "--suite", str(TINY), "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "bubblewrap is not installed here (no /nonexistent/bwrap)" in result.output
    assert "WITHOUT the sandbox" in result.output and "--sandbox refuses" in result.output
    data = json.loads(out.read_text())
    assert data["extra_data"]["sandbox"] is False
    assert data["output"].startswith("WARNING: this run used --no-sandbox")
    assert data["score"] == 5


def test_with_bwrap_the_default_is_the_sandbox(sandbox, tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    result = CliRunner().invoke(
        engine, ["check", str(ENGINES / "correct.py"), "--suite", str(TINY), "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "not installed" not in result.output and "WARNING" not in result.output
    assert json.loads(out.read_text())["extra_data"]["sandbox"] is True


def test_no_sandbox_runs_and_is_recorded(submission, tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    result = CliRunner(env={"GRADER_BWRAP": "/nonexistent/bwrap"}).invoke(
        engine,
        [
            "check",
            str(submission("correct")),
            "--suite",
            str(TINY),
            "--no-sandbox",
            "--json",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "WARNING" in result.output and "--no-sandbox" in result.output
    data = json.loads(out.read_text())
    assert_gradescope_shape(data)
    assert data["extra_data"]["sandbox"] is False
    assert data["output"].startswith("WARNING: this run used --no-sandbox")
    assert data["score"] == 5


def test_engine_check_writes_results_to_stdout_and_progress_to_stderr(sandbox, tmp_path) -> None:
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "grader"),
            "engine",
            "check",
            str(ENGINES / "correct.py"),
            "--suite",
            str(TINY),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "GRADER_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert done.returncode == 0, done.stderr
    assert "Suite tiny: 5 / 5 points" in done.stdout
    assert "king-loop" in done.stdout and "verdict" in done.stdout  # the table
    assert "Suite tiny" not in done.stderr


@given(st.lists(st.text(alphabet="ab3 .", min_size=1, max_size=30), min_size=1, max_size=12))
def test_the_tables_detail_is_cut_at_a_words_end(words: list[str]) -> None:
    line = " ".join(words)
    whole = " ".join(line.split())
    cut = shown(line, 40)
    assert len(cut) <= 40
    if len(whole) <= 40:
        assert cut == whole
    else:
        assert cut.endswith(" …")
        kept = cut[: -len(" …")].split()
        if len(whole.split()[0]) <= 38:  # else the first word alone, cut inside
            assert kept == whole.split()[: len(kept)]


def test_a_timing_tests_scale_keeps_its_last_number() -> None:
    line = (
        "full timing credit: ratio 0.24 (full credit up to 3 times the reference's CPU, "
        "none from 30)"
    )
    assert "none from 3 " not in f"{shown(line)} "
