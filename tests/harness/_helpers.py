"""Shared helpers of the harness tests."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from grader.checkers import Board
from grader.checkers.engine import CONTRACT, search
from grader.checkers.variants import VARIANTS
from grader.harness.results import summary
from grader.harness.runner import Report
from grader.harness.sandbox import SandboxConfig, SandboxUnavailable
from grader.harness.suite import Suite, load_suite
from grader.harness.testkinds.search import root_window
from grader.harness.verdicts import Verdict

ENGINES = Path(__file__).parent / "engines"  # the sample engines
TINY = Path(__file__).parent / "data" / "tiny.json"  # the tiny suite
TEST_KEYS = {"name", "score", "max_score", "status", "visibility", "output", "extra_data"}
SEARCH_THEN_TIMING = """{
  "name": "search-then-timing", "start": {"cpu": 5, "wall": 60},
  "groups": [
    {"kind": "search", "points": 2, "cpu": 5, "wall": 60, "depths": [2],
     "positions": ["kings-middlegame"]},
    {"kind": "timing", "points": 2, "cpu": 20, "wall": 120, "depths": [DEPTH], "runs": RUNS,
     "full_ratio": 10, "zero_ratio": 100, "positions": ["opening-1"]}
  ]
}"""
# Busy thresholds (a share of a core) that judge every timing busy, and none: no machine's
# reference reaches 2 cores, and every one gets more than a millionth (0 would mean "never
# defer, judge by the default").
ALWAYS_BUSY, NEVER_BUSY = 2.0, 1e-6


def sandbox_problem() -> str | None:
    """Why the bubblewrap sandbox cannot run here, or None when it can."""
    try:
        SandboxConfig().check()
    except SandboxUnavailable as error:
        return str(error)
    return None


# Tests that need the real sandbox fail (never skip) without it: `make test` installs bubblewrap.
needs_bwrap = pytest.mark.usefixtures("sandbox")


def leftover_processes(config: SandboxConfig, slot: int) -> list[int]:
    """Processes still running as the slot's user (a zombie, already dead and waiting for
    init to reap it, holds nothing and is not counted)."""
    uids = {config.uid_base + slot}
    pids = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid in uids:
                    with open(f"/proc/{entry.name}/stat", "rb") as handle:
                        if handle.read().rsplit(b")", 1)[1].split()[0] != b"Z":
                            pids.append(int(entry.name))
            except (OSError, IndexError):
                pass
    return pids


def assert_gradescope_shape(data: dict) -> None:
    """A results.json as Gradescope reads it, with our extra data on each test."""
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


def assert_words_hold(report: Report, suite: Suite) -> None:
    """No line the student reads names a mistake another of their tests contradicts.

    The sentences said (in the summary or any test's output) are exactly those of the run's
    explanation; and each such mistake, run with grader.checkers on every search and move
    generation test of the run, gives the contract's answer where the engine passed (as the
    engine did) and the engine's own value and leaf count where its sentence is given."""
    texts = [summary(report), *(t.output for t in report.tests)]
    said = {code for code, v in VARIANTS.items() if any(v.sentence in text for text in texts)}
    assert said == set(report.explanation.codes), (said, report.explanation)
    for code in said:
        variant = VARIANTS[code]
        for case, result in zip(suite.tests, report.tests, strict=True):
            fen, passed = case.params.get("fen", ""), result.verdict is Verdict.PASSED
            if case.kind == "movegen" and passed and "movegen" in variant.kinds:
                contract = sorted(m.pdn() for m in Board(fen).generate_legal_moves())
                assert sorted(variant.moves(fen)) == contract, (code, case.name)
            if case.kind != "search":
                continue
            alpha, beta = root_window(case)
            mine = variant.run(fen, case.params["depth"], alpha, beta)
            if passed:
                contract_search = search(Board(fen), case.params["depth"], CONTRACT, alpha, beta)
                assert (mine.value, mine.leaves) == (
                    contract_search.value,
                    contract_search.leaves,
                ), (code, case.name)
            elif variant.sentence in result.output:
                assert f"value {mine.value}:" in result.output, (code, case.name)
                assert f"leaves {mine.leaves}:" in result.output, (code, case.name)


def search_then_timing(folder: Path, depth: int, runs: int) -> Suite:
    """A suite of a search test, then a timing test at `depth` of `runs` runs (its credit wide
    enough that the correct sample passes it on any machine), written to `folder` and loaded."""
    path = folder / "search-then-timing.json"
    path.write_text(SEARCH_THEN_TIMING.replace("DEPTH", str(depth)).replace("RUNS", str(runs)))
    return load_suite(path)
