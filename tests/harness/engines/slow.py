"""Correct answers, about 60 times slower than the correct engine (the search is repeated): past
the real suites' zero-credit ratio of 30 by a margin that a loaded machine's noise in the timing
of small searches (the correct engine at 0.7-1.5 times the reference) does not cross."""

import correct
from correct import *  # noqa: F403

_search = correct.search


def search(fen, depth, alpha=-correct.INF, beta=correct.INF):
    for _ in range(59):
        _search(fen, depth, alpha, beta)
    return _search(fen, depth, alpha, beta)
