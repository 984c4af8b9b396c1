"""Spins forever in search (and choose_move): a CPU time limit exceeded (TLE)."""

from correct import legal_moves  # noqa: F401


def search(fen, depth):
    n = 0
    while True:
        n += 1


def choose_move(fen, time_left):
    while True:
        pass
