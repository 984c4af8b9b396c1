"""The engine test suite: definitions read from data (exercises/checkers/suite/), expanded
into tests by their kinds.

A suite file is JSON: a name, the import limits, and groups of one kind each. Every group
expands into tests through its kind in TEST_KINDS (grader/harness/testkinds/); a test is run by
`run_test` on a started sandboxed engine process (the runner's: one serves a group's tests
until one of them ends in a fault) and returns a `TestResult` with a verdict
(grader/harness/verdicts.py), a score and what to tell the student. The reference answers come
from grader.checkers, computed once per suite and machine (grader/harness/references.py).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from grader import data
from grader.harness.cases import TestCase, TestResult
from grader.harness.elo import LADDER_RATINGS
from grader.harness.references import References
from grader.harness.sandbox import EngineProcess
from grader.harness.testkinds import TEST_KINDS, Group

SUITES = ("quick", "full")


@dataclass(frozen=True)
class Suite:
    name: str
    description: str
    start_cpu: float
    start_wall: float
    tests: tuple[TestCase, ...]
    ratings: dict[str, float]

    @property
    def max_score(self) -> float:
        return sum(t.points for t in self.tests)

    @property
    def version(self) -> str:
        """What a stored result records of the suite that gave it: a hash of its tests (names,
        kinds, points, parameters, visibility), so any fix to a test changes it."""
        tests = [[t.name, t.kind, t.points, t.params, t.visibility, t.group] for t in self.tests]
        text = json.dumps([self.name, tests], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def game_count(self) -> int:
        return sum(TEST_KINDS[t.kind].games for t in self.tests)


@cache
def positions(path: Path | None = None) -> dict[str, dict[str, str]]:
    """The named positions of a suite (the shipped positions.json by default)."""
    table = json.loads(
        Path(path or data.suite_dir() / "positions.json").read_text(encoding="utf-8")
    )
    return {name: entry for name, entry in table.items() if not name.startswith("_")}


def load_suite(name_or_path: str | Path) -> Suite:
    """A suite by name (quick, full) or from a JSON file."""
    path = Path(name_or_path)
    if not path.suffix:
        path = data.suite_dir() / f"{name_or_path}.json"
    definition = json.loads(path.read_text(encoding="utf-8"))
    # An instructor's suite may name its own positions file, relative to the suite file.
    table = positions(path.parent / definition["positions"] if "positions" in definition else None)
    tests: list[TestCase] = []
    for number, group in enumerate(definition["groups"]):
        kind = TEST_KINDS.get(group["kind"])
        if kind is None:
            raise ValueError(
                f"unknown test kind {group['kind']!r}: expected one of {', '.join(TEST_KINDS)}"
            )
        tests.extend(replace(t, group=number) for t in kind.expand(Group(group, table)))
    start = definition.get("start", {})
    return Suite(
        definition["name"],
        definition.get("description", ""),
        float(start.get("cpu", 5)),
        float(start.get("wall", 10)),
        tuple(tests),
        {**LADDER_RATINGS, **definition.get("ratings", {})},
    )


def run_test(test: TestCase, process: EngineProcess, refs: References) -> TestResult:
    """Run `test` on a started engine process, by its kind."""
    return TEST_KINDS[test.kind].run(test, process, refs)
