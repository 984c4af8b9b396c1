"""Closes the protocol channel under the adapter, then returns: RE (its process dies), never IE."""

import os

from correct import legal_moves  # noqa: F401


def search(fen, depth):
    os.closerange(3, 64)
    return {"value": 0}


def choose_move(fen, time_left):
    return search(fen, 1)
