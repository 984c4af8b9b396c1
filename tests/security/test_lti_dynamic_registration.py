"""LTI Dynamic Registration's attacks: the registration URL is a one-time secret; the platform's
configuration is fetched through the checked outbound session (no private address, no proxy);
an issuer that is not the configuration's own origin registers nothing; the answer is bounded;
only the platform that opened the page may frame it, once the page's token is accepted."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any
from urllib.parse import urlencode

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import LtiRegistration, User
from tests.live_server import SHUTDOWN_POLL


class _Platform(BaseHTTPRequestHandler):
    """A platform whose configuration is what the test puts in ``body``; it counts requests."""

    body = b"{}"
    requests = 0

    def do_GET(self) -> None:
        type(self).requests += 1
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def platform():
    handler = type("Handler", (_Platform,), {"requests": 0, "body": b"{}"})
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True)
    thread.start()
    try:
        yield server, handler
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


def _token(app: Any) -> str:
    from grader.services import accounts
    from grader.services.lti import dynamic_registration

    with app.app_context():
        accounts.create_user("root@uni.example", "correct horse battery", "student")
        root = db.session.scalar(sa.select(User).where(User.email == "root@uni.example"))
        root.is_admin = True
        db.session.commit()
        return dynamic_registration.make_url(root)


def _open(client: Any, token: str, config_url: str) -> Any:
    query = urlencode({"openid_configuration": config_url, "registration_token": "t"})
    return client.get(f"/lti/register/{token}?{query}")


def test_a_loopback_configuration_is_refused_without_a_request(app, client, platform, monkeypatch):
    monkeypatch.delenv("GRADER_LTI_ALLOW_PRIVATE", raising=False)
    server, handler = platform
    token = _token(app)
    answer = _open(client, token, f"http://127.0.0.1:{server.server_port}/config")
    assert answer.status_code == 400
    assert "an address the service never calls" in answer.get_data(as_text=True)
    assert handler.requests == 0
    with app.app_context():
        assert db.session.scalar(sa.select(LtiRegistration)) is None


def test_a_proxy_in_the_environment_is_not_used(app, client, platform, monkeypatch):
    server, handler = platform
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # would refuse every connection
    handler.body = b'{"issuer": "http://elsewhere.example"}'
    answer = _open(client, _token(app), f"http://127.0.0.1:{server.server_port}/config")
    assert handler.requests == 1  # reached straight, not through the proxy
    assert "does not match the address" in answer.get_data(as_text=True)


def test_an_endless_configuration_is_read_to_a_bound(app, client, platform):
    server, handler = platform
    handler.body = b'{"issuer": "' + b"x" * 200_000 + b'"}'
    answer = _open(client, _token(app), f"http://127.0.0.1:{server.server_port}/config")
    assert answer.status_code == 400
    assert "longer than 65536 bytes" in answer.get_data(as_text=True)


def test_a_guessed_token_registers_nothing_and_no_one_is_called(app, client, platform):
    server, handler = platform
    _token(app)
    answer = _open(client, "guessed", f"http://127.0.0.1:{server.server_port}/config")
    assert answer.status_code == 400 and handler.requests == 0


def test_frame_ancestors_is_relaxed_only_after_the_registration_token_is_accepted(
    app, client, platform
):
    """Issue 49: /lti/register/<anything>?openid_configuration=https://evil.example/x named
    that origin in frame-ancestors before the token was checked."""
    server, _ = platform
    evil = client.get(
        "/lti/register/guessed?" + urlencode({"openid_configuration": "https://evil.example/x"})
    )
    assert evil.status_code == 400
    assert "evil.example" not in evil.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in evil.headers["Content-Security-Policy"]
    assert evil.headers["X-Frame-Options"] == "DENY"
    # A token an administrator made: the page that opened it (the configuration's origin) may
    # frame the answer, even the refusal of a configuration that does not hold.
    answer = _open(client, _token(app), f"http://127.0.0.1:{server.server_port}/config")
    policy = answer.headers["Content-Security-Policy"]
    assert f"frame-ancestors 'self' http://127.0.0.1:{server.server_port}" in policy
    assert "X-Frame-Options" not in answer.headers
    bad = client.get("/lti/register/guessed?openid_configuration=javascript:alert(1)")
    assert "frame-ancestors 'none'" in bad.headers["Content-Security-Policy"]
    assert "javascript" not in bad.headers["Content-Security-Policy"]


def test_a_configuration_url_cannot_write_the_page_policy(client):
    evil = "https://lms.example;script-src 'unsafe-inline'/config"
    answer = client.get("/lti/register/guessed?" + urlencode({"openid_configuration": evil}))
    policy = answer.headers["Content-Security-Policy"]
    assert "unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    assert "lms.example" not in policy
