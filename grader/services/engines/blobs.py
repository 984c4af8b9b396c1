"""Uploads' bytes, content-addressed by SHA-256 and written once, in the database (the `blob`
table), so that a worker on any machine needs only GRADER_DATABASE_URL and GRADER_QUEUE_URL; or
in an S3-compatible bucket when GRADER_BLOB_URL is set (`s3://BUCKET/PREFIX`, optionally
`?endpoint=http://minio:9000&region=...`; the credentials are boto3's usual ones, e.g.
AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).

A store has two operations: `put` in the transaction that records the upload (so an upload
is never acknowledged before its bytes are stored, and a refused one leaves nothing), and `get`
by hash. A worker keeps a local copy of what it grades in GRADER_UPLOADS_DIR (a cache of its
own machine, checked against the hash before each use; the sandbox mounts files, not rows).
"""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePosixPath
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import Blob, ExamPrint, Submission, utcnow
from grader.services.engines import uploads


class MissingBlob(LookupError):
    """No bytes are stored under this hash (an upload lost before the blob table existed)."""


class BlobStore(Protocol):
    def put(self, session: Session, sha256: str, data: bytes) -> None: ...

    def get(self, sha256: str) -> bytes: ...

    def delete(self, session: Session, sha256: str) -> None: ...


class DatabaseBlobs:
    """The `blob` table: one row per distinct upload, inserted once, never updated."""

    def put(self, session: Session, sha256: str, data: bytes) -> None:
        values = {"sha256": sha256, "size": len(data), "data": data, "created_at": utcnow()}
        dialect = session.get_bind().dialect.name
        if dialect in ("sqlite", "postgresql"):  # two uploads of the same bytes at once
            insert = (sqlite if dialect == "sqlite" else postgresql).insert(Blob)
            session.execute(
                insert.values(**values).on_conflict_do_nothing(index_elements=["sha256"])
            )
        elif session.get(Blob, sha256) is None:
            session.add(Blob(**values))

    def get(self, sha256: str) -> bytes:
        data = db.session.scalar(sa.select(Blob.data).where(Blob.sha256 == sha256))
        if data is None:
            raise MissingBlob(f"no stored bytes for the upload {sha256[:12]}")
        return bytes(data)

    def delete(self, session: Session, sha256: str) -> None:
        session.execute(sa.delete(Blob).where(Blob.sha256 == sha256))


class S3Blobs:
    """Objects `PREFIX/ab/cdef...` in a bucket, put once (If-None-Match: *); boto3 (the `s3`
    extra) talks to AWS S3, MinIO, Ceph or any other S3-compatible store."""

    def __init__(self, url: str) -> None:
        import boto3

        parts = urlsplit(url)
        if parts.scheme != "s3" or not parts.netloc:
            raise ValueError(f"GRADER_BLOB_URL must be s3://BUCKET[/PREFIX], not {url!r}")
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        unknown = set(query) - {"endpoint", "region"}
        if unknown:
            raise ValueError(f"GRADER_BLOB_URL: unknown parameters {sorted(unknown)}")
        self.bucket, self.prefix = parts.netloc, parts.path.strip("/")
        self.client: Any = boto3.client(
            "s3", endpoint_url=query.get("endpoint"), region_name=query.get("region")
        )

    def key(self, sha256: str) -> str:
        name = f"{sha256[:2]}/{sha256[2:]}"
        return f"{self.prefix}/{name}" if self.prefix else name

    def put(self, session: Session, sha256: str, data: bytes) -> None:
        from botocore.exceptions import ClientError

        # Before the upload's row commits: a row never points at missing bytes (an object
        # whose row then fails to commit is harmless, and found again by the next upload).
        try:
            self.client.put_object(
                Bucket=self.bucket, Key=self.key(sha256), Body=data, IfNoneMatch="*"
            )
        except ClientError as exc:  # already there: the same bytes, by their hash
            code = exc.response.get("Error", {}).get("Code", "")
            if code not in ("PreconditionFailed", "ConditionalRequestConflict"):
                raise

    def get(self, sha256: str) -> bytes:
        from botocore.exceptions import ClientError

        try:
            reply = self.client.get_object(Bucket=self.bucket, Key=self.key(sha256))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                raise MissingBlob(f"no stored bytes for the upload {sha256[:12]}") from None
            raise
        return reply["Body"].read()

    def delete(self, session: Session, sha256: str) -> None:
        # Called once nothing points at the bytes any more: a missing object is no error.
        self.client.delete_object(Bucket=self.bucket, Key=self.key(sha256))


def store() -> BlobStore:
    """GRADER_BLOB_URL's bucket, else the database (one store per app)."""
    url = current_app.config.get("GRADER_BLOB_URL", "")
    if not url:
        return DatabaseBlobs()
    made = current_app.extensions.get("grader_blobs")
    if made is None or made[0] != url:
        made = current_app.extensions["grader_blobs"] = (url, S3Blobs(url))
    return made[1]


def forget(session: Session, stored: dict[str, str]) -> int:
    """Deletes the stored bytes of these hashes (each with its local copy's relative path, or
    "" for none) that no upload and no exam print refers to any more (bytes are shared by
    content), and this machine's local copies; how many went."""
    sha256s = set(stored)
    used = set(
        session.scalars(sa.select(Submission.sha256).where(Submission.sha256.in_(sha256s)))
    ) | set(
        session.scalars(
            sa.select(ExamPrint.result_sha256).where(ExamPrint.result_sha256.in_(sha256s))
        )
    )
    gone = sorted(sha256s - used)
    blobs = store()
    folder = Path(current_app.config["GRADER_UPLOADS_DIR"])
    for sha256 in gone:
        blobs.delete(session, sha256)
        if stored[sha256]:  # an exam print's archive has no local copy
            (folder / stored[sha256]).unlink(missing_ok=True)
    return len(gone)


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
    file_type = PurePosixPath(relative_path).suffix.lstrip(".")
    written, _ = uploads.write_file(uploads.checked(data, file_type, sha256), folder)
    return written
