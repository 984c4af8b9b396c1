"""Writes a JSON line nested 100,000 deep on the protocol channel: PROTOCOL, never IE."""

from _channel import write_protocol
from correct import legal_moves  # noqa: F401


def search(fen, depth):
    write_protocol(b"[" * 100_000 + b"]" * 100_000 + b"\n")
    return {"value": 0}


def choose_move(fen, time_left):
    return search(fen, 1)
