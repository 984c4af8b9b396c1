"""Written for the old contract: search(fen, depth) and search_parallel(fen, depth, workers),
no window. Right answers where the grader gives the full window."""

import correct
from correct import choose_move, legal_moves  # noqa: F401


def search(fen, depth):
    return correct.search(fen, depth)


def search_parallel(fen, depth, workers):
    return correct.search_parallel(fen, depth, workers)
