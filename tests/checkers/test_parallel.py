"""Root-parallel search (grader/checkers/parallel.py): its counts are the sums of its root moves'
own searches, in every mode; its checks; a root with no move. (Value and move against serial
search: tests/checkers/test_engine.py; with a window: tests/checkers/test_variants.py.)

Surviving mutants judged equivalent (mutmut on parallel.py):
- the number of workers (``workers = None``, ``workers and ...``, ``os.cpu_count() and 1``,
  ``or 2``, ``max_workers=None`` for the thread or process pool): how many threads or processes
  share the root moves; each move's search and the join in canonical order are the same.
- a root with no move: ``search`` given ``rules=None`` or no ``beta``: a position with no move
  is lost before the search reads its rules or its window.
- ``zip(..., strict=True)`` as ``False``, ``None`` or left out: one result per root move always.
"""

from __future__ import annotations

import time

import pytest

from grader.checkers.board import Board
from grader.checkers.engine import WIN, CheckersSearchRules, alphabeta, minimax, search
from grader.checkers.parallel import root_parallel
from grader.checkers.variants import CapturesOptionalBoard
from tests.checkers.test_engine import positions

FENS = [positions()[0], positions()[2], positions()[7]]


def children(board: Board, depth: int) -> list[tuple[int, int, int]]:
    """(value from the root's side, leaves, nodes) of each root move's own full-window search."""
    out = []
    for move in board.generate_legal_moves():
        board.push(move)
        child = search(board, depth - 1, ply=1)
        board.pop()
        out.append((-child.value, child.leaves, child.nodes))
    return out


@pytest.mark.parametrize("fen", FENS)
@pytest.mark.parametrize("mode", ["split", "threads", "processes"])
def test_the_counts_are_the_sums_of_the_root_moves_searches(fen: str, mode: str) -> None:
    board = Board(fen)
    parts = children(board, 3)
    before = time.perf_counter()
    result = root_parallel(board, 3, mode, workers=2)  # type: ignore[arg-type]
    took = time.perf_counter() - before
    best = max(value for value, _, _ in parts)
    first = [value for value, _, _ in parts].index(best)
    assert (result.value, result.best_move, result.depth) == (
        best,
        board.generate_legal_moves()[first],
        3,
    )
    assert result.leaves == sum(leaves for _, leaves, _ in parts)
    assert result.nodes == 1 + sum(nodes for _, _, nodes in parts)  # the root and its moves'
    assert 0 < result.elapsed <= took
    assert board.fen() == fen


def test_split_searches_under_the_rules_and_board_it_is_given():
    # Without pruning every root move's subtree is searched whole: minimax's leaves.
    board = Board(positions()[0])
    plain = root_parallel(board, 3, "split", rules=CheckersSearchRules(pruning=False))
    assert (plain.value, plain.leaves) == (minimax(board, 3).value, minimax(board, 3).leaves)
    # A misconception's board: its children are searched on that board's rules too.
    fen = "B:W18,19,24:B3,5,K10,14"
    optional = root_parallel(CapturesOptionalBoard(fen), 2, "split")
    assert (
        optional.leaves
        == search(CapturesOptionalBoard(fen), 2, CheckersSearchRules(pruning=False)).leaves
    )
    assert optional.leaves != root_parallel(Board(fen), 2, "split").leaves


def test_serial_is_the_fixed_depth_search_itself():
    board = Board(positions()[2])
    serial, fixed = root_parallel(board, 3, "serial"), alphabeta(board, 3)
    assert (serial.value, serial.best_move, serial.leaves, serial.nodes) == (
        fixed.value,
        fixed.best_move,
        fixed.leaves,
        fixed.nodes,
    )
    # A window above the value (the start is worth 0 at depth 3): alpha counts, and so does beta.
    start = Board()
    for alpha, beta in ((1, 301), (-300, -1)):
        serial = root_parallel(start, 3, "serial", alpha=alpha, beta=beta)
        fixed = alphabeta(start, 3, alpha=alpha, beta=beta)
        assert (serial.value, serial.leaves) == (fixed.value, fixed.leaves)
    assert alphabeta(start, 3, alpha=1, beta=301).leaves != alphabeta(start, 3, beta=301).leaves


def test_a_root_with_no_move_is_lost():
    result = root_parallel(Board("W:W29:B22,25"), 2, "split")
    assert (result.value, result.best_move, result.leaves) == (-WIN, None, 1)


def test_depth_and_mode_are_checked():
    with pytest.raises(ValueError, match="needs depth >= 1, got 0"):
        root_parallel(Board(), 0, "split")
    with pytest.raises(ValueError, match="unknown mode 'fibers'"):
        root_parallel(Board(), 2, "fibers")  # type: ignore[arg-type]


@pytest.mark.parametrize("offset", [-26, -1, 0, 74])
def test_every_mode_searches_the_root_moves_with_the_window_given(offset: int) -> None:
    board = Board(positions()[2])
    true = alphabeta(board, 3).value
    alpha, beta = true + offset, true + offset + 1
    serial = root_parallel(board, 3, "serial", alpha=alpha, beta=beta)
    fixed = alphabeta(board, 3, alpha=alpha, beta=beta)
    assert (serial.value, serial.leaves) == (fixed.value, fixed.leaves)
    split = root_parallel(board, 3, "split", alpha=alpha, beta=beta)
    for mode in ("threads", "processes"):
        result = root_parallel(board, 3, mode, workers=2, alpha=alpha, beta=beta)  # type: ignore[arg-type]
        assert (result.value, result.leaves, result.nodes) == (
            split.value,
            split.leaves,
            split.nodes,
        ), mode


def test_processes_by_default_and_depth_one_is_enough():
    board = Board(positions()[2])
    default = root_parallel(board, 2)
    fixed = alphabeta(board, 2)
    assert (default.value, default.best_move) == (fixed.value, fixed.best_move)
    one = root_parallel(board, 1, "split")
    fixed = alphabeta(board, 1)
    assert (one.value, one.best_move, one.leaves) == (fixed.value, fixed.best_move, fixed.leaves)


@pytest.mark.parametrize(
    ("fen", "depth"), [("B:W13:BK32,9,1", 1), ("B:W13:BK32,9,1", 3), ("B:W14:B9", 2)]
)
def test_a_win_is_scored_at_its_distance_from_the_root(fen: str, depth: int) -> None:
    fixed = alphabeta(Board(fen), depth)
    assert fixed.value > WIN - 10
    for mode in ("split", "threads"):
        result = root_parallel(Board(fen), depth, mode)  # type: ignore[arg-type]
        assert (result.value, result.best_move) == (fixed.value, fixed.best_move), mode
