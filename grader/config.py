"""Settings from the environment (`GRADER_*`), with defaults for the embedded SQLite setup."""

from __future__ import annotations

import datetime as dt
import os
import secrets
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from grader import data

SCALE_SETTINGS = (
    "GRADER_SCALE_HOLD_MINUTES",
    "GRADER_SCALE_UPLOADS_PER_VISITOR",
    "GRADER_SCALE_HEADROOM",
)


def _flag(value: str | None, default: bool = False) -> bool:
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def data_dir(shipped: Path, variable: str, environ: Mapping[str, str] = os.environ) -> Path:
    """A data folder: `$variable` (the instructor's own), else the one the package ships."""
    return Path(environ[variable]) if environ.get(variable) else shipped


def bwrap_path(environ: Mapping[str, str] = os.environ) -> str:
    """`GRADER_BWRAP`, else bubblewrap on PATH, else Debian's /usr/bin/bwrap."""
    return environ.get("GRADER_BWRAP") or shutil.which("bwrap") or "/usr/bin/bwrap"


def sandbox_python(environ: Mapping[str, str] = os.environ) -> str:
    """`GRADER_SANDBOX_PYTHON`: the interpreter the sandbox runs (the system's, under /usr)."""
    return environ.get("GRADER_SANDBOX_PYTHON", "/usr/bin/python3")


def sandbox_uid_base(environ: Mapping[str, str] = os.environ) -> int:
    """`GRADER_SANDBOX_UID_BASE`: a root harness runs grading slot N as user base + N."""
    return int(environ.get("GRADER_SANDBOX_UID_BASE", "61000"))


def instance_path(environ: Mapping[str, str] = os.environ) -> str | None:
    """`GRADER_INSTANCE_PATH`, else None to let Flask choose (`./instance` in a checkout)."""
    return environ.get("GRADER_INSTANCE_PATH") or None


def cache_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """`GRADER_CACHE_DIR`: where the reference's answers and timings are kept, per suite and
    machine (grader/harness/references.py); else `cache/` in `GRADER_INSTANCE_PATH`, else the
    user's cache folder (`$XDG_CACHE_HOME` or `~/.cache`, then `alpha-beta-grader`)."""
    if environ.get("GRADER_CACHE_DIR"):
        return Path(environ["GRADER_CACHE_DIR"])
    if environ.get("GRADER_INSTANCE_PATH"):
        return Path(environ["GRADER_INSTANCE_PATH"]) / "cache"
    home = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(home) / "alpha-beta-grader"


#: argon2's own least costs (one pass over 8 KiB, with one lane) and its largest (32-bit fields).
ARGON2_MIN_TIME_COST = 1
ARGON2_MIN_MEMORY_KIB = 8
_ARGON2_MAX = 2**32 - 1


def _whole_number(environ: Mapping[str, str], variable: str, default: int, least: int) -> int:
    """`$variable` as a whole number from `least` to argon2's largest, else a ValueError naming
    the variable and the value read (the service refuses to start on it)."""
    text = environ.get(variable, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{variable} must be a whole number, not {text[:40]!r}") from None
    if not least <= value <= _ARGON2_MAX:
        raise ValueError(f"{variable} must be from {least} to {_ARGON2_MAX}, not {value}")
    return value


def argon2_cost(environ: Mapping[str, str] = os.environ) -> dict[str, int]:
    """The argon2id cost of new password hashes: `GRADER_ARGON2_TIME_COST` passes (3) over
    `GRADER_ARGON2_MEMORY_KIB` KiB (65536, 64 MiB), one lane. A stored hash carries the cost it
    was made with and is verified at that cost, so changing these changes new hashes only."""
    return {
        "time_cost": _whole_number(environ, "GRADER_ARGON2_TIME_COST", 3, ARGON2_MIN_TIME_COST),
        "memory_cost": _whole_number(
            environ, "GRADER_ARGON2_MEMORY_KIB", 64 * 1024, ARGON2_MIN_MEMORY_KIB
        ),
        "parallelism": 1,
    }


def private_dir(path: str | Path) -> Path:
    """A folder only this user may enter (0700): the instance, the uploads."""
    path = Path(path)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.chmod(0o700)
    return path


def private_file(path: str | Path) -> None:
    """Creates the file empty if absent, and makes it readable by this user only (0600).
    SQLite gives its -wal and -shm files the database file's permissions."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    os.chmod(path, 0o600)


def sqlite_file(url: str) -> str | None:
    """The file of a `sqlite:///PATH` URL (None for memory or another database)."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or url[len(prefix) :] in ("", ":memory:"):
        return None
    return url[len(prefix) :].split("?", 1)[0]


def _limits_storage(queue_url: str, instance: Path) -> str:
    """The throttle's storage: the queue's Redis when there is one, else a SQLite file."""
    if queue_url.startswith(("redis://", "rediss://")):
        return queue_url
    if queue_url.startswith("unix://"):  # the same socket, in the `limits` library's spelling
        return "redis+" + queue_url
    return f"sqlite:///{instance / 'ratelimits.sqlite3'}"


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


def load(
    instance: str | Path,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] = os.environ,
) -> dict[str, Any]:
    """The app's settings: defaults, then `GRADER_*` variables, then `overrides` (tests)."""
    instance = Path(instance)
    overrides = dict(overrides or {})
    behind_https = _flag(environ.get("GRADER_BEHIND_HTTPS"))
    secure_cookies = _flag(environ.get("GRADER_SECURE_COOKIES")) or behind_https
    queue_url = environ.get("GRADER_QUEUE_URL", "")
    settings: dict[str, Any] = {
        "SQLALCHEMY_DATABASE_URI": environ.get("GRADER_DATABASE_URL")
        or f"sqlite:///{instance / 'grader.sqlite3'}",
        # Request bodies past this size get 413; answers and typed trees are small.
        "MAX_CONTENT_LENGTH": int(environ.get("GRADER_MAX_CONTENT_LENGTH", 64 * 1024)),
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": secure_cookies,
        "REMEMBER_COOKIE_HTTPONLY": True,
        "REMEMBER_COOKIE_SAMESITE": "Lax",
        "REMEMBER_COOKIE_SECURE": secure_cookies,
        "REMEMBER_COOKIE_DURATION": dt.timedelta(days=14),
        # Behind a TLS-terminating proxy: Secure cookies, HSTS, https:// links (invites).
        "GRADER_BEHIND_HTTPS": behind_https,
        "PREFERRED_URL_SCHEME": "https" if behind_https else "http",
        # Login, sign-up and invite throttling (Flask-Limiter), shared by every worker: Redis
        # when the queue is Redis, else a SQLite file in the instance folder.
        "RATELIMIT_STORAGE_URI": _limits_storage(queue_url, instance),
        "RATELIMIT_STRATEGY": "fixed-window",
        "RATELIMIT_HEADERS_ENABLED": True,
        "RATELIMIT_KEY_PREFIX": "grader",
        # Failed logins per account (e-mail typed) and per address; sign-ups per address.
        "GRADER_LOGIN_LIMIT_ACCOUNT": environ.get(
            "GRADER_LOGIN_LIMIT_ACCOUNT", "10 per 15 minutes"
        ),
        "GRADER_LOGIN_LIMIT_ADDRESS": environ.get(
            "GRADER_LOGIN_LIMIT_ADDRESS", "50 per 15 minutes"
        ),
        "GRADER_SIGNUP_LIMIT": environ.get("GRADER_SIGNUP_LIMIT", "20 per hour"),
        # Problem reports an account may send (each e-mails the course's staff).
        "GRADER_REPORT_LIMIT": environ.get("GRADER_REPORT_LIMIT", "10 per hour"),
        # Reads of one account's calendar feed (its secret URL), from any address.
        "GRADER_CALENDAR_LIMIT": environ.get("GRADER_CALENDAR_LIMIT", "60 per hour"),
        # Forgot-password links: how long one works, and how many may be asked for.
        "GRADER_RESET_MINUTES": int(environ.get("GRADER_RESET_MINUTES") or 60),
        "GRADER_RESET_LIMIT": environ.get("GRADER_RESET_LIMIT", "5 per hour"),
        # Sign-in links an instructor makes for students from the roster, per instructor.
        "GRADER_SIGN_IN_LINK_LIMIT": environ.get("GRADER_SIGN_IN_LINK_LIMIT", "10 per hour"),
        # "required": every instructor's and administrator's account needs a second factor
        # (TOTP) before it uses a staff page; "optional": each account chooses.
        "GRADER_STAFF_TOTP": environ.get("GRADER_STAFF_TOTP", "optional").strip().lower(),
        "GRADER_INVITE_DAYS": int(environ.get("GRADER_INVITE_DAYS") or 14),
        # How long a student's download link of the grader wheel (the kit) works.
        "GRADER_KIT_DAYS": int(environ.get("GRADER_KIT_DAYS") or 7),
        # Invite links by e-mail (smtplib); without a host, instructors download them instead.
        "GRADER_SMTP_HOST": environ.get("GRADER_SMTP_HOST", ""),
        "GRADER_SMTP_PORT": int(environ.get("GRADER_SMTP_PORT") or 587),
        "GRADER_SMTP_USER": environ.get("GRADER_SMTP_USER", ""),
        "GRADER_SMTP_PASSWORD": environ.get("GRADER_SMTP_PASSWORD", ""),
        "GRADER_SMTP_FROM": environ.get("GRADER_SMTP_FROM", "grader@localhost"),
        "GRADER_SMTP_STARTTLS": _flag(environ.get("GRADER_SMTP_STARTTLS"), default=True),
        "WTF_CSRF_TIME_LIMIT": None,  # the token lives as long as the session
        "GRADER_SQLITE_BUSY_TIMEOUT_MS": int(environ.get("GRADER_SQLITE_BUSY_TIMEOUT_MS", 10_000)),
        # "IMMEDIATE" for write transactions; "DEFERRED" only to measure what it costs (bench/load).
        "GRADER_SQLITE_WRITE_BEGIN": environ.get("GRADER_SQLITE_WRITE_BEGIN", "IMMEDIATE").upper(),
        # NORMAL (SQLite's advice for WAL): a commit survives a crashed worker or server, and the
        # file is never corrupted; only a power cut can drop the last commits. FULL also syncs
        # every commit to disk, which costs a disk flush per attempt under the write lock.
        "GRADER_SQLITE_SYNCHRONOUS": environ.get("GRADER_SQLITE_SYNCHRONOUS", "NORMAL").upper(),
        "GRADER_PRESETS_DIR": str(data_dir(data.presets_dir(), "GRADER_PRESETS_DIR", environ)),
        "GRADER_MIGRATIONS_DIR": str(
            data_dir(data.migrations_dir(), "GRADER_MIGRATIONS_DIR", environ)
        ),
        # argon2id cost of new password hashes (argon2_cost: refused at start-up unless valid).
        "GRADER_ARGON2": argon2_cost(environ),
        # Engines (grader/jobs.py): the queue (empty: SQLite at instance/queue.sqlite;
        # redis://... for workers on several machines), where a worker keeps its local copies
        # of the uploads (their bytes are in the database's blob table), a suite forced on
        # every engine slot (tests, benchmarks).
        "GRADER_QUEUE_URL": queue_url,
        "GRADER_UPLOADS_DIR": environ.get("GRADER_UPLOADS_DIR") or str(instance / "uploads"),
        # Empty: uploads' bytes in the database; s3://BUCKET/PREFIX: in that bucket.
        "GRADER_BLOB_URL": environ.get("GRADER_BLOB_URL", ""),
        "GRADER_ENGINE_SUITE": environ.get("GRADER_ENGINE_SUITE", ""),
        "GRADER_SANDBOX": _flag(environ.get("GRADER_SANDBOX"), default=True),
        # The reference's answers, kept per suite (grader/harness/references.py).
        "GRADER_CACHE_DIR": environ.get("GRADER_CACHE_DIR") or str(instance / "cache"),
        # A timing test whose reference got less than this share of a core was timed on a busy
        # machine: deferred and timed again later (grader/harness/contention.py); 0 never defers.
        "GRADER_TIMING_BUSY_SHARE": float(environ.get("GRADER_TIMING_BUSY_SHARE") or 0.85),
        # A deferred timing with no upload waiting is timed again after this, doubled at each
        # deferral, at most GRADER_REWAKE_SECONDS: a machine busy for a moment is soon calm.
        "GRADER_RETIME_SECONDS": float(environ.get("GRADER_RETIME_SECONDS", 15)),
        # A worker's lease on a job; renewed every quarter of it while the job runs.
        "GRADER_LEASE_SECONDS": float(environ.get("GRADER_LEASE_SECONDS", 60)),
        # How often a worker looks for expired leases and queued jobs without a message.
        "GRADER_SWEEP_SECONDS": float(environ.get("GRADER_SWEEP_SECONDS", 10)),
        "GRADER_REWAKE_SECONDS": float(environ.get("GRADER_REWAKE_SECONDS", 300)),
        # Reverse proxies in front of the service whose X-Forwarded-* headers are trusted (0:
        # none). Behind a TLS proxy set 1, so the LTI cookies are Secure with SameSite=None.
        "GRADER_TRUSTED_PROXIES": int(environ.get("GRADER_TRUSTED_PROXIES", 0)),
        # The time one request may spend generating trees (a practice exercise, a variant, a
        # slot's preview): impossible constraints are a 400 after this, not a held worker.
        "GRADER_GENERATOR_SECONDS": float(environ.get("GRADER_GENERATOR_SECONDS", 0.3)),
        # How many costly requests (constrained generation, large trees, the ordering optimum,
        # the editor's preview) the host runs at once; more are 503 with Retry-After.
        "GRADER_COSTLY_SLOTS": int(environ.get("GRADER_COSTLY_SLOTS", 1)),
        # Costly requests one account may have run (Flask-Limiter's notation); past it a 429
        # with Retry-After, before any of the work, so no account keeps a slot busy.
        "GRADER_COSTLY_LIMIT": environ.get("GRADER_COSTLY_LIMIT", "1 per 5 seconds; 12 per minute"),
        # The worker time one grading job may use; tests left past it are charged TLE_WALL.
        "GRADER_JOB_SECONDS": float(environ.get("GRADER_JOB_SECONDS", 600)),
        # Practice exercises (generated, typed, a slot's variants, a game's trees): how many one
        # account may keep, how many it may make (Flask-Limiter's notation; every try counts),
        # and the days after which one never answered is deleted by the worker's sweep.
        "GRADER_PRACTICE_QUOTA": int(environ.get("GRADER_PRACTICE_QUOTA") or 1000),
        "GRADER_PRACTICE_LIMIT": environ.get("GRADER_PRACTICE_LIMIT", "30 per minute; 500 per day"),
        "GRADER_PRACTICE_ABANDONED_DAYS": float(environ.get("GRADER_PRACTICE_ABANDONED_DAYS") or 7),
        # Uploads per student (across every slot): "COUNT/SECONDS".
        "GRADER_UPLOAD_RATE": environ.get("GRADER_UPLOAD_RATE", "6/600"),
        # Scheduled backups (services/data/backup.py, taken by a worker's sweep): every this
        # many hours (0 or unset: none), into this folder, keeping the newest this many.
        "GRADER_BACKUP_HOURS": float(environ.get("GRADER_BACKUP_HOURS") or 0),
        "GRADER_BACKUP_DIR": environ.get("GRADER_BACKUP_DIR") or str(instance / "backups"),
        "GRADER_BACKUP_KEEP": int(environ.get("GRADER_BACKUP_KEEP") or 7),
        # What erasing an account does to its attempts (services/data/erasure.py): "anonymize"
        # keeps them without a person (item statistics stay right), "delete" removes them.
        "GRADER_ERASURE_ATTEMPTS": environ.get("GRADER_ERASURE_ATTEMPTS", "anonymize").lower(),
        # The time zone a new course's dates are typed and shown in (an IANA name), until its
        # instructor sets another (services/courses/zones.py).
        "GRADER_TIMEZONE": environ.get("GRADER_TIMEZONE") or "UTC",
        # Days after a course is archived until the worker purges its students' personal data.
        "GRADER_RETENTION_DAYS": int(environ.get("GRADER_RETENTION_DAYS") or 365),
        # Paper exams' bounds (each sheet is seconds of CPU and most of a megabyte stored): the
        # sheets one print run makes, and the sheets one course, and the whole service, may
        # print in any 24 hours. A course prints one run at a time.
        "GRADER_EXAM_SHEETS_PER_PRINT": int(environ.get("GRADER_EXAM_SHEETS_PER_PRINT") or 400),
        "GRADER_EXAM_SHEETS_PER_COURSE_DAY": int(
            environ.get("GRADER_EXAM_SHEETS_PER_COURSE_DAY") or 1000
        ),
        "GRADER_EXAM_SHEETS_PER_DAY": int(environ.get("GRADER_EXAM_SHEETS_PER_DAY") or 3000),
        # "own": bulk work (prints, integrity checks) has its own queue and worker; "shared"
        # puts it in the interactive queue, only to measure what its own saves (bench.bulk).
        "GRADER_BULK_QUEUE": environ.get("GRADER_BULK_QUEUE", "own"),
        # Who may read /metrics (Prometheus's text format, docs/deployment.md): the addresses
        # (comma-separated IPs or networks, as the request's client address reads behind
        # GRADER_TRUSTED_PROXIES), or anyone with this bearer token. Loopback by default.
        "GRADER_METRICS_ALLOW": environ.get("GRADER_METRICS_ALLOW", "127.0.0.1/32,::1/128"),
        "GRADER_METRICS_TOKEN": environ.get("GRADER_METRICS_TOKEN", ""),
        # grader_desired_workers: how far back the recent peak is held (so the figure does not
        # flap), the uploads a student on an engine slot's page is expected to make in the next
        # 10 minutes, and the headroom kept over the jobs running now.
        "GRADER_SCALE_HOLD_MINUTES": float(environ.get("GRADER_SCALE_HOLD_MINUTES") or 10),
        "GRADER_SCALE_UPLOADS_PER_VISITOR": float(
            environ.get("GRADER_SCALE_UPLOADS_PER_VISITOR") or 1
        ),
        "GRADER_SCALE_HEADROOM": float(environ.get("GRADER_SCALE_HEADROOM") or 1.5),
    }
    settings.update(overrides)
    if not settings.get("SECRET_KEY"):
        settings["SECRET_KEY"] = environ.get("GRADER_SECRET_KEY") or secret_key(instance)
    if settings["GRADER_SQLITE_SYNCHRONOUS"] not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
        raise ValueError("GRADER_SQLITE_SYNCHRONOUS must be OFF, NORMAL, FULL or EXTRA")
    if settings["GRADER_BACKUP_HOURS"] < 0 or settings["GRADER_BACKUP_KEEP"] < 1:
        raise ValueError("GRADER_BACKUP_HOURS must be 0 or more and GRADER_BACKUP_KEEP 1 or more")
    if settings["GRADER_STAFF_TOTP"] not in {"optional", "required"}:
        raise ValueError("GRADER_STAFF_TOTP must be optional or required")
    if settings["GRADER_ERASURE_ATTEMPTS"] not in {"anonymize", "delete"}:
        raise ValueError("GRADER_ERASURE_ATTEMPTS must be anonymize or delete")
    if settings["GRADER_RETENTION_DAYS"] < 1:
        raise ValueError("GRADER_RETENTION_DAYS must be 1 or more")
    if min(settings[name] for name in SCALE_SETTINGS) < 0:
        raise ValueError(", ".join(SCALE_SETTINGS) + " must be 0 or more")
    if settings["GRADER_BULK_QUEUE"] not in {"own", "shared"}:
        raise ValueError("GRADER_BULK_QUEUE must be own or shared")
    if settings["GRADER_SQLITE_WRITE_BEGIN"] not in {"IMMEDIATE", "DEFERRED"}:
        raise ValueError("GRADER_SQLITE_WRITE_BEGIN must be IMMEDIATE or DEFERRED")
    return settings
