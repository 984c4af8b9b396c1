"""Flask-Limiter for the account routes, and a `limits` storage every gunicorn worker shares.

With `GRADER_QUEUE_URL=redis://...` the counters live in Redis. Otherwise they live in a small
SQLite file of the instance folder (`sqlite:///PATH`, registered below): the `limits` library
ships no storage that separate processes on one machine share short of Redis, Memcached or
MongoDB, and its memory storage counts per worker, which would multiply every limit.
"""

from __future__ import annotations

import math
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from flask import Response, current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import parse_many
from limits.storage import Storage

from grader.config import private_file

limiter = Limiter(key_func=get_remote_address)
P = ParamSpec("P")
R = TypeVar("R")

THROTTLED = "Too many failed tries: wait a while (see Retry-After), then try again."


class SQLiteStorage(Storage):
    """Fixed-window counters in one SQLite table; each change is one IMMEDIATE transaction.

    One connection per process and thread, kept (a refused request reads the counters several
    times: opening the file each time was a third of a 429's CPU); a forked worker opens its own.
    """

    STORAGE_SCHEME = ["sqlite"]  # noqa: RUF012 (the registry's own attribute)

    def __init__(self, uri: str, wrap_exceptions: bool = False, **options: float | str | bool):
        self.path = uri.removeprefix("sqlite:///")
        self._local = threading.local()
        private_file(self.path)
        db = self._connect()
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(
            "CREATE TABLE IF NOT EXISTS counter (key TEXT PRIMARY KEY, "
            "value INTEGER NOT NULL, expires_at REAL NOT NULL)"
        )
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)

    def _connect(self) -> sqlite3.Connection:
        """This process's and thread's connection (in autocommit: every statement its own
        transaction unless BEGIN says otherwise)."""
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            local.db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
            local.db.execute("PRAGMA busy_timeout=10000")
            # Counters: a power cut may lose the last few counts, never corrupt them; no fsync
            # per hit (WAL with synchronous=NORMAL syncs at checkpoints).
            local.db.execute("PRAGMA synchronous=NORMAL")
            local.pid = os.getpid()
        db: sqlite3.Connection = local.db
        return db

    @property
    def base_exceptions(self) -> type[Exception]:
        return sqlite3.Error

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = time.time()
        db = self._connect()
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("DELETE FROM counter WHERE key = ? AND expires_at <= ?", (key, now))
            db.execute(
                "INSERT INTO counter (key, value, expires_at) VALUES (?, ?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = value + excluded.value",
                (key, amount, now + expiry),
            )
            value: int = db.execute("SELECT value FROM counter WHERE key = ?", (key,)).fetchone()[0]
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return value

    def _row(self, key: str) -> tuple[int, float] | None:
        row: tuple[int, float] | None = (
            self._connect()
            .execute(
                "SELECT value, expires_at FROM counter WHERE key = ? AND expires_at > ?",
                (key, time.time()),
            )
            .fetchone()
        )
        return row

    def get(self, key: str) -> int:
        row = self._row(key)
        return row[0] if row else 0

    def get_expiry(self, key: str) -> float:
        row = self._row(key)
        return row[1] if row else time.time()

    def check(self) -> bool:
        try:
            self._connect().execute("SELECT 1")
        except sqlite3.Error:
            return False
        return True

    def reset(self) -> int | None:
        return self._connect().execute("DELETE FROM counter").rowcount

    def clear(self, key: str) -> None:
        self._connect().execute("DELETE FROM counter WHERE key = ?", (key,))


def account_key() -> str:
    """The account a login names (the e-mail typed), so that many addresses share its limit."""
    return "account:" + (request.form.get("email") or "").strip().lower()[:254]


def failed(response: Response) -> bool:
    """Only answers that did not sign anyone in count: a sign-in redirects."""
    return response.status_code != 302


def not_found(response: Response) -> bool:
    """A secret URL's wrong guesses: only its 404s count."""
    return response.status_code == 404


def setting(name: str) -> Callable[[], str]:
    """A limit read from the app's settings when the request comes."""
    return lambda: current_app.config[name]


def failures_by_address(scope: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A view's failed POSTs (`failed`) counted against the address, under `scope`, to
    GRADER_LOGIN_LIMIT_ADDRESS; past it, 429 with Retry-After."""
    return limiter.limit(
        setting("GRADER_LOGIN_LIMIT_ADDRESS"),
        methods=["POST"],
        deduct_when=failed,
        scope=scope,
        error_message=THROTTLED,
    )


def guesses_by_address(scope: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A secret URL's or token's wrong guesses (its 404s, `not_found`) counted against the
    address, under `scope`, to GRADER_LOGIN_LIMIT_ADDRESS; past it, 429 with Retry-After."""
    return limiter.limit(
        setting("GRADER_LOGIN_LIMIT_ADDRESS"),
        deduct_when=not_found,
        scope=scope,
        error_message=THROTTLED,
    )


def failures_by_account(
    scope: str, key: Callable[[], str]
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A view's failed POSTs counted against the account `key` names, under `scope`, to
    GRADER_LOGIN_LIMIT_ACCOUNT; past it, 429 with Retry-After."""
    return limiter.limit(
        setting("GRADER_LOGIN_LIMIT_ACCOUNT"),
        key_func=key,
        methods=["POST"],
        deduct_when=failed,
        scope=scope,
        error_message=THROTTLED,
    )


def password_checked(view: Callable[P, R]) -> Callable[P, R]:
    """The sign-in limits on a view that checks a typed password: failed POSTs count against the
    account typed (`account_key`) and against the address; past either, 429 with Retry-After."""
    by_address = failures_by_address("login-address")
    by_account = failures_by_account("login-account", account_key)
    return by_account(by_address(view))


def retry_after(limit: str, scope: str, key: str, *, hit: bool) -> int:
    """0 while `key` is within every limit of `limit` (Flask-Limiter's notation, "1 per 5
    seconds; 12 per minute"), counting this request when `hit`; else the seconds until it is.
    For limits a service applies itself, where a route's decorator cannot tell which requests
    count."""
    if not limiter.enabled:
        return 0
    strategy = limiter.limiter
    wait = 0
    for item in parse_many(limit):
        if strategy.hit(item, scope, key) if hit else strategy.test(item, scope, key):
            continue
        reset, _ = strategy.get_window_stats(item, scope, key)
        wait = max(wait, 1, math.ceil(reset - time.time()))
    return wait
