"""Perft against the published counts (OEIS A133046) and against a brute force by push/pop."""

import pytest

from grader.checkers.board import Board
from grader.checkers.perft import divide, perft

# Published perft counts of English draughts from the initial position (OEIS A133046).
PUBLISHED = [1, 7, 49, 302, 1469, 7361, 36768, 179740, 845931]


@pytest.mark.parametrize("depth", range(9))
def test_perft_from_the_start_matches_the_published_counts(depth):
    assert perft(Board(), depth) == PUBLISHED[depth]


def brute_perft(board: Board, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in list(board.legal_moves):
        board.push(move)
        total += brute_perft(board, depth - 1)
        board.pop()
    return total


@pytest.mark.parametrize(
    "fen",
    [
        "B:W6,7,14,15:B2",
        "W:WK3,18,19,26,27,30:B5,K10,12,13,K22",
        "B:W10,11,18,19,K30:BK7,K1,25",
        "W:W17,21,22,23,24,25,26,27,28,29,31,32:B1,2,3,4,5,6,7,8,9,10,11,13",
    ],
)
def test_bulk_counted_perft_equals_push_pop_enumeration(fen):
    board = Board(fen)
    for depth in range(1, 5):
        assert perft(board, depth) == brute_perft(board, depth)
    assert board.fen() == Board(fen).fen()  # push/pop restored the position


def test_divide_splits_the_total_by_root_move_in_canonical_order():
    rows = divide(Board(), 3)
    assert [m.pdn() for m, _ in rows] == [
        "9-13",
        "9-14",
        "10-14",
        "10-15",
        "11-15",
        "11-16",
        "12-16",
    ]
    assert sum(n for _, n in rows) == PUBLISHED[3]


def test_perft_rejects_a_negative_depth():
    with pytest.raises(ValueError, match="-1"):
        perft(Board(), -1)
