"""results.json in Gradescope's shape, the CLI, --no-sandbox, uploads, Elo, the priority."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader import data
from grader.cli.engine import engine
from grader.harness.elo import estimate
from grader.harness.runner import grade, grade_many
from grader.harness.sandbox import (
    SandboxConfig,
    SandboxUnavailable,
    SubmissionError,
    prepare_submission,
)
from grader.harness.verdicts import PRIORITY, Verdict, worst
from tests.harness._helpers import ENGINES, TINY, needs_bwrap

TEST_KEYS = {"name", "score", "max_score", "status", "visibility", "output", "extra_data"}


def assert_gradescope_shape(data: dict) -> None:
    assert isinstance(data["score"], float | int)
    assert isinstance(data["execution_time"], float | int)
    assert isinstance(data["output"], str)
    assert data["output_format"] in ("text", "html", "simple_format", "md", "ansi")
    for test in data["tests"]:
        assert set(test) >= TEST_KEYS
        assert test["status"] in ("passed", "failed")
        assert test["visibility"] in ("visible", "hidden", "after_due_date", "after_published")
        assert 0 <= test["score"] <= test["max_score"]
        assert {"verdict", "cpu", "wall"} <= set(test["extra_data"])
        assert test["extra_data"]["verdict"] in {v.value for v in Verdict}
    assert math.isclose(data["score"], sum(t["score"] for t in data["tests"]))
    for row in data["leaderboard"]:
        assert set(row) <= {"name", "value", "order"}
        assert row.get("order", "desc") in ("asc", "desc")


@needs_bwrap
def test_check_writes_results_and_exits_zero(submission, tmp_path: Path) -> None:
    out, rich = tmp_path / "results.json", tmp_path / "rich.json"
    result = CliRunner().invoke(engine, ["check", str(submission("no_pruning")), "--suite",
                                         str(TINY), "--json", str(out), "--rich-json", str(rich)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert_gradescope_shape(data)
    assert [t["extra_data"]["verdict"] for t in data["tests"]] == ["passed", "WA", "passed",
                                                                    "passed"]
    assert data["extra_data"]["sandbox"] is True
    detail = json.loads(rich.read_text())
    assert len(detail["games"]) == 2
    assert all(g["pdn"].startswith("[") and "[Opening" in g["pdn"] for g in detail["games"])
    assert detail["verdict_priority"][0] == "IE"
    assert "no_pruning" not in result.output or "suite tiny" in result.output


def test_missing_bwrap_is_refused_without_no_sandbox(tmp_path: Path) -> None:
    config = SandboxConfig(bwrap="/nonexistent/bwrap")
    with pytest.raises(SandboxUnavailable):
        grade(ENGINES / "correct.py", str(TINY), config)
    result = CliRunner(env={"GRADER_BWRAP": "/nonexistent/bwrap"}).invoke(
        engine, ["check", str(ENGINES / "correct.py"), "--suite", str(TINY)])
    assert result.exit_code == 2
    assert "refusing to run" in result.output and "--no-sandbox" in result.output


def test_no_sandbox_runs_and_is_recorded(submission, tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    result = CliRunner(env={"GRADER_BWRAP": "/nonexistent/bwrap"}).invoke(
        engine, ["check", str(submission("correct")), "--suite", str(TINY), "--no-sandbox",
                 "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "WARNING" in result.output and "--no-sandbox" in result.output
    data = json.loads(out.read_text())
    assert_gradescope_shape(data)
    assert data["extra_data"]["sandbox"] is False
    assert data["output"].startswith("WARNING: this run used --no-sandbox")
    assert data["score"] == 5


@needs_bwrap
def test_several_engines_at_once_each_in_its_slot(submission, tiny) -> None:
    reports = grade_many([submission("correct"), submission("wrong_eval")], tiny, slots=2)
    assert [r.score for r in reports] == [5, 5 - 2 + reports[1].tests[1].score]
    assert all(r.slot in (0, 1) for r in reports)  # each held a slot (its user, its folder)


def test_zip_uploads(tmp_path: Path) -> None:
    flat = tmp_path / "flat.zip"
    with zipfile.ZipFile(flat, "w") as archive:
        archive.write(ENGINES / "correct.py", "engine.py")
        archive.writestr("helpers/util.py", "X = 1\n")
        archive.writestr("empty.txt", "")
    dest = prepare_submission(flat, tmp_path / "a")
    assert (dest / "engine.py").is_file() and (dest / "helpers" / "util.py").is_file()
    assert (dest / "empty.txt").is_file()
    # The upload's archive policy, applied again at extraction: refused, never half-extracted.
    escape = tmp_path / "escape.zip"
    with zipfile.ZipFile(escape, "w") as archive:
        archive.write(ENGINES / "correct.py", "engine.py")
        archive.writestr("../escape.py", "bad\n")
    with pytest.raises(SubmissionError, match=r"'\.\.'"):
        prepare_submission(escape, tmp_path / "e")
    assert not (tmp_path / "escape.py").exists()
    nested = tmp_path / "nested.zip"
    with zipfile.ZipFile(nested, "w") as archive:
        archive.write(ENGINES / "correct.py", "myengine/engine.py")
    with pytest.raises(SubmissionError, match=r"no engine\.py at its top"):
        prepare_submission(nested, tmp_path / "b")
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("readme.txt", "no engine\n")
    with pytest.raises(SubmissionError):
        prepare_submission(empty, tmp_path / "c")


def test_priority_is_fixed() -> None:
    assert [v.value for v in PRIORITY] == ["IE", "OLE", "MLE", "TLE", "TLE_WALL", "RE",
                                           "PROTOCOL", "ILLEGAL_MOVE", "WA", "passed"]
    assert worst([Verdict.WA, Verdict.TLE_WALL, Verdict.OLE]) is Verdict.OLE
    assert worst([Verdict.TLE_WALL, Verdict.TLE]) is Verdict.TLE
    assert worst([]) is Verdict.PASSED


def test_elo_estimate() -> None:
    even = estimate([(1500.0, 0.5)] * 10)
    assert abs(even.rating - 1500) < 1 and 100 < even.error < 400
    mixed = estimate([(1200.0, 1.0), (1500.0, 0.5), (1750.0, 0.0)] * 4)
    assert 1300 < mixed.rating < 1700
    more = estimate([(1200.0, 1.0), (1500.0, 0.5), (1750.0, 0.0)] * 16)
    assert more.error < mixed.error  # more games, a narrower interval
    sweep = estimate([(400.0, 1.0), (800.0, 1.0)])
    assert sweep.bound == "lower" and sweep.rating == 1200 and sweep.text().startswith(">")


ROOT = Path(__file__).resolve().parents[2]


@needs_bwrap
def test_starter_template_runs_and_says_what_is_missing(tiny) -> None:
    report = grade(data.checkers("template", "engine.py"), tiny)
    assert [t.verdict for t in report.tests] == [Verdict.RE] * 4
    assert "NotImplementedError: legal_moves" in report.tests[0].output


@needs_bwrap
def test_run_autograder_writes_gradescope_results(tmp_path: Path) -> None:
    import os
    import shutil
    import subprocess
    import sys

    upload, results = tmp_path / "submission", tmp_path / "results"
    upload.mkdir()
    shutil.copyfile(ENGINES / "correct.py", upload / "my_engine.py")
    env = {**os.environ, "GRADER_SOURCE": str(ROOT), "GRADER_SUBMISSION": str(upload),
           "GRADER_RESULTS": str(results), "GRADER_SUITE": str(TINY),
           "GRADER_PYTHON": sys.executable}
    done = subprocess.run([str(data.checkers("run_autograder"))], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    gradescope = json.loads((results / "results.json").read_text())
    assert_gradescope_shape(gradescope)
    assert gradescope["score"] == 5
    assert (results / "details.json").is_file()
