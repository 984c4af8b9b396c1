"""One engine process serves a suite's tests, group after group (grader/harness/runner.py): every sample
engine gets the same verdicts and points as with the code before it (a process per test,
the baseline commit of bench.suite_cpu, from git), but for games its clock chose the moves of,
and a fault ends the process that gave it."""

from __future__ import annotations

from pathlib import Path

from bench.suite_cpu import BASELINE, PATH_DEPENDENT, compare, sample_engines
from grader.harness.runner import KEEPS_PROCESS, grade_engine
from grader.harness.sandbox import SandboxConfig
from grader.harness.suite import load_suite
from grader.harness.testkinds import TEST_KINDS
from grader.harness.verdicts import Verdict
from tests.harness._helpers import leftover_processes, needs_bwrap

GROUPS = Path(__file__).parent / "data" / "groups.json"  # several tests in every group


@needs_bwrap
def test_every_sample_engine_gets_the_points_and_verdicts_it_got_before(tmp_path):
    names = sample_engines()
    before, after = compare(names, str(GROUPS), BASELINE, tmp_path)
    assert len(before) == len(after) == len(names)
    for name, old, new in zip(names, before, after, strict=True):
        assert new["complete"], name
        assert [t[0] for t in new["tests"]] == [t[0] for t in old["tests"]], name
        for was, now in zip(old["tests"], new["tests"], strict=True):
            if was[1] == "play" and {was[2], now[2]} <= PATH_DEPENDENT:
                continue  # the engine's clock picked its moves: another game, either code
            assert now[2:4] == was[2:4], (name, now[0], was[2:4], now[2:4])


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
def test_one_process_serves_the_groups_and_a_fault_gets_a_fresh_one(submission):
    suite = load_suite(GROUPS)
    groups = len({t.group for t in suite.tests})
    config = SandboxConfig()
    report = grade_engine(submission("correct"), suite, config)
    assert report.score == report.max_score
    # movegen, perft and both search groups in one process; timing, parallel and the game in
    # one each
    assert report.engine_starts == 4 == expected_starts(suite.tests, report.tests) < groups
    # memory_hog's searches end in a fault (MLE): each is charged alone, and the next test
    # runs in a fresh process; the tests that do not search pass in shared ones.
    report = grade_engine(submission("memory_hog"), suite, config)
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
