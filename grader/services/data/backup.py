"""Backups that restore: `take` writes one file while the service runs, `restore` puts one into
an instance, `run_scheduled` is a worker's sweep taking one every GRADER_BACKUP_HOURS.

A backup is one uncompressed tar file (one thing to copy off the machine, listed by any `tar
tf`, written with no CPU spent compressing; the PostgreSQL dump inside is compressed by
pg_dump) holding, in this order:

    manifest.json      the format, the release, the Alembic revision, the time, the database's
                       dialect, where the uploads' bytes live, and each part's SHA-256 and size
    database.sqlite3   SQLite: the sqlite3 online backup API's copy, one read transaction (a
                       consistent snapshot; writers go on meanwhile under WAL), never the file
    database.pgdump    PostgreSQL: `pg_dump --format=custom` (one snapshot)
    erasures.jsonl     the instance's ledger of erasures (services/data/ledger.py): account
                       numbers and dates, no personal data
    secret_key         the instance's key (sessions, invite links, the kit's download links)
    blobs/<sha256>     the uploads' bytes, when they live in an S3 bucket (GRADER_BLOB_URL);
                       in the database (the `blob` table) they are inside its copy

A restore reads the manifest, then every part against its checksum into a private folder of the
instance, before it touches anything: a file that is not a backup, a corrupt or truncated one,
one from a newer revision, one of another database's dialect is refused with nothing changed.
A database in use (any row in any table, or a worker alive in the last sweeps) is overwritten
only when forced. An older revision is upgraded after the restore. Last, every erasure of the
ledgers (the instance's, the backup's, and the erasures recorded in the database the restore
overwrote) whose account the restored database holds live is made again, and named.
"""

# Whole: take, verify and restore read and write one format, which cannot drift.

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import IO, Any

import sqlalchemy as sa
from flask import current_app

from grader import config, strict_json
from grader.extensions import db
from grader.models import BackupRun, ExamPrint, Submission, utcnow
from grader.services import Conflict, Invalid
from grader.services.courses import zones
from grader.services.data import erasure, ledger
from grader.services.engines import blobs
from grader.services.transactions import writing

FORMAT = "alpha-beta-grader backup"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
SQLITE_PART, PG_PART, KEY_PART = "database.sqlite3", "database.pgdump", "secret_key"
LEDGER_PART = ledger.FILE
SCHEDULED_PREFIX = "grader-backup-"  # a scheduled backup's file name; pruning reads only these
MAX_MANIFEST = 4 * 1024 * 1024  # bytes: a manifest lists parts, and 20,000 blobs fit easily
CHUNK = 1024 * 1024
_PART = re.compile(
    r"(database\.sqlite3|database\.pgdump|secret_key|erasures\.jsonl|blobs/[0-9a-f]{64})"
)
_SHA256 = re.compile(r"[0-9a-f]{64}")
OK, FAILED, RUNNING = "ok", "failed", "running"


class NotABackup(Invalid):
    """The file is not a backup of this service (no manifest, not a tar, another format)."""


class Corrupt(Invalid):
    """A part is missing, truncated or not the bytes its checksum names."""


class TooNew(Conflict):
    """The backup's revision is unknown to this release: a newer release made it."""


class InUse(Conflict):
    """The instance's database holds data or a worker is alive; only --force overwrites it."""


@dataclass(frozen=True)
class Taken:
    """A backup written: where, its size and its manifest."""

    path: Path
    size: int
    manifest: dict[str, Any]


@dataclass
class Restored:
    """A backup restored: its manifest, the revision it was upgraded from (None: already at
    this release's head), what an operator should know, and the erasures made again."""

    manifest: dict[str, Any]
    upgraded_from: str | None
    notes: list[str] = field(default_factory=list)
    erased_again: list[ledger.Entry] = field(default_factory=list)


# -- taking a backup -------------------------------------------------------------------------


def release() -> str:
    """The installed package's version (`grader --version`)."""
    return metadata.version("grader")


def take(dest: str | Path) -> Taken:
    """A consistent backup of the current app's instance, written to ``dest`` (a file, or a
    folder to name it in), atomically: the file appears whole or not at all."""
    dest = Path(dest)
    now = utcnow()
    target = dest / f"{SCHEDULED_PREFIX}{now:%Y%m%dT%H%M%S%fZ}.tar" if dest.is_dir() else dest
    target.parent.mkdir(parents=True, exist_ok=True)
    with _staging(target.parent) as staging:
        parts: dict[str, Path] = {}
        dialect = db.engine.dialect.name
        if dialect == "sqlite":
            parts[SQLITE_PART], revision = _sqlite_copy(staging / SQLITE_PART)
        elif dialect == "postgresql":
            parts[PG_PART], revision = _pg_dump(staging / PG_PART)
        else:
            raise Invalid(f"backups know SQLite and PostgreSQL, not {dialect}")
        erasures = staging / LEDGER_PART
        erasures.write_text("".join(e.line() + "\n" for e in ledger.read()))
        parts[LEDGER_PART] = erasures
        key = staging / KEY_PART
        key.write_text(current_app.config["SECRET_KEY"])
        parts[KEY_PART] = key
        blob_url = current_app.config.get("GRADER_BLOB_URL", "")
        missing: list[str] = []
        if blob_url:
            (staging / "blobs").mkdir()
            for sha in _blob_hashes():
                try:
                    data = blobs.store().get(sha)
                except blobs.MissingBlob:
                    missing.append(sha)
                    continue
                parts[f"blobs/{sha}"] = path = staging / "blobs" / sha
                path.write_bytes(data)
        manifest: dict[str, Any] = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "release": release(),
            "revision": revision,
            "created_at": now.replace(tzinfo=dt.UTC).isoformat(),
            "database": dialect,
            "blobs": "s3" if blob_url else "database",
            "missing_blobs": missing,
        }
        partial = staging / "backup.tar"
        manifest["parts"] = _write_tar(partial, manifest, parts, int(now.timestamp()))
        with partial.open("rb") as handle:
            os.fsync(handle.fileno())
        os.replace(partial, target)
        _sync_folder(target.parent)
    return Taken(target, target.stat().st_size, manifest)


@contextmanager
def _staging(folder: Path) -> Iterator[Path]:
    """A private folder beside the backup (the same file system: the rename is atomic)."""
    path = Path(tempfile.mkdtemp(prefix=".grader-backup-", dir=folder))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


class _Hashed:
    """A file read through its SHA-256: the tar copies each part once, hashing it as it goes."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle, self.sha = handle, hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size)
        self.sha.update(data)
        return data


def _manifest_text(manifest: dict[str, Any]) -> bytes:
    return json.dumps(manifest, indent=2).encode()


def _write_tar(
    path: Path, manifest: dict[str, Any], parts: dict[str, Path], mtime: int
) -> dict[str, Any]:
    """The backup file: the manifest first, then the parts, each read once. The manifest is
    written with its checksums zeroed, then overwritten in place once the parts are hashed (a
    SHA-256 in hex is always 64 characters, so the text keeps its length). Its parts, listed."""
    sizes = {name: part.stat().st_size for name, part in parts.items()}
    listed: dict[str, Any] = {name: {"sha256": "0" * 64, "size": sizes[name]} for name in parts}
    draft = _manifest_text({**manifest, "parts": listed})
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tar:
        info = tarfile.TarInfo(MANIFEST)
        info.size, info.mtime, info.mode = len(draft), mtime, 0o600
        tar.addfile(info, io.BytesIO(draft))
        manifest_at = tar.offset - -(-len(draft) // tarfile.BLOCKSIZE) * tarfile.BLOCKSIZE
        for name, part in parts.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = sizes[name], mtime, 0o600
            with part.open("rb") as handle:
                hashed = _Hashed(handle)
                tar.addfile(info, hashed)
            listed[name]["sha256"] = hashed.sha.hexdigest()
    final = _manifest_text({**manifest, "parts": listed})
    assert len(final) == len(draft)
    os.chmod(path, 0o600)  # it holds the secret key and every account
    with path.open("r+b") as handle:
        handle.seek(manifest_at)
        handle.write(final)
    return listed


def _sync_folder(folder: Path) -> None:
    """The rename made durable: the folder's entry synced too."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sqlite_path() -> Path:
    found = config.sqlite_file(current_app.config["SQLALCHEMY_DATABASE_URI"])
    if found is None:
        raise Invalid("this instance's database is in memory: there is no file to back up")
    return Path(found)


def _connect(path: Path) -> sqlite3.Connection:
    timeout = current_app.config["GRADER_SQLITE_BUSY_TIMEOUT_MS"] / 1000
    return sqlite3.connect(path, timeout=timeout, isolation_level=None)


def _sqlite_copy(dest: Path) -> tuple[Path, str | None]:
    """The online backup API in one step: one read transaction, so the copy is the database as
    one moment saw it, while writers go on (WAL). The revision is read from the copy itself."""
    source = _connect(_sqlite_path())
    try:
        copy = sqlite3.connect(dest)
        try:
            # A staging file: the tar made of it is synced, so the copy itself need not be.
            copy.execute("PRAGMA journal_mode=OFF")
            copy.execute("PRAGMA synchronous=OFF")
            source.backup(copy)
            revision = _sqlite_revision(copy)
        finally:
            copy.close()
    finally:
        source.close()
    return dest, revision


def _sqlite_revision(connection: sqlite3.Connection) -> str | None:
    try:
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.DatabaseError:
        return None
    return row[0] if row else None


def _libpq(url: sa.URL) -> tuple[str, dict[str, str]]:
    """The URL as pg_dump and pg_restore read it, and their environment (the password in
    PGPASSWORD, never on a command line others can list)."""
    env = dict(os.environ)
    if url.password:
        env["PGPASSWORD"] = str(url.password)
    plain = url.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


def _pg_tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise Invalid(f"{name} is not installed here (Debian: postgresql-client)")
    return found


def _pg_dump(dest: Path) -> tuple[Path, str | None]:
    revision = _live_revision()
    url, env = _libpq(db.engine.url)
    done = subprocess.run(
        [
            _pg_tool("pg_dump"),
            "--format=custom",
            "--no-owner",
            "--no-acl",
            f"--file={dest}",
            f"--dbname={url}",
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"pg_dump failed: {done.stderr.strip()[-2000:]}")
    if _live_revision() != revision:
        raise RuntimeError("the database was upgraded while it was dumped: take it again")
    return dest, revision


def _live_revision() -> str | None:
    from alembic.migration import MigrationContext

    with db.engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def _blob_hashes() -> list[str]:
    """Every upload's and printed exam's bytes the database points at."""
    found = set(db.session.scalars(sa.select(Submission.sha256).distinct()))
    found |= set(
        db.session.scalars(
            sa.select(ExamPrint.result_sha256).where(ExamPrint.result_sha256.is_not(None))
        )
    )
    db.session.rollback()  # end the read: nothing here writes
    return sorted(sha for sha in found if sha and _SHA256.fullmatch(sha))


# -- reading one ------------------------------------------------------------------------------


def _manifest(raw: bytes, source: Path) -> dict[str, Any]:
    try:
        manifest = strict_json.loads(raw)
    except ValueError:
        raise NotABackup(f"{source} is not a grader backup: its manifest is not JSON") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise NotABackup(f"{source} is not a grader backup: its manifest names no backup")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise TooNew(
            f"{source} is a backup of format {manifest.get('format_version')!r}; this release "
            f"reads format {FORMAT_VERSION}: restore it with the release that made it"
        )
    parts = manifest.get("parts")
    database = manifest.get("database")
    revision = manifest.get("revision")
    if (
        not isinstance(parts, dict)
        or database not in ("sqlite", "postgresql")
        or not (revision is None or isinstance(revision, str))
        or not isinstance(manifest.get("release"), str)
        or not isinstance(manifest.get("created_at"), str)
        or manifest.get("blobs") not in ("database", "s3")
        or not isinstance(manifest.get("missing_blobs"), list)
        or not all(
            isinstance(sha, str) and _SHA256.fullmatch(sha) for sha in manifest["missing_blobs"]
        )
    ):
        raise NotABackup(f"{source} is not a grader backup: its manifest is incomplete")
    for name, part in parts.items():
        if (
            not _PART.fullmatch(name)
            or not isinstance(part, dict)
            or set(part) != {"sha256", "size"}
            or not isinstance(part["sha256"], str)
            or not _SHA256.fullmatch(part["sha256"])
            or type(part["size"]) is not int
            or part["size"] < 0
        ):
            raise NotABackup(f"{source} is not a grader backup: its manifest lists {name!r}")
    database_part = SQLITE_PART if database == "sqlite" else PG_PART
    if database_part not in parts or KEY_PART not in parts:
        raise NotABackup(f"{source} is not a grader backup: its manifest lacks {database_part}")
    return manifest


def verify(source: str | Path, into: Path | None = None) -> dict[str, Any]:
    """The backup's manifest, once every part it lists was read whole and matched its SHA-256
    and size (written into ``into`` when given). Refuses anything else: NotABackup, Corrupt,
    TooNew (a format this release cannot read)."""
    source = Path(source)
    if not source.is_file():
        raise NotABackup(f"{source} is not a file")
    try:
        tar = tarfile.open(source, "r:")  # noqa: SIM115 (closed by the `with` below)
    except (tarfile.TarError, EOFError, OSError):
        raise NotABackup(
            f"{source} is not a grader backup: not an uncompressed tar file, as "
            "grader db backup writes"
        ) from None
    with tar:
        try:
            return _read_parts(tar, source, into)
        except (tarfile.TarError, EOFError, OSError) as error:
            raise Corrupt(
                f"{source} is truncated or damaged ({error}): nothing was restored"
            ) from None


def _read_parts(tar: tarfile.TarFile, source: Path, into: Path | None) -> dict[str, Any]:
    first = tar.next()
    if first is None or first.name != MANIFEST or not first.isreg():
        raise NotABackup(f"{source} is not a grader backup: it does not begin with {MANIFEST}")
    if first.size > MAX_MANIFEST:
        raise NotABackup(f"{source} is not a grader backup: its manifest is too large")
    manifest = _manifest(_read_member(tar, first, source), source)
    parts: dict[str, Any] = manifest["parts"]
    seen: set[str] = set()
    while (member := tar.next()) is not None:
        name = member.name
        if name not in parts or name in seen or not member.isreg():
            raise Corrupt(f"{source} holds {name!r}, which its manifest does not list once")
        seen.add(name)
        expected = parts[name]
        if member.size != expected["size"]:
            raise Corrupt(
                f"{source}: {name} is {member.size} bytes, its manifest says {expected['size']}"
            )
        sha = hashlib.sha256()
        handle = tar.extractfile(member)
        assert handle is not None  # a regular file
        out: IO[bytes] | None = None
        if into is not None:
            path = into / name
            path.parent.mkdir(mode=0o700, exist_ok=True)
            out = path.open("wb")
        try:
            read = 0
            while chunk := handle.read(CHUNK):
                read += len(chunk)
                sha.update(chunk)
                if out is not None:
                    out.write(chunk)
        finally:
            if out is not None:
                out.close()
        if read != expected["size"] or sha.hexdigest() != expected["sha256"]:
            raise Corrupt(
                f"{source}: {name} does not match its checksum (damaged or altered): "
                "nothing was restored"
            )
    absent = sorted(set(parts) - seen)
    if absent:
        raise Corrupt(f"{source} is truncated: {', '.join(absent[:5])} missing; nothing restored")
    return manifest


def _read_member(tar: tarfile.TarFile, member: tarfile.TarInfo, source: Path) -> bytes:
    handle = tar.extractfile(member)
    assert handle is not None
    data = handle.read()
    if len(data) != member.size:
        raise Corrupt(f"{source}: {member.name} is truncated; nothing was restored")
    return data


# -- restoring --------------------------------------------------------------------------------


def _scripts() -> Any:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", current_app.config["GRADER_MIGRATIONS_DIR"])
    return ScriptDirectory.from_config(cfg)


def _known(scripts: Any, revision: str | None) -> bool:
    if revision is None:
        return True
    from alembic.script.revision import RevisionError
    from alembic.util import CommandError

    try:
        return scripts.get_revision(revision) is not None
    except (CommandError, RevisionError):
        return False


def in_use() -> list[str]:
    """Why the instance's database counts as in use (empty: it may be overwritten): the tables
    that hold rows, and the workers seen alive in the last sweeps."""
    from grader.services import liveness

    reasons: list[str] = []
    inspector = sa.inspect(db.engine)
    present = set(inspector.get_table_names())
    filled = []
    for table in db.metadata.sorted_tables:
        if table.name in present and db.session.scalar(
            sa.select(sa.literal(1)).select_from(table).limit(1)
        ):
            filled.append(table.name)
    if filled:
        shown = ", ".join(filled[:6]) + (f" and {len(filled) - 6} more" if len(filled) > 6 else "")
        reasons.append(f"its tables hold rows ({shown})")
    if "worker_beat" in present:
        alive = liveness.live()
        if alive:
            names = ", ".join(w.name for w in alive[:3])
            reasons.append(f"{len(alive)} worker(s) seen alive in the last sweeps ({names})")
    db.session.rollback()
    return reasons


def restore(source: str | Path, force: bool = False) -> Restored:
    """Puts the backup ``source`` into the current app's instance, then upgrades it to this
    release's head. Every refusal comes before the first change."""
    source = Path(source)
    instance = Path(current_app.instance_path)
    with _staging(instance) as staging:
        manifest = verify(source, into=staging)
        try:
            key = (staging / KEY_PART).read_bytes().decode().strip()
        except UnicodeDecodeError:
            raise Corrupt(f"{source}: its secret key is not text; nothing was restored") from None
        revision = manifest["revision"]
        scripts = _scripts()
        if not _known(scripts, revision):
            heads = ", ".join(scripts.get_heads())
            raise TooNew(
                f"{source} was made by a newer release ({manifest['release']}, revision "
                f"{revision}); this release's newest revision is {heads}: upgrade the grader "
                "first, then restore it. Nothing was restored."
            )
        dialect = db.engine.dialect.name
        if manifest["database"] != dialect:
            raise Invalid(
                f"{source} is a backup of a {manifest['database']} database; this instance "
                f"uses {dialect}. Nothing was restored."
            )
        if dialect == "sqlite":
            _check_sqlite(staging / SQLITE_PART, source)
        reasons = in_use()
        known = ledger.merged(
            ledger.read(),
            ledger.read(staging / LEDGER_PART),
            erasure.recorded(),  # the overwritten database's, older than the ledger perhaps
        )
        if reasons and not force:
            raise InUse(
                "the instance's database is in use: "
                + "; ".join(reasons)
                + ". Nothing was restored. Stop the service and its workers, then restore "
                "with --force to overwrite it."
            )
        db.session.remove()
        if dialect == "sqlite":
            _sqlite_restore(staging / SQLITE_PART)
        else:
            _pg_restore(staging / PG_PART)
        db.engine.dispose()
        done = Restored(manifest, None)
        restored = _live_revision()
        if restored not in scripts.get_heads():
            _upgrade()
            done.upgraded_from = restored
        _restore_key(key, done)
        _restore_blobs(staging, manifest, done)
        ledger.write(known)
        _erase_again(known, done)
    return done


def _erase_again(known: list[ledger.Entry], done: Restored) -> None:
    """The ledger's erasures the restored database undid, made again."""
    again = erasure.reapply(known)
    done.erased_again = [entry for entry, _ in again.erased]
    for entry in again.other_account:
        done.notes.append(
            f"account {entry.account_id} of the backup is not the account of that number erased "
            f"on {zones.words(entry.erased_at, zones.server_zone())} (it was made at another "
            "time): left alone"
        )


def _check_sqlite(path: Path, source: Path) -> None:
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            result = connection.execute("PRAGMA integrity_check").fetchall()
        finally:
            connection.close()
    except sqlite3.DatabaseError as error:
        raise Corrupt(f"{source}: its database is not one SQLite reads ({error})") from None
    if result != [("ok",)]:
        raise Corrupt(f"{source}: its database fails SQLite's integrity check")


def _sqlite_restore(copy: Path) -> None:
    """The copy written into the instance's database through SQLite (its WAL and lock files
    stay right): every page replaced, in one write transaction."""
    source = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
    try:
        target = _connect(_sqlite_path())
        try:
            source.backup(target)
        finally:
            target.close()
    finally:
        source.close()


def _pg_restore(dump: Path) -> None:
    """Every table of the instance's schema dropped, then the dump restored in one transaction."""
    with db.engine.begin() as connection:
        for name in sa.inspect(connection).get_table_names():
            connection.exec_driver_sql(f'DROP TABLE IF EXISTS "{name}" CASCADE')
    url, env = _libpq(db.engine.url)
    db.engine.dispose()
    done = subprocess.run(
        [
            _pg_tool("pg_restore"),
            "--no-owner",
            "--no-acl",
            "--single-transaction",
            "--exit-on-error",
            f"--dbname={url}",
            str(dump),
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"pg_restore failed: {done.stderr.strip()[-2000:]}")


def _upgrade() -> None:
    from flask_migrate import upgrade

    upgrade(directory=current_app.config["GRADER_MIGRATIONS_DIR"])
    db.engine.dispose()


def _restore_key(key: str, done: Restored) -> None:
    """The backup's key becomes the instance's (its sessions, invite and kit links verify)."""
    path = Path(current_app.instance_path) / "secret_key"
    partial = path.with_name(".secret_key.restoring")
    partial.unlink(missing_ok=True)
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(key)
    os.replace(partial, path)
    if os.environ.get("GRADER_SECRET_KEY") and os.environ["GRADER_SECRET_KEY"] != key:
        done.notes.append(
            "GRADER_SECRET_KEY is set and differs from the backup's key (now in "
            f"{path}): sessions and links made before the backup verify only with the "
            "backup's key"
        )


def _restore_blobs(staging: Path, manifest: dict[str, Any], done: Restored) -> None:
    names = sorted(n for n in manifest["parts"] if n.startswith("blobs/"))
    for name in names:
        sha = name.removeprefix("blobs/")
        with writing() as session:
            blobs.store().put(session, sha, (staging / name).read_bytes())
    if names:
        done.notes.append(f"{len(names)} uploads' bytes put back in the store")
    if manifest.get("missing_blobs"):
        done.notes.append(
            f"{len(manifest['missing_blobs'])} uploads' bytes were already missing from the "
            "store when the backup was taken"
        )


# -- the schedule -----------------------------------------------------------------------------


def record(run_id: int | None, taken: Taken | None, error: str | None) -> BackupRun | None:
    """A run's row: a new one (``run_id`` None: `grader db backup`) or the scheduled one. None
    on a database not yet upgraded to hold the runs (a backup taken before the upgrade)."""
    if run_id is None and not sa.inspect(db.engine).has_table(BackupRun.__tablename__):
        return None
    with writing() as session:
        row = session.get(BackupRun, run_id) if run_id is not None else None
        if row is None:
            row = BackupRun(status=RUNNING, started_at=utcnow())
            session.add(row)
        row.finished_at = utcnow()
        row.status = OK if taken is not None else FAILED
        if taken is not None:
            row.path, row.size = str(taken.path), taken.size
        row.error = error[:2000] if error else None
    return row


def _claim(period: int) -> int | None:
    """This period's run, claimed by one sweep of all the workers (its period is unique)."""
    try:
        with writing() as session:
            if session.scalar(sa.select(BackupRun.id).where(BackupRun.period == period)):
                return None
            row = BackupRun(period=period, status=RUNNING, started_at=utcnow())
            session.add(row)
            session.flush()
            return row.id
    except sa.exc.IntegrityError:  # another worker's sweep claimed it first
        return None


def run_scheduled(now: dt.datetime | None = None) -> BackupRun | None:
    """A sweep's part: the backup of this period when GRADER_BACKUP_HOURS is set and no worker
    took it yet, into GRADER_BACKUP_DIR, keeping the newest GRADER_BACKUP_KEEP. Its row says
    how it went, a failure included (never raised: the sweep goes on)."""
    hours = float(current_app.config["GRADER_BACKUP_HOURS"])
    if hours <= 0:
        return None
    now = now or utcnow()
    period = int(now.replace(tzinfo=dt.UTC).timestamp() // (hours * 3600))
    run_id = _claim(period)
    if run_id is None:
        return None
    folder = Path(current_app.config["GRADER_BACKUP_DIR"])
    try:
        config.private_dir(folder)
        taken = take(folder)
    except Exception as exc:
        current_app.logger.exception("the scheduled backup failed")
        return record(run_id, None, f"{type(exc).__name__}: {exc}")
    row = record(run_id, taken, None)
    prune(folder, int(current_app.config["GRADER_BACKUP_KEEP"]))
    return row


def prune(folder: Path, keep: int) -> list[Path]:
    """The scheduled backups of ``folder`` past the newest ``keep``, deleted (by their names,
    which sort by time); other files are left alone."""
    found = sorted(folder.glob(f"{SCHEDULED_PREFIX}*.tar"))
    gone = found[:-keep] if keep > 0 else found
    for path in gone:
        path.unlink(missing_ok=True)
    return gone


@dataclass(frozen=True)
class Standing:
    """What the administrators' page shows: the newest runs, the last finished one, and the
    last good one (a failure stands until a later run succeeds)."""

    runs: list[BackupRun]
    last: BackupRun | None
    last_ok: BackupRun | None
    hours: float
    folder: str
    keep: int

    @property
    def failing(self) -> bool:
        return self.last is not None and self.last.status == FAILED


def standing(actor: Any, shown: int = 20) -> Standing:
    """The backups' standing, for an administrator only."""
    from grader.services import Forbidden

    if actor is not None and not actor.is_admin:
        raise Forbidden("only administrators see the backups")
    runs = list(db.session.scalars(sa.select(BackupRun).order_by(BackupRun.id.desc()).limit(shown)))
    finished = sa.select(BackupRun).where(BackupRun.status.in_((OK, FAILED)))
    last = db.session.scalar(finished.order_by(BackupRun.id.desc()).limit(1))
    last_ok = db.session.scalar(
        sa.select(BackupRun).where(BackupRun.status == OK).order_by(BackupRun.id.desc()).limit(1)
    )
    settings = current_app.config
    return Standing(
        runs,
        last,
        last_ok,
        float(settings["GRADER_BACKUP_HOURS"]),
        settings["GRADER_BACKUP_DIR"],
        int(settings["GRADER_BACKUP_KEEP"]),
    )
