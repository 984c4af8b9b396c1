"""A classic mistake: moves sorted as text ('10-14' before '9-13'), not as number sequences."""

import correct
from correct import *  # noqa: F403

_numeric_order = correct.get_moves


def get_moves(board, turn):
    return sorted(_numeric_order(board, turn), key=correct.pdn)


correct.get_moves = get_moves
