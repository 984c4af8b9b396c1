"""Allocates without end in search: a memory limit exceeded (MLE)."""

from correct import choose_move, legal_moves  # noqa: F401


def search(fen, depth):
    hoard = []
    while True:
        hoard.append(bytes(64 << 20))  # a table of zeros: calloc'd, so quick to ask for
