"""Outbound calls to a platform (key sets, tokens, scores, rosters: all through lti.http())
refuse addresses the service never calls, before connecting (issue 28). Nothing here sends
traffic anywhere but loopback: a refused call never dials, and the dialer is the test's."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
import requests
import urllib3.util.connection

from grader.services import lti


@pytest.fixture(autouse=True)
def no_private(monkeypatch):
    monkeypatch.delenv("GRADER_LTI_ALLOW_PRIVATE", raising=False)


@pytest.fixture
def dialled(monkeypatch):
    """Every address urllib3 is asked to connect to; the dial itself fails (no traffic)."""
    calls: list[tuple[str, int]] = []

    def dial(address, *args, **kwargs):
        calls.append(address)
        raise OSError("the test's dialer connects nowhere")

    monkeypatch.setattr(urllib3.util.connection, "create_connection", dial)
    monkeypatch.setattr("urllib3.connection.connection.create_connection", dial)
    return calls


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/jwks",
        "http://10.0.0.1/jwks",
        "http://172.16.0.1/token",
        "http://192.168.1.1/scores",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]:9/members",
        "http://localhost:9/jwks",  # a name resolving to loopback
    ],
)
def test_private_addresses_are_refused_before_connecting(url, dialled):
    with pytest.raises(requests.ConnectionError, match="never calls"):
        lti.http().get(url)
    assert dialled == []


def test_a_changed_resolution_is_not_asked_again(monkeypatch, dialled):
    # The resolver answers a public address (never dialled: the test's dialer), then loopback: the connection goes to the
    # checked address, never to a second answer (DNS rebinding).
    answers = iter(["8.8.8.8", "127.0.0.1", "127.0.0.1"])
    real = socket.getaddrinfo

    def resolver(host, port, *args, **kwargs):
        if host != "lms.rebind.test":
            return real(host, port, *args, **kwargs)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (next(answers), port))]

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    with pytest.raises(requests.ConnectionError):
        lti.http().get("http://lms.rebind.test/jwks")
    assert dialled and all(host == "8.8.8.8" for host, _ in dialled)


class _Redirect(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(302)
        self.send_header("Location", "http://127.0.0.1:9/admin")
        self.end_headers()

    def log_message(self, *args):
        pass


def test_a_redirect_to_a_private_address_is_refused(monkeypatch):
    # The platform's name resolves (the test's resolver) to a public address that the test's
    # dialer routes to a loopback server, which redirects to loopback.
    server = HTTPServer(("127.0.0.1", 0), _Redirect)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    real_resolve, real_dial = socket.getaddrinfo, urllib3.util.connection.create_connection
    dialled: list[tuple[str, int]] = []

    def resolver(host, port, *args, **kwargs):
        if host == "lms.redirect.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("8.8.4.4", port))]
        return real_resolve(host, port, *args, **kwargs)

    def dial(address, *args, **kwargs):
        dialled.append(address)
        assert address[0] == "8.8.4.4", address  # nothing else may be dialled
        return real_dial(("127.0.0.1", server.server_port), *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    monkeypatch.setattr("urllib3.connection.connection.create_connection", dial)
    try:
        with pytest.raises(requests.ConnectionError, match="never calls"):
            lti.http().get("http://lms.redirect.test/jwks")
    finally:
        server.shutdown()
        server.server_close()
    assert len(dialled) == 1
