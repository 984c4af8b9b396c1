"""Settings from the environment (`GRADER_*`), with defaults for the embedded SQLite setup."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: The project checkout, when the package runs from one (editable install, Docker's /app).
_CHECKOUT = Path(__file__).resolve().parent.parent


def _flag(value: str | None, default: bool = False) -> bool:
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def data_dir(name: str, variable: str, environ: Mapping[str, str] = os.environ) -> Path:
    """A data folder: `$variable`, else the checkout's `name`, else `name` in the working directory."""
    if environ.get(variable):
        return Path(environ[variable])
    candidate = _CHECKOUT / name
    return candidate if candidate.is_dir() else Path.cwd() / name


def instance_path(environ: Mapping[str, str] = os.environ) -> str | None:
    """`GRADER_INSTANCE_PATH`, else None to let Flask choose (`./instance` in a checkout)."""
    return environ.get("GRADER_INSTANCE_PATH") or None


def secret_key(instance: Path) -> str:
    """The key kept in the instance folder, created once; safe when two workers start together."""
    path = instance / "secret_key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        key = secrets.token_hex(32)
        handle.write(key)
    return key


def load(instance: str | Path, overrides: Mapping[str, Any] | None = None,
         environ: Mapping[str, str] = os.environ) -> dict[str, Any]:
    """The app's settings: defaults, then `GRADER_*` variables, then `overrides` (tests)."""
    instance = Path(instance)
    overrides = dict(overrides or {})
    settings: dict[str, Any] = {
        "SQLALCHEMY_DATABASE_URI": environ.get("GRADER_DATABASE_URL")
        or f"sqlite:///{instance / 'grader.sqlite3'}",
        # Request bodies past this size get 413; answers and typed trees are small.
        "MAX_CONTENT_LENGTH": int(environ.get("GRADER_MAX_CONTENT_LENGTH", 64 * 1024)),
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": _flag(environ.get("GRADER_SECURE_COOKIES")),
        "REMEMBER_COOKIE_HTTPONLY": True,
        "REMEMBER_COOKIE_SAMESITE": "Lax",
        "REMEMBER_COOKIE_SECURE": _flag(environ.get("GRADER_SECURE_COOKIES")),
        "WTF_CSRF_TIME_LIMIT": None,  # the token lives as long as the session
        "GRADER_SQLITE_BUSY_TIMEOUT_MS": int(environ.get("GRADER_SQLITE_BUSY_TIMEOUT_MS", 10_000)),
        # "IMMEDIATE" for write transactions; "DEFERRED" only to measure what it costs (bench/load).
        "GRADER_SQLITE_WRITE_BEGIN": environ.get("GRADER_SQLITE_WRITE_BEGIN", "IMMEDIATE").upper(),
        # NORMAL (SQLite's advice for WAL): a commit survives a crashed worker or server, and the
        # file is never corrupted; only a power cut can drop the last commits. FULL also syncs
        # every commit to disk, which costs a disk flush per attempt under the write lock.
        "GRADER_SQLITE_SYNCHRONOUS": environ.get("GRADER_SQLITE_SYNCHRONOUS", "NORMAL").upper(),
        "GRADER_PRESETS_DIR": str(data_dir("exercises/presets", "GRADER_PRESETS_DIR", environ)),
        "GRADER_MIGRATIONS_DIR": str(data_dir("migrations", "GRADER_MIGRATIONS_DIR", environ)),
        # argon2id cost; tests lower it to keep the suite fast.
        "GRADER_ARGON2": {"time_cost": 3, "memory_cost": 64 * 1024, "parallelism": 1},
        # Engines (grader/jobs.py): the queue (empty: SQLite at instance/queue.sqlite;
        # redis://... for workers on several machines), where uploads are kept (shared by the
        # web and the workers), a suite forced on every engine slot (tests, benchmarks).
        "GRADER_QUEUE_URL": environ.get("GRADER_QUEUE_URL", ""),
        "GRADER_UPLOADS_DIR": environ.get("GRADER_UPLOADS_DIR") or str(instance / "uploads"),
        "GRADER_ENGINE_SUITE": environ.get("GRADER_ENGINE_SUITE", ""),
        "GRADER_SANDBOX": _flag(environ.get("GRADER_SANDBOX"), default=True),
        # A worker's lease on a job; renewed every quarter of it while the job runs.
        "GRADER_LEASE_SECONDS": float(environ.get("GRADER_LEASE_SECONDS", 60)),
        # How often a worker looks for expired leases and queued jobs without a message.
        "GRADER_SWEEP_SECONDS": float(environ.get("GRADER_SWEEP_SECONDS", 10)),
        "GRADER_REWAKE_SECONDS": float(environ.get("GRADER_REWAKE_SECONDS", 300)),
        # Reverse proxies in front of the service whose X-Forwarded-* headers are trusted (0:
        # none). Behind a TLS proxy set 1, so the LTI cookies are Secure with SameSite=None.
        "GRADER_TRUSTED_PROXIES": int(environ.get("GRADER_TRUSTED_PROXIES", 0)),
        # Uploads per student and slot: "COUNT/SECONDS".
        "GRADER_UPLOAD_RATE": environ.get("GRADER_UPLOAD_RATE", "6/600"),
    }
    settings.update(overrides)
    if not settings.get("SECRET_KEY"):
        settings["SECRET_KEY"] = environ.get("GRADER_SECRET_KEY") or secret_key(instance)
    if settings["GRADER_SQLITE_SYNCHRONOUS"] not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
        raise ValueError("GRADER_SQLITE_SYNCHRONOUS must be OFF, NORMAL, FULL or EXTRA")
    if settings["GRADER_SQLITE_WRITE_BEGIN"] not in {"IMMEDIATE", "DEFERRED"}:
        raise ValueError("GRADER_SQLITE_WRITE_BEGIN must be IMMEDIATE or DEFERRED")
    return settings
