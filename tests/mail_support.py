"""The test mail backend: a small SMTP server on a loopback port that keeps every message it is
given (`messages`: (recipients, message) pairs), for the services' real smtplib conversation."""

from __future__ import annotations

import contextlib
import re
import socketserver
import threading
import time
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage

from tests.live_server import SHUTDOWN_POLL


class _Smtp(socketserver.StreamRequestHandler):
    """Just enough of RFC 5321 for smtplib: EHLO, MAIL, RCPT, DATA, QUIT."""

    server: MailServer

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
                found = re.search(rb"<([^>]*)>", line)
                recipients.append(found.group(1).decode() if found else "")
                self.wfile.write(b"250 ok\r\n")
            elif verb == b"QUIT":
                self.wfile.write(b"221 bye\r\n")
                return
            else:
                self.wfile.write(b"250 ok\r\n")


class MailServer(socketserver.ThreadingTCPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Smtp)
        self.messages: list[tuple[list[str], EmailMessage]] = []

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def wait_for(self, count: int, seconds: float = 10.0) -> list[tuple[list[str], EmailMessage]]:
        """The messages once `count` have come (mail may go after the response is sent)."""
        deadline = time.monotonic() + seconds
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return list(self.messages)


@contextlib.contextmanager
def smtp_sink() -> Iterator[MailServer]:
    """The server running on its own thread for the block; `.messages` holds what it took."""
    server = MailServer()
    thread = threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
