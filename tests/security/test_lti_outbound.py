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
from tests.live_server import SHUTDOWN_POLL


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


class _Reached(socket.socket):
    """A loopback connection standing for one to ``peer`` (the test's network routes a public
    address to a loopback server): its peer is the address dialled."""

    def __init__(self, peer: tuple[str, int], connected: socket.socket) -> None:
        super().__init__(connected.family, connected.type, connected.proto, connected.detach())
        self._peer = peer

    def getpeername(self):
        return self._peer


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
    thread = threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True)
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
        # The test's network: the socket reached the platform, at the address dialled.
        return _Reached(address, real_dial(("127.0.0.1", server.server_port), *args, **kwargs))

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    monkeypatch.setattr("urllib3.connection.connection.create_connection", dial)
    try:
        with pytest.raises(
            requests.ConnectionError,
            match=r"127\.0\.0\.1 resolves to 127\.0\.0\.1, an address the service never calls",
        ):
            lti.http().get("http://lms.redirect.test/jwks")
    finally:
        server.shutdown()
        server.server_close()
    assert len(dialled) == 1


# -- what the guard judges: the address wrapped, the address reached (issue 36 §9) --------------


@pytest.mark.parametrize(
    "url",
    [
        "http://[64:ff9b::a00:1]/jwks",  # NAT64 of 10.0.0.1
        "http://[64:ff9b::7f00:1]:9/jwks",  # NAT64 of 127.0.0.1
        "http://[64:ff9b:1::a9fe:a9fe]/latest/meta-data/",  # local-use NAT64 of 169.254.169.254
        "http://[2002:a00:1::1]/token",  # 6to4 of 10.0.0.1
        "http://[2002:c0a8:101::]/scores",  # 6to4 of 192.168.1.1
        "http://[::ffff:10.0.0.1]/members",  # IPv4-mapped
        "http://[::ffff:127.0.0.1]:9/members",
        "http://[::10.0.0.1]/members",  # IPv4-compatible
        "http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/jwks",  # Teredo, client 10.0.0.1
    ],
)
def test_ipv6_forms_wrapping_a_private_ipv4_are_refused_before_connecting(url, dialled):
    with pytest.raises(requests.ConnectionError, match="never calls"):
        lti.http().get(url)
    assert dialled == []


class _Recorder(BaseHTTPRequestHandler):
    """A loopback server (a proxy, or where a dial was routed) that records every request."""

    seen: list[str]

    def do_GET(self):
        self.seen.append(self.path)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def do_CONNECT(self):
        self.do_GET()

    def log_message(self, *args):
        pass


@pytest.fixture
def recorder():
    seen: list[str] = []
    handler = type("Handler", (_Recorder,), {"seen": seen})
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True)
    thread.start()
    yield server.server_port, seen
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("url", ["http://10.0.0.1/jwks", "http://lms.example.test/jwks"])
def test_a_proxy_in_the_environment_is_not_used(url, monkeypatch, recorder):
    port, seen = recorder
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, f"http://127.0.0.1:{port}")
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(requests.ConnectionError):
        lti.http().get(url)
    assert seen == []  # the proxy heard nothing


def test_the_address_really_reached_is_checked(monkeypatch, recorder):
    # The name resolves to a public address, but the dial lands on loopback (as a proxy, NAT or
    # a changed route could make it): the socket's peer is checked before a byte is sent.
    port, seen = recorder
    real_resolve, real_dial = socket.getaddrinfo, urllib3.util.connection.create_connection

    def resolver(host, port_, *args, **kwargs):
        if host == "lms.routed.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("8.8.4.4", port_))]
        return real_resolve(host, port_, *args, **kwargs)

    def dial(address, *args, **kwargs):
        assert address[0] == "8.8.4.4", address
        return real_dial(("127.0.0.1", port), *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    monkeypatch.setattr("urllib3.connection.connection.create_connection", dial)
    with pytest.raises(
        requests.ConnectionError,
        match=r"was reached at 127\.0\.0\.1, an address the service never calls",
    ):
        lti.http().get("http://lms.routed.test/jwks")
    assert seen == []


@pytest.mark.parametrize(
    "address",
    ["64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8", "8.8.8.8", "2001:4860:4860::8888"],
)
def test_a_form_wrapping_a_public_ipv4_is_judged_by_it(address):
    from grader.services.lti.outbound import check_address

    check_address(address, "lms.example.test")  # no refusal: the address is public
