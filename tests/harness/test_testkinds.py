"""The registry of test kinds: the six shipped kinds, a new kind added as one class (expanded by
load_suite and run in the real sandbox by the runner), unknown kinds refused, and the move limit
a game's player takes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.harness.cases import TestCase, TestResult, result_of
from grader.harness.referee import MoveLimit
from grader.harness.references import References
from grader.harness.runner import grade_engine
from grader.harness.sandbox import EngineProcess
from grader.harness.suite import Suite, load_suite
from grader.harness.testkinds import TEST_KINDS, Group, TestKind, register
from grader.harness.verdicts import Verdict
from tests.harness._helpers import ENGINES, needs_bwrap


def test_the_shipped_kinds_are_registered() -> None:
    assert set(TEST_KINDS) == {"movegen", "perft", "search", "timing", "parallel", "play"}
    assert all(kind.name == name for name, kind in TEST_KINDS.items())
    assert {name for name, kind in TEST_KINDS.items() if kind.games} == {"play"}


class Count(TestKind):
    """A made-up kind for the test: how many legal moves the engine lists."""

    name = "count-moves"
    title = "Move counts"

    def expand(self, group: Group) -> list[TestCase]:
        return [
            group.case(f"Count: {p}", fen=group.fen(p), expected=int(group.spec["expected"]))
            for p in group.spec["positions"]
        ]

    def run(self, test: TestCase, process: EngineProcess, refs: References) -> TestResult:
        outcome = process.call("legal_moves", [test.params["fen"]], test.cpu, test.wall)
        right = outcome.answered and len(outcome.result) == test.params["expected"]
        return result_of(
            test,
            Verdict.PASSED if right else Verdict.WA,
            f"{len(outcome.result)} moves",
            test.points if right else 0.0,
            outcome.cpu,
            outcome.wall,
        )


@pytest.fixture
def count_kind() -> Iterator[None]:
    register(Count)
    try:
        yield
    finally:
        del TEST_KINDS[Count.name]


def _suite(tmp_path: Path, groups: list[dict]) -> Path:
    path = tmp_path / "suite.json"
    path.write_text(json.dumps({"name": "new-kind", "groups": groups}), encoding="utf-8")
    return path


@needs_bwrap
@pytest.mark.usefixtures("count_kind")
def test_a_new_kind_is_one_class(tmp_path: Path) -> None:
    suite = load_suite(
        _suite(
            tmp_path,
            [
                {
                    "kind": "count-moves",
                    "points": 2,
                    "cpu": 2,
                    "wall": 4,
                    "expected": 7,
                    "positions": ["start"],
                },
                {
                    "kind": "count-moves",
                    "points": 1,
                    "cpu": 2,
                    "wall": 4,
                    "expected": 8,
                    "positions": ["start"],
                },
            ],
        )
    )
    assert [(t.kind, t.points, t.cpu, t.wall) for t in suite.tests] == [
        ("count-moves", 2.0, 2.0, 4.0),
        ("count-moves", 1.0, 2.0, 4.0),
    ]
    report = grade_engine(ENGINES / "correct.py", suite)
    assert [(t.verdict, t.score, t.output) for t in report.tests] == [
        (Verdict.PASSED, 2.0, "7 moves"),
        (Verdict.WA, 0.0, "7 moves"),
    ]


def test_a_kind_needs_a_name_of_its_own() -> None:
    class Again(TestKind):
        name = "search"

    class Nameless(TestKind):
        pass

    class Untitled(TestKind):
        name = "untitled"

    for kind in (Again, Nameless):
        with pytest.raises(ValueError, match="a name of its own"):
            register(kind)
    with pytest.raises(ValueError, match="needs a title"):
        register(Untitled)  # the results page folds a kind's tests under its title
    assert type(TEST_KINDS["search"]).__name__ == "Search"
    assert "untitled" not in TEST_KINDS


def test_an_unknown_kind_is_refused_naming_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"unknown test kind 'blitz'.*movegen.*play"):
        load_suite(_suite(tmp_path, [{"kind": "blitz", "positions": ["start"]}]))


def test_a_game_takes_its_move_limit(tiny: Suite) -> None:
    limit = MoveLimit(time_per_move=0.1, margin=0.4)
    assert (limit.cpu, limit.wall) == pytest.approx((0.5, 2.5))
    games = [t for t in tiny.tests if t.kind == "play"]
    assert games and all(
        (t.cpu, t.wall) == pytest.approx((limit.cpu, limit.wall))
        and t.params["time_per_move"] == 0.1
        for t in games
    )
    assert tiny.game_count == len(games)
