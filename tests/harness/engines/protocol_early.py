"""Writes a line on the protocol channel while it is imported, before the adapter's hello:
PROTOCOL on every test (the engine did not start), never IE."""

from _channel import write_protocol
from correct import legal_moves, search  # noqa: F401

write_protocol(b'{"id": 0, "ok": true, "hello": "not an engine"}\n')


def choose_move(fen, time_left):
    return "1-5"
