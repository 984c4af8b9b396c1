"""A classic mistake: moves searched in reverse canonical order (last to first)."""

import correct
from correct import *  # noqa: F403

_canonical_order = correct.get_moves


def get_moves(board, turn):
    return _canonical_order(board, turn)[::-1]


correct.get_moves = get_moves
