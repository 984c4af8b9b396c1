"""Uploads' bytes, content-addressed by SHA-256 and written once, in the database (the `blob`
table), so that a worker on any machine needs only GRADER_DATABASE_URL and GRADER_QUEUE_URL.

A store has two operations: `put` in the transaction that records the upload (so an upload
is never acknowledged before its bytes are stored, and a refused one leaves nothing), and `get`
by hash. A worker keeps a local copy of what it grades in GRADER_UPLOADS_DIR (a cache of its
own machine, checked against the hash before each use; the sandbox mounts files, not rows).
"""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePosixPath
from typing import Protocol

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import Blob, utcnow
from grader.services import uploads


class MissingBlob(LookupError):
    """No bytes are stored under this hash (an upload lost before the blob table existed)."""


class BlobStore(Protocol):
    def put(self, session: Session, sha256: str, data: bytes) -> None: ...

    def get(self, sha256: str) -> bytes: ...


class DatabaseBlobs:
    """The `blob` table: one row per distinct upload, inserted once, never updated."""

    def put(self, session: Session, sha256: str, data: bytes) -> None:
        values = {"sha256": sha256, "size": len(data), "data": data, "created_at": utcnow()}
        dialect = session.get_bind().dialect.name
        if dialect in ("sqlite", "postgresql"):  # two uploads of the same bytes at once
            insert = (sqlite if dialect == "sqlite" else postgresql).insert(Blob)
            session.execute(insert.values(**values).on_conflict_do_nothing(
                index_elements=["sha256"]))
        elif session.get(Blob, sha256) is None:
            session.add(Blob(**values))

    def get(self, sha256: str) -> bytes:
        data = db.session.scalar(sa.select(Blob.data).where(Blob.sha256 == sha256))
        if data is None:
            raise MissingBlob(f"no stored bytes for the upload {sha256[:12]}")
        return bytes(data)


def store() -> BlobStore:
    return DatabaseBlobs()


def local_copy(sha256: str, relative_path: str) -> Path:
    """This machine's copy of an upload (GRADER_UPLOADS_DIR/relative_path), fetched from the
    store when missing or not matching its hash."""
    folder = Path(current_app.config["GRADER_UPLOADS_DIR"])
    path = folder / relative_path
    if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == sha256:
        return path
    data = store().get(sha256)
    if hashlib.sha256(data).hexdigest() != sha256:
        raise MissingBlob(f"the stored bytes of {sha256[:12]} do not match their hash")
    path.unlink(missing_ok=True)
    kind = PurePosixPath(relative_path).suffix.lstrip(".")
    written, _ = uploads.store(uploads.CheckedUpload(data, kind, sha256, ""), folder)
    return written
