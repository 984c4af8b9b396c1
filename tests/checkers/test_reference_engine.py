"""The reference engine students play against (grader/checkers/engine.py, ``ReferenceEngine``):
its time control on a clock of its own (time counted in nodes searched, so nothing here depends on
the machine's speed), what it reports, and its table against the plain fixed-depth search. The
values against the fixed-depth search on many positions are in tests/checkers/test_search_exact.py.

Surviving mutants judged equivalent (mutmut on engine.py, the ``ReferenceEngine`` methods and
``_to_tt`` / ``_from_tt``):
"""

from __future__ import annotations

import pytest

from grader.checkers.board import Board
from grader.checkers.engine import (
    INFINITY,
    MAX_PLY,
    ReferenceEngine,
    SearchOutcome,
    alphabeta,
    search,
)
from grader.checkers.evaluation import evaluate

# A middlegame whose deepening crosses the clock checks (every 1024 nodes) at depth 6.
MIDDLE = "B:W6,20,21,26,27,28,29,30,31:B2,3,4,5,7,9,11,12"
EPOCH = 1000.0  # the node clock's reading before the search: a start that is not 0


def on_node_clock(fen: str, depth: int, limit: float | None) -> tuple[SearchOutcome, Board]:
    """The engine's search where one node searched is one second."""
    engine: ReferenceEngine
    engine = ReferenceEngine(clock=lambda: EPOCH + engine.nodes)
    board = Board(fen)
    return engine.search(board, depth, time_limit=limit), board


def nodes_through(fen: str, depth: int) -> int:
    """The nodes searched by the deepening from 1 to `depth`, with no time limit."""
    return ReferenceEngine().search(Board(fen), depth).nodes


def test_no_iteration_starts_once_half_the_limit_has_gone():
    start = Board().fen()
    three, four = nodes_through(start, 3), nodes_through(start, 4)
    assert four < 1024  # no clock check inside: only the rule between iterations acts
    stopped, _ = on_node_clock(start, 10, limit=2 * three - 1)  # more than half gone after 3
    assert (stopped.depth, stopped.nodes, stopped.elapsed) == (3, three, three)
    assert stopped.value == alphabeta(Board(), 3).value
    went_on, _ = on_node_clock(start, 10, limit=2 * three)  # exactly half: one more iteration
    assert (went_on.depth, went_on.nodes, went_on.elapsed) == (4, four, four)
    assert went_on.value == alphabeta(Board(), 4).value


def test_an_iteration_past_the_deadline_is_dropped_at_a_clock_check():
    four, five, six = (nodes_through(MIDDLE, d) for d in (4, 5, 6))
    assert five < 1024 and 2 * five < 2048 <= six < 3072  # depth 6 checks at 1024 and 2048
    # Past its deadline (2 * four) during depth 5, but no check falls in it: depth 5 completes.
    result, _ = on_node_clock(MIDDLE, 10, limit=2 * four)
    assert five > 2 * four and (result.depth, result.nodes) == (5, five)
    fixed5 = alphabeta(Board(MIDDLE), 5)
    for limit in (2 * five, 2047):
        # Depth 6 starts (half the limit not gone), and the check at node 2048 finds the
        # deadline passed: the answer is depth 5's, the nodes those searched until then.
        result, board = on_node_clock(MIDDLE, 10, limit)
        assert (result.depth, result.value, result.nodes, result.elapsed) == (
            5,
            fixed5.value,
            2048,
            2048,
        ), limit
        assert result.best_move == ReferenceEngine().search(Board(MIDDLE), 5).best_move
        assert board.fen() == MIDDLE  # the dropped iteration took its moves back
    # At the deadline exactly, not past it: depth 6 completes.
    result, _ = on_node_clock(MIDDLE, 10, limit=2048)
    assert (result.depth, result.nodes) == (6, six)
    assert result.value == alphabeta(Board(MIDDLE), 6).value
    # Below half the limit after 5 (2 * five - 1): no sixth iteration at all.
    result, _ = on_node_clock(MIDDLE, 10, limit=2 * five - 1)
    assert (result.depth, result.nodes) == (5, five)


def test_with_no_limit_the_clock_changes_nothing():
    plain = ReferenceEngine().search(Board(MIDDLE), 6)
    timed, _ = on_node_clock(MIDDLE, 6, limit=None)
    assert (timed.depth, timed.value, timed.best_move, timed.nodes, timed.leaves) == (
        6,
        plain.value,
        plain.best_move,
        plain.nodes,
        plain.leaves,
    )
    assert timed.elapsed == plain.nodes  # the time of the whole search, on the node clock


def test_depth_one_always_completes():
    # A limit of zero: depth 1's deadline is lifted, and no second iteration starts.
    result, _ = on_node_clock(MIDDLE, 10, limit=0.0)
    fixed = alphabeta(Board(MIDDLE), 1)
    assert (result.depth, result.value, result.best_move) == (1, fixed.value, fixed.best_move)
    assert result.nodes == fixed.nodes and result.leaves == fixed.leaves


@pytest.mark.parametrize(
    "fen",
    [
        Board().fen(),
        MIDDLE,
        "B:W13:BK32,9,1",  # 1-6 leaves White without a move: a leaf before the horizon
        "B:W25,26:B22",
    ],
)
def test_depth_one_counts_what_the_fixed_depth_search_counts(fen):
    # Depth 1 has nothing in the table yet and cuts nothing: the same leaves and nodes.
    result = ReferenceEngine().search(Board(fen), 1)
    fixed = alphabeta(Board(fen), 1)
    assert (result.value, result.best_move, result.leaves, result.nodes, result.depth) == (
        fixed.value,
        fixed.best_move,
        fixed.leaves,
        fixed.nodes,
        1,
    )


def test_a_root_with_no_move_is_lost_at_once():
    board = Board("W:W29:B22,25")
    fixed = alphabeta(board, 3)
    result = ReferenceEngine().search(board, 3)
    assert (result.value, result.best_move, result.leaves, result.nodes) == (
        fixed.value,
        None,
        fixed.leaves,
        fixed.nodes,
    )
    assert (result.depth, result.elapsed, result.pv) == (0, 0.0, ())


def test_depth_zero_searches_nothing_and_answers_the_first_move():
    board = Board(MIDDLE)
    result = ReferenceEngine().search(board, 0)
    assert (result.value, result.best_move, result.depth) == (
        alphabeta(board, 0).value,
        board.generate_legal_moves()[0],
        0,
    )
    assert (result.leaves, result.nodes, result.pv) == (0, 0, ())


@pytest.mark.parametrize("size", [1, 2, 7])
def test_the_table_never_holds_more_than_its_size(size: int) -> None:
    board = Board(MIDDLE)
    small = ReferenceEngine(tt_size=size)
    result = small.search(board, 5)
    assert 1 <= len(small.tt) <= size
    full = ReferenceEngine()
    assert full.search(board, 5).value == result.value == alphabeta(board, 5).value
    assert len(full.tt) > 7  # the bound, not the search, kept the small table small


def test_a_node_at_the_ply_limit_is_a_leaf():
    # No game reaches ply MAX_PLY within a test's time, so its node is searched directly, on an
    # engine whose search has set up its move-ordering tables.
    fen = "B:W25,26:B22"  # Black captures and crowns: one ply changes the material
    board = Board(fen)
    engine = ReferenceEngine()
    engine.search(board, 1)
    at_limit = engine._search(board, 3, MAX_PLY, -INFINITY, INFINITY)
    assert at_limit == evaluate(board)
    below = engine._search(board, 3, MAX_PLY - 1, -INFINITY, INFINITY)  # one ply, then leaves
    assert below == search(board, 1, ply=MAX_PLY - 1).value != at_limit
    assert board.fen() == fen
