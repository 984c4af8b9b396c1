"""Root-parallel search (grader/checkers/parallel.py): its counts are the sums of its root moves'
own searches, in every mode; its checks; a root with no move. (Value and move against serial
search: tests/checkers/test_engine.py; with a window: tests/checkers/test_variants.py.)

Surviving mutants judged equivalent (mutmut on parallel.py):
"""

from __future__ import annotations

import time

import pytest

from grader.checkers.board import Board
from grader.checkers.engine import WIN, Rules, alphabeta, minimax, search
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
    plain = root_parallel(board, 3, "split", rules=Rules(pruning=False))
    assert (plain.value, plain.leaves) == (minimax(board, 3).value, minimax(board, 3).leaves)
    # A misconception's board: its children are searched on that board's rules too.
    fen = "B:W18,19,24:B3,5,K10,14"
    optional = root_parallel(CapturesOptionalBoard(fen), 2, "split")
    assert optional.leaves == search(CapturesOptionalBoard(fen), 2, Rules(pruning=False)).leaves
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


def test_a_root_with_no_move_is_lost():
    result = root_parallel(Board("W:W29:B22,25"), 2, "split")
    assert (result.value, result.best_move, result.leaves) == (-WIN, None, 1)


def test_depth_and_mode_are_checked():
    with pytest.raises(ValueError, match="needs depth >= 1, got 0"):
        root_parallel(Board(), 0, "split")
    with pytest.raises(ValueError, match="unknown mode 'fibers'"):
        root_parallel(Board(), 2, "fibers")  # type: ignore[arg-type]
