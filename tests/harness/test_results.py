"""results.json in Gradescope's shape, uploads, Elo, the priority (the `grader engine` command:
tests/cli/test_engine_cli.py)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from grader import data
from grader.harness.elo import estimate
from grader.harness.runner import grade_engine, grade_engines
from grader.harness.sandbox import SubmissionError, prepare_submission
from grader.harness.verdicts import PRIORITY, Verdict, worst
from tests.harness._helpers import ENGINES, TINY, assert_gradescope_shape, needs_bwrap


@needs_bwrap
def test_several_engines_at_once_each_in_its_slot(submission, tiny) -> None:
    reports = grade_engines([submission("correct"), submission("wrong_eval")], tiny, slots=2)
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
    assert [v.value for v in PRIORITY] == [
        "IE",
        "OLE",
        "MLE",
        "TLE",
        "TLE_WALL",
        "RE",
        "PROTOCOL",
        "ILLEGAL_MOVE",
        "WA",
        "passed",
    ]
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
    report = grade_engine(data.checkers("template", "engine.py"), tiny)
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
    env = {
        **os.environ,
        "GRADER_SOURCE": str(ROOT),
        "GRADER_SUBMISSION": str(upload),
        "GRADER_RESULTS": str(results),
        "GRADER_SUITE": str(TINY),
        "GRADER_PYTHON": sys.executable,
    }
    done = subprocess.run(
        [str(data.checkers("run_autograder"))], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    gradescope = json.loads((results / "results.json").read_text())
    assert_gradescope_shape(gradescope)
    assert gradescope["score"] == 5
    assert (results / "details.json").is_file()


def test_a_test_worth_0_points_is_not_graded_in_the_summary() -> None:
    from grader.harness.cases import TestResult
    from grader.harness.results import summary
    from grader.harness.runner import Report

    def result(verdict: Verdict, max_score: float) -> TestResult:
        return TestResult("t", "parallel", verdict, 0.0, max_score, "")

    report = Report("quick", "engine.py")
    report.tests = [result(Verdict.RE, 1.0), result(Verdict.RE, 2.0)]
    report.tests += [result(Verdict.PASSED, 0.0)] * 3  # the skeleton "passed" three 0/0 tests
    text = summary(report)
    assert "0 of 2 graded tests passed; 3 optional tests worth 0 points are not graded." in text
    report.tests = report.tests[:2]
    assert "0 of 2 graded tests passed." in summary(report)
