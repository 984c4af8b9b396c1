"""The suite's data: each position has its theme, the suites load, and the correct sample
engine gets full marks on the real quick suite."""

from __future__ import annotations

import pytest

from grader.checkers import BLACK, Board, alphabeta
from grader.checkers.variants import VARIANTS
from grader.harness.runner import grade_engine
from grader.harness.sandbox import SandboxConfig
from grader.harness.suite import SUITES, load_suite, positions
from grader.harness.testkinds.search import root_window
from tests.harness._helpers import ENGINES, needs_bwrap


def crowns(board: Board, square: int) -> bool:
    return square >= 29 if board.turn == BLACK else square <= 4


def is_king(board: Board, square: int) -> bool:
    return bool(board.kings >> (square - 1) & 1)


THEMES = {
    "forced-capture": lambda b, ms: ms and all(m.is_capture for m in ms),
    "multi-jump": lambda b, ms: any(len(m.captured) >= 2 for m in ms),
    "crown-ends-jump": lambda b, ms: any(
        m.is_capture and not is_king(b, m.path[0]) and crowns(b, m.path[-1]) for m in ms
    ),
    "king-jump": lambda b, ms: any(m.is_capture and is_king(b, m.path[0]) for m in ms),
    "king-loop": lambda b, ms: any(
        is_king(b, m.path[0]) and len(set(m.path)) < len(m.path) for m in ms
    ),
    "no-moves": lambda b, ms: not ms,
    "middlegame": lambda b, ms: len(ms) >= 2 and b.kings,
    "timing": lambda b, ms: len(ms) >= 8,
    "opening": lambda b, ms: len(ms) == 7,
}


@pytest.mark.parametrize("name", list(positions()))
def test_position_has_its_theme(name: str) -> None:
    entry = positions()[name]
    board = Board(entry["fen"])
    assert THEMES[entry["theme"]](board, board.generate_legal_moves())


@pytest.mark.parametrize("name", SUITES)
def test_suite_loads(name: str) -> None:
    suite = load_suite(name)
    kinds = {t.kind for t in suite.tests}
    assert kinds == {"movegen", "perft", "search", "timing", "parallel", "play"}
    assert suite.game_count >= 10
    opponents = {t.params["opponent"] for t in suite.tests if t.kind == "play"}
    assert opponents == {"random", "greedy", "ref:2", "ref:4", "ref:6"}
    colours = {
        (t.params["opponent"], t.params["ballot"], t.params["colour"])
        for t in suite.tests
        if t.kind == "play"
    }
    assert len(colours) == suite.game_count  # each ballot twice, colours reversed


@pytest.mark.parametrize("name", SUITES)
def test_null_windows_tell_fail_soft_from_fail_hard_and_ties(name: str) -> None:
    """The windowed search tests have, for every position and depth, a window where fail-hard
    answers differently and one where the tie rule flipped does (value or leaves); every narrow
    (not null) window is one where fail-hard answers differently."""
    groups: dict[tuple[str, int], set[str]] = {}
    for test in load_suite(name).tests:
        if test.kind != "search" or "window_offsets" not in test.params:
            continue
        fen, depth = test.params["fen"], test.params["depth"]
        alpha, beta = root_window(test)
        contract = alphabeta(Board(fen), depth, alpha=alpha, beta=beta)
        caught = groups.setdefault((fen, depth), set())
        for code in ("fail-hard", "tie-strict"):
            result = VARIANTS[code].run(fen, depth, alpha, beta)
            if (result.value, result.leaves) != (contract.value, contract.leaves):
                caught.add(code)
            elif code == "fail-hard":
                assert beta - alpha == 1, f"{test.name}: fail-hard answers the same"
    assert groups and all(caught == {"fail-hard", "tie-strict"} for caught in groups.values())


@needs_bwrap
@pytest.mark.slow
def test_correct_engine_gets_full_marks_on_quick() -> None:
    report = grade_engine(ENGINES / "correct.py", "quick", SandboxConfig())
    failed = [
        (t.name, t.verdict.value, t.output[:200]) for t in report.tests if t.score != t.max_score
    ]
    assert not failed
    assert report.score == report.max_score > 0
    assert report.elo is not None and report.elo.games == 10
    assert all("pdn" in g.extra for g in report.games)
