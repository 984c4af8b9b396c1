"""Smoke run of bench/suite_cpu's group table (figures only printed, never asserted: the machine
is shared)."""

import json
import shutil
from pathlib import Path

from grader import data
from grader.harness.suite import load_suite
from tests.bench.bench_support import ROOT, run_bench
from tests.harness._helpers import needs_bwrap

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
