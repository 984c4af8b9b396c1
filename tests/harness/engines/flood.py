"""Prints without end in search: an output limit exceeded (OLE)."""

import sys

from correct import legal_moves  # noqa: F401


def search(fen, depth):
    line = "debug " * 100
    while True:
        print(line)
        sys.stderr.write(line + "\n")


def choose_move(fen, time_left):
    return search(fen, 1)
