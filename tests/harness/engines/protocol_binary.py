"""Writes bytes that are not UTF-8 on the protocol channel: PROTOCOL, never IE."""

from _channel import write_protocol
from correct import legal_moves  # noqa: F401


def search(fen, depth):
    write_protocol(b'{"id": \xff\xfe}\n')
    return {"value": 0}


def choose_move(fen, time_left):
    return search(fen, 1)
