"""Forks without end in search; the children sleep, the parent keeps forking: the process
limit stops the forks, the CPU limit (TLE) stops the parent, and the whole sandbox dies."""

import os
import signal

from correct import choose_move, legal_moves  # noqa: F401


def search(fen, depth):
    while True:
        try:
            pid = os.fork()
        except OSError:
            continue
        if pid == 0:
            while True:
                signal.pause()
