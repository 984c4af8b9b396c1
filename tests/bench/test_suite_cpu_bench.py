"""Smoke runs of bench/suite_cpu's group table and its table of a suite's change (figures only
printed, never asserted: the machine is shared)."""

import json
import shutil
from pathlib import Path

from grader import data
from grader.harness.suite import load_suite
from tests.bench.bench_support import ROOT, run_bench
from tests.harness._helpers import TINY, needs_bwrap

GROUPS = ROOT / "tests" / "harness" / "data" / "groups.json"


@needs_bwrap
def test_the_group_table_grades_each_group_alone_and_sums_them(tmp_path: Path) -> None:
    """A row per group of the suite, in its order, with its tests, and a row of their sums; a
    suite naming its own positions file (beside it) keeps it when its groups are cut apart."""
    suite = json.loads(GROUPS.read_text())
    shutil.copyfile(data.suite_dir() / "positions.json", tmp_path / "our-positions.json")
    (tmp_path / "suite.json").write_text(json.dumps({**suite, "positions": "our-positions.json"}))
    out = run_bench("suite_cpu", "--groups", "--suite", str(tmp_path / "suite.json"))
    rows = [
        [cell.strip() for cell in line.split("|")[1:-1]]
        for line in out.splitlines()
        if line.startswith("| ") and not line.startswith("| group ")
    ]
    *groups, total = rows
    assert [r[1] for r in groups] == [g["kind"] for g in suite["groups"]], out
    counts = [int(r[2]) for r in groups]
    tests = load_suite(GROUPS).tests
    assert counts == [sum(t.group == n for t in tests) for n in range(len(suite["groups"]))]
    assert total[0] == "all" and int(total[2]) == len(tests)
    for column in (3, 4, 5, 6):  # the sums of the rows as printed, to their rounding
        assert abs(float(total[column]) - sum(float(r[column]) for r in groups)) <= 0.005 * len(
            groups
        ), out


@needs_bwrap
def test_a_suites_change_is_tabled_engine_by_engine(tmp_path: Path) -> None:
    """`--points --before OLD`: a row per sample engine named and per engine file added (named
    by its file), with its points under each suite; a change that moves no points says so."""
    tiny = json.loads(TINY.read_text())
    plays = [g for g in tiny["groups"] if g["kind"] == "play"]
    assert plays, "the tiny suite has a play group"
    before = {
        **tiny,
        "groups": [{**g, "time_per_move": 0.05} if g in plays else g for g in tiny["groups"]],
    }
    (tmp_path / "before.json").write_text(json.dumps(before))
    out = run_bench(
        "suite_cpu",
        "--points",
        "--suite",
        str(TINY),
        "--before",
        str(tmp_path / "before.json"),
        "--samples",
        "correct,wrong_side",
        "--also",
        str(ROOT / "bench" / "handout_engines" / "bob.py"),
    )
    rows = [
        [cell.strip() for cell in line.split("|")[1:-1]]
        for line in out.splitlines()
        if line.startswith("| ") and not line.startswith("| engine ")
    ]
    assert [r[0] for r in rows] == ["correct", "wrong_side", "bob"], out
    top = load_suite(TINY).max_score
    assert [r[1] for r in rows] == [r[2] for r in rows], out
    assert rows[0][1] == rows[2][1] == f"{top:g}/{top:g}" != rows[1][1], out
    assert all(r[3] == "yes" for r in rows), out
