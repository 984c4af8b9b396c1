"""One engine process serves a suite's tests, group after group (grader/harness/runner.py): every sample
engine gets the same verdicts and points as with the code before it (a process per test, the
baseline commit of bench.suite_cpu, its verdicts recorded in RECORD), but for games its clock
chose the moves of, and a fault ends the process that gave it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.suite_cpu import (
    BASELINE,
    PATH_DEPENDENT,
    baseline_tree,
    inputs_digest,
    recorded,
    run,
    sample_engines,
    submissions,
)
from grader.harness.runner import KEEPS_PROCESS, Report, grade_engine
from grader.harness.sandbox import SandboxConfig
from grader.harness.suite import load_suite
from grader.harness.testkinds import TEST_KINDS
from grader.harness.verdicts import Verdict
from tests.harness._helpers import leftover_processes, needs_bwrap

DATA = Path(__file__).parent / "data"
GROUPS = DATA / "groups.json"  # several tests in every group
# Every sample engine graded with GROUPS by the baseline's code, written by
# `python -m bench.suite_cpu --record tests/harness/data/groups-9581471.json --suite
# tests/harness/data/groups.json` (its digest of the suite, the positions and the engines says
# when it must be written again).
RECORD = DATA / f"groups-{BASELINE}.json"


@pytest.fixture(scope="module")
def record() -> dict:
    return json.loads(RECORD.read_text())


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Report]:
    """graded(name): the sample engine's report on GROUPS by this code, graded once a module,
    the reference's work kept in one cache for them all (as bench.suite_cpu.compare keeps it)."""
    folder = tmp_path_factory.mktemp("graded")
    suite = load_suite(GROUPS)
    reports: dict[str, Report] = {}

    def grade(name: str) -> Report:
        if name not in reports:
            [engine] = submissions([name], folder / "engines")
            reports[name] = grade_engine(engine, suite, SandboxConfig(), cache=folder / "cache")
        return reports[name]

    return grade


def assert_same(name: str, old: dict, new: dict) -> None:
    """`new` (recorded() of a report) has the tests of `old` and each its verdict and points, but
    for a game whose moves the engine's clock chose (PATH_DEPENDENT)."""
    assert new["complete"], name
    assert [t[0] for t in new["tests"]] == [t[0] for t in old["tests"]], name
    for was, now in zip(old["tests"], new["tests"], strict=True):
        if was[1] == "play" and {was[2], now[2]} <= PATH_DEPENDENT:
            continue  # the engine's clock picked its moves: another game, either code
        assert now[2:4] == was[2:4], (name, now[0], was[2:4], now[2:4])


def test_the_record_is_of_the_baseline_and_of_todays_suite_and_engines(record: dict) -> None:
    assert record["baseline"] == BASELINE
    assert record["inputs"] == inputs_digest(GROUPS), "the inputs changed: write RECORD again"
    assert sorted(record["engines"]) == sample_engines()


@needs_bwrap
def test_the_baseline_still_grades_as_recorded(record: dict, tmp_path: Path) -> None:
    """The record is what the baseline's code (from git) gives here today, for an engine whose
    tests end in passes and in the sandbox's faults (MLE, and the broken pipe after it)."""
    name = "memory_hog"
    [engine] = submissions([name], tmp_path / "engines")
    [report], _, _ = run([engine], str(GROUPS), baseline_tree(BASELINE, tmp_path / "baseline"))
    assert_same(name, record["engines"][name], recorded(report))


@needs_bwrap
@pytest.mark.parametrize("name", sample_engines())
def test_every_sample_engine_gets_the_points_and_verdicts_it_got_before(
    name: str, record: dict, graded: Callable[[str], Report]
) -> None:
    report = graded(name)
    tests = [[t.name, t.kind, t.verdict.value, t.score] for t in report.tests]
    assert_same(name, record["engines"][name], {"complete": report.complete, "tests": tests})


def expected_starts(tests: list, results: list) -> int:
    """The engine's starts the rule gives: one for the first test, one after each test that
    ended its process (a verdict outside KEEPS_PROCESS, or a kind that reuses none), one for
    each group of a kind that starts fresh (TestKind.fresh_group) and for the play group
    (its lanes: one opponent, one lane); none more across groups."""
    starts, alive = 0, False
    for n, (case, result) in enumerate(zip(tests, results, strict=True)):
        kind = TEST_KINDS[case.kind]
        new_group = n == 0 or tests[n - 1].group != case.group
        if not alive or (new_group and (kind.fresh_group or case.kind == "play")):
            starts += 1
        alive = result.verdict in KEEPS_PROCESS and kind.reuses_process
    return starts


@needs_bwrap
def test_one_process_serves_the_groups_and_a_fault_gets_a_fresh_one(graded):
    suite = load_suite(GROUPS)
    groups = len({t.group for t in suite.tests})
    config = SandboxConfig()
    report = graded("correct")
    assert report.score == report.max_score
    # movegen, perft and both search groups in one process; timing, parallel and the game in
    # one each
    assert report.engine_starts == 4 == expected_starts(suite.tests, report.tests) < groups
    # memory_hog's searches end in a fault (MLE): each is charged alone, and the next test
    # runs in a fresh process; the tests that do not search pass in shared ones.
    report = graded("memory_hog")
    verdicts = [(t.kind, t.verdict.value) for t in report.tests]
    faults = [i for i, t in enumerate(report.tests) if t.verdict not in KEEPS_PROCESS]
    assert faults and all(report.tests[i].kind in ("search", "timing") for i in faults), verdicts
    assert report.engine_starts == expected_starts(suite.tests, report.tests), verdicts
    assert report.engine_starts > 4
    assert all(t.verdict is Verdict.PASSED for t in report.tests if t.kind in ("movegen", "play"))
    assert leftover_processes(config, report.slot) == []


@needs_bwrap
def test_the_log_and_its_cap_count_each_test_alone(submission):
    """An engine that prints on every call: each test's log is what it printed in that test."""
    chatty = "import correct\nfrom correct import *  # noqa: F403\n\n\ndef legal_moves(fen):\n    print('asked', fen)\n    return correct.legal_moves(fen)\n"
    suite = load_suite(GROUPS)
    report = grade_engine(submission("correct", {"engine.py": chatty}), suite, SandboxConfig())
    movegen = [
        (case, t) for case, t in zip(suite.tests, report.tests, strict=True) if t.kind == "movegen"
    ]
    assert len(movegen) > 1 and all(t.verdict is Verdict.PASSED for _, t in movegen)
    for case, t in movegen:  # not a running total over the process's tests
        assert t.extra["log_bytes"] == len(f"asked {case.params['fen']}\n"), t.name
