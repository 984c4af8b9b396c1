"""A classic mistake: positions at depth 0 scored for the side that just moved."""

import correct
from correct import *  # noqa: F403

_evaluate = correct.evaluate


def evaluate(board, turn):
    return -_evaluate(board, turn)


correct.evaluate = evaluate
