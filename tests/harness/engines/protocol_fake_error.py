"""Answers as if the adapter could not read the grader's request (the error the harness once
took for its own, IE): PROTOCOL."""

import json

from _channel import request_id, write_protocol
from correct import legal_moves  # noqa: F401


def search(fen, depth):
    message = {
        "id": request_id(),
        "ok": False,
        "error": "request",
        "type": "ValueError",
        "message": "bad request",
        "errno": None,
        "traceback": "",
    }
    write_protocol(json.dumps(message).encode() + b"\n")
    return {"value": 0}


def choose_move(fen, time_left):
    return search(fen, 1)
