"""Deployment defaults: behind HTTPS, Secure cookies and HSTS (`GRADER_BEHIND_HTTPS`, or the
proxy's X-Forwarded-Proto when `GRADER_TRUSTED_PROXIES` says to trust it); the database,
uploads and slot folders are private (0700 folders, 0600 files), not world-readable."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.app_support import PASSWORD, app_config, csrf_from

STUDENT = "student@example.com"


def _app(tmp_path: Path, db_file: Path, monkeypatch: pytest.MonkeyPatch, **env: str) -> Any:
    from grader import create_app
    from grader.services import accounts

    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path / "instance"))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    app = create_app(app_config(db_file))
    with app.app_context():
        accounts.create_user(STUDENT, PASSWORD)
    return app


def _login(client: Any, base_url: str = "http://localhost", **kw: Any) -> Any:
    token = csrf_from(client.get("/login", base_url=base_url, **kw).get_data(as_text=True))
    headers = {**kw.pop("headers", {}), "Referer": f"{base_url}/login"}  # as browsers send it
    return client.post(
        "/login",
        data={"email": STUDENT, "password": PASSWORD, "remember": "y", "csrf_token": token},
        base_url=base_url,
        headers=headers,
        **kw,
    )


def _cookies(response: Any) -> list[str]:
    return response.headers.getlist("Set-Cookie")


def test_plain_http_by_default_no_secure_flag_no_hsts(tmp_path, db_file, monkeypatch):
    client = _app(tmp_path, db_file, monkeypatch).test_client()
    answer = _login(client, headers={"X-Forwarded-Proto": "https"})  # not believed
    assert answer.status_code == 302
    assert all("Secure" not in c for c in _cookies(answer))
    assert "Strict-Transport-Security" not in answer.headers


def test_behind_https_cookies_are_secure_and_hsts_is_sent(tmp_path, db_file, monkeypatch):
    app = _app(tmp_path, db_file, monkeypatch, GRADER_BEHIND_HTTPS="1")
    answer = _login(app.test_client(), base_url="https://localhost")  # what the proxy passes on
    assert answer.status_code == 302
    cookies = _cookies(answer)
    assert {c.split("=", 1)[0] for c in cookies} == {"session", "remember_token"}
    assert all("; Secure" in c and "HttpOnly" in c for c in cookies)
    assert answer.headers["Strict-Transport-Security"].startswith("max-age=")
    with app.test_request_context("/"):
        from flask import url_for

        assert url_for("auth.invite", token="t", _external=True).startswith("https://")


def test_a_trusted_proxys_forwarded_proto_means_https(tmp_path, db_file, monkeypatch):
    app = _app(tmp_path, db_file, monkeypatch, GRADER_TRUSTED_PROXIES="1")
    client = app.test_client()
    answer = client.get("/login", headers={"X-Forwarded-Proto": "https"})
    assert answer.headers["Strict-Transport-Security"].startswith("max-age=")
    assert "Strict-Transport-Security" not in client.get("/login").headers


def test_secure_cookies_alone_still_work(tmp_path, db_file, monkeypatch):
    app = _app(tmp_path, db_file, monkeypatch, GRADER_SECURE_COOKIES="1")
    answer = _login(app.test_client(), base_url="https://localhost")
    assert answer.status_code == 302 and all("; Secure" in c for c in _cookies(answer))


def _private(path: Path) -> bool:
    mode = stat.S_IMODE(path.stat().st_mode)
    return mode & 0o077 == 0


def test_the_instance_database_and_uploads_are_private(tmp_path, monkeypatch):
    """A fresh install under the usual umask 022: nothing the service stores is readable by
    another local user."""
    from flask_migrate import upgrade

    from grader import create_app
    from grader.extensions import db
    from grader.services.engines import uploads

    old = os.umask(0o022)
    try:
        monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path / "instance"))
        monkeypatch.delenv("GRADER_DATABASE_URL", raising=False)
        config = app_config(tmp_path / "unused.sqlite3")
        del config["SQLALCHEMY_DATABASE_URI"], config["SECRET_KEY"]
        app = create_app(config)
        with app.app_context():
            upgrade(directory=app.config["GRADER_MIGRATIONS_DIR"])
            checked = uploads.check(b"print('engine')\n", "engine.py")
            stored, _ = uploads.write_file(checked, Path(app.config["GRADER_UPLOADS_DIR"]))
            db.engine.dispose()
        client = app.test_client()
        client.get("/login")
        client.post(
            "/login",
            data={
                "email": "x@example.com",
                "password": "wrong password",
                "csrf_token": csrf_from(client.get("/login").get_data(as_text=True)),
            },
        )
    finally:
        os.umask(old)
    instance = tmp_path / "instance"
    assert stat.S_IMODE(instance.stat().st_mode) == 0o700
    database = instance / "grader.sqlite3"
    for path in (database, instance / "secret_key", instance / "ratelimits.sqlite3"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    for path in instance.glob("grader.sqlite3-*"):  # WAL and shared memory, when present
        assert _private(path), path
    assert stat.S_IMODE(Path(app.config["GRADER_UPLOADS_DIR"]).stat().st_mode) == 0o700
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert _private(stored.parent)


def test_a_grading_slot_folder_is_not_world_readable():
    from grader.harness.sandbox import SandboxConfig, claim_slot

    config = SandboxConfig()
    # Eight slot numbers: tests running beside this one may hold the first few.
    with claim_slot(config, slots=8, wait=60) as slot:
        mode = stat.S_IMODE(slot.workdir.stat().st_mode)
        assert mode & 0o007 == 0  # others: nothing
        if slot.uid is not None:  # as root, the slot's own user reaches it through its group
            assert slot.workdir.stat().st_gid == slot.uid and mode == 0o750
        else:
            assert mode == 0o700
