"""Perft: the number of move paths of a given length, with bulk counting at the last ply."""

from __future__ import annotations

from grader.checkers.board import (
    BLACK,
    BLACK_KING_ROW,
    WHITE_KING_ROW,
    Board,
    Move,
    count_moves,
    generate_raw,
    make_raw,
)


def _perft(own: int, opp: int, kings: int, black: bool, depth: int) -> int:
    """Leaf count below a raw position; `own` is the side to move, `black` says which side."""
    if depth == 1:
        return count_moves(own, opp, kings, black)
    crown = BLACK_KING_ROW if black else WHITE_KING_ROW
    other = not black
    total = 0
    if depth == 2:  # the replies are counted, not made
        for frm, to, cap, _ in generate_raw(own, opp, kings, black):
            moved, left, k = make_raw(own, opp, kings, frm, to, cap, crown)
            total += count_moves(left, moved, k, other)
        return total
    for frm, to, cap, _ in generate_raw(own, opp, kings, black):
        moved, left, k = make_raw(own, opp, kings, frm, to, cap, crown)
        total += _perft(left, moved, k, other, depth - 1)
    return total


def perft(board: Board, depth: int) -> int:
    """The number of legal move sequences of `depth` plies from `board` (1 for depth 0)."""
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    if depth == 0:
        return 1
    own, opp = (board.black, board.white) if board.turn == BLACK else (board.white, board.black)
    return _perft(own, opp, board.kings, board.turn, depth)


def divide(board: Board, depth: int) -> list[tuple[Move, int]]:
    """Perft split by root move, in canonical order: [(move, leaves below it), ...]."""
    if depth < 1:
        raise ValueError(f"divide needs depth >= 1, got {depth}")
    out = []
    for move in board.generate_legal_moves():
        board.push(move)
        try:
            out.append((move, perft(board, depth - 1)))
        finally:
            board.pop()
    return out
