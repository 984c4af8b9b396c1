"""What a hostile engine can do to the protocol channel it shares a process with."""

import contextlib
import os
import sys


def write_protocol(data: bytes) -> None:
    """Writes ``data`` on every descriptor that takes it: the adapter's private channel too."""
    for fd in range(3, 64):
        with contextlib.suppress(OSError):
            os.write(fd, data)


def request_id() -> int:
    """The id of the request being answered, read from the adapter's own frame."""
    frame = sys._getframe(1)
    while frame is not None and "ident" not in frame.f_locals:
        frame = frame.f_back
    return frame.f_locals["ident"] if frame is not None else 1
