"""The evaluation the checkers assignment prescribes (exercises/checkers/ASSIGNMENT.md).

Material only, so that every student can reproduce values exactly: a man is worth MAN_VALUE,
a king KING_VALUE, and the score is the side to move's material minus the opponent's.
"""

from __future__ import annotations

from grader.checkers.board import BLACK, Board

MAN_VALUE = 100
KING_VALUE = 150


def material(own: int, opp: int, kings: int) -> int:
    """Material balance of `own` against `opp` (bitboards) given the kings bitboard."""
    return MAN_VALUE * ((own & ~kings).bit_count() - (opp & ~kings).bit_count()) + KING_VALUE * (
        (own & kings).bit_count() - (opp & kings).bit_count()
    )


def evaluate(board: Board) -> int:
    """The prescribed evaluation, from the point of view of the side to move."""
    if board.turn == BLACK:
        return material(board.black, board.white, board.kings)
    return material(board.white, board.black, board.kings)
