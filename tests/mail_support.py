"""A small SMTP server on a loopback port that keeps what it is sent: the tests of the
service's e-mail (invite links, erasure requests) hold a real SMTP conversation with it."""

from __future__ import annotations

import contextlib
import re
import socketserver
import threading
from collections.abc import Iterator
from email import message_from_bytes, policy
from typing import Any


class Smtp(socketserver.StreamRequestHandler):
    """Just enough of RFC 5321 for smtplib: EHLO, MAIL, RCPT, DATA, QUIT."""

    def handle(self) -> None:
        self.wfile.write(b"220 test ESMTP\r\n")
        recipients: list[str] = []
        while line := self.rfile.readline():
            verb = line[:4].upper()
            if verb == b"DATA":
                self.wfile.write(b"354 go on\r\n")
                body = b""
                while (chunk := self.rfile.readline()) not in (b".\r\n", b""):
                    body += chunk
                self.server.messages.append(
                    (recipients, message_from_bytes(body, policy=policy.default))
                )
                self.wfile.write(b"250 queued\r\n")
            elif verb == b"MAIL":  # a new message
                recipients = []
                self.wfile.write(b"250 ok\r\n")
            elif verb == b"RCPT":
                recipients.append(re.search(rb"<([^>]*)>", line).group(1).decode())
                self.wfile.write(b"250 ok\r\n")
            elif verb == b"QUIT":
                self.wfile.write(b"221 bye\r\n")
                return
            else:
                self.wfile.write(b"250 ok\r\n")


@contextlib.contextmanager
def smtp_sink() -> Iterator[Any]:
    """The running server; `.messages` holds (recipients, message) of every message taken."""
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Smtp)
    server.daemon_threads = True
    server.messages = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
