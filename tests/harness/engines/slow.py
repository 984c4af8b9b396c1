"""Correct answers, about 30 times slower than the correct engine (the search is repeated)."""

import correct
from correct import *  # noqa: F403

_search = correct.search


def search(fen, depth, alpha=-correct.INF, beta=correct.INF):
    for _ in range(29):
        _search(fen, depth, alpha, beta)
    return _search(fen, depth, alpha, beta)
