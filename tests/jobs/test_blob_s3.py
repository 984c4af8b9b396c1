"""Uploads' bytes in an S3-compatible bucket (GRADER_BLOB_URL), against moto's S3 server over
HTTP: stored once by hash before the row commits, fetched by a worker, graded end to end."""

from __future__ import annotations

import hashlib
import tarfile
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import Blob
from tests.jobs.engine_support import engine_bytes, wait_for
from tests.live_server import free_port

BUCKET = "grader-uploads"


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    import boto3
    from moto.server import ThreadedMotoServer

    for key, value in {
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": "/dev/null",
        "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
        "AWS_EC2_METADATA_DISABLED": "true",
    }.items():
        monkeypatch.setenv(key, value)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    client = boto3.client("s3", endpoint_url=endpoint)
    client.create_bucket(Bucket=BUCKET)
    yield {"client": client, "url": f"s3://{BUCKET}/engines?endpoint={endpoint}"}
    client.close()
    server.stop()


def objects(s3: dict[str, Any]) -> dict[str, bytes]:
    listed = s3["client"].list_objects_v2(Bucket=BUCKET).get("Contents", [])
    return {
        o["Key"]: s3["client"].get_object(Bucket=BUCKET, Key=o["Key"])["Body"].read()
        for o in listed
    }


def test_uploads_go_to_the_bucket_once_and_workers_fetch_them(app, upload, s3, tmp_path):
    from grader.services.engines import leases

    app.config["GRADER_BLOB_URL"] = s3["url"]
    data = engine_bytes("correct")
    digest = hashlib.sha256(data).hexdigest()
    first = upload(data)
    assert first.status_code == 201, first.get_json()
    assert upload(data).status_code == 201  # the same bytes: written once
    assert objects(s3) == {f"engines/{digest[:2]}/{digest[2:]}": data}
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Blob)) == 0
        db.session.remove()
    app.config["GRADER_UPLOADS_DIR"] = str(tmp_path / "another-machine")
    with app.app_context():
        claim = leases.claim_submission(upload(engine_bytes("no_pruning")).get_json()["id"], "w")
        assert claim.engine_file().read_bytes() == engine_bytes("no_pruning")
    assert len(objects(s3)) == 2


def test_a_bad_blob_url_is_refused(app):
    from grader.services.engines import blobs

    for url in ("http://bucket/x", "s3://", f"s3://{BUCKET}/x?secret=1"):
        app.config["GRADER_BLOB_URL"] = url
        with app.app_context(), pytest.raises(ValueError, match="GRADER_BLOB_URL"):
            blobs.store()


@pytest.mark.slow
def test_a_worker_grades_an_upload_from_the_bucket(
    app, client, room, upload, workers, s3, engine_env, tmp_path
):
    app.config["GRADER_BLOB_URL"] = s3["url"]
    workers.start(
        1,
        env={
            **engine_env,
            "GRADER_BLOB_URL": s3["url"],
            "GRADER_UPLOADS_DIR": str(tmp_path / "worker-copies"),
        },
    )
    submission_id = upload(engine_bytes("correct")).get_json()["id"]
    done = wait_for(
        lambda: (
            (s := client.get(f"/api/engines/{submission_id}", headers=room.student).get_json())[
                "status"
            ]
            in ("done", "failed")
            and s
        ),
        90,
        "the result",
        workers,
    )
    assert done["status"] == "done" and done["score"] == done["max_score"] == 5.0, done
    (copy,) = (tmp_path / "worker-copies").rglob("*.py")
    assert copy.read_bytes() == engine_bytes("correct")


def test_a_backup_holds_the_buckets_bytes_and_a_restore_puts_them_back(
    app, upload, s3, runner, tmp_path
):
    """The uploads' bytes in a bucket are parts of the backup (`blobs/<sha256>`, checksummed);
    a restore puts them back in the bucket, from which a worker then reads them."""
    from grader.services.engines import blobs

    app.config["GRADER_BLOB_URL"] = s3["url"]
    sent = {engine_bytes(name) for name in ("correct", "no_pruning")}
    for data in sent:
        assert upload(data).status_code == 201
    dest = tmp_path / "with-bucket.tar"
    taken = runner.invoke(args=["db", "backup", str(dest)])
    assert taken.exit_code == 0, taken.output
    with tarfile.open(dest) as tar:
        names = tar.getnames()
    assert sorted(n for n in names if n.startswith("blobs/")) == sorted(
        f"blobs/{hashlib.sha256(d).hexdigest()}" for d in sent
    )
    for key in objects(s3):  # the bucket lost
        s3["client"].delete_object(Bucket=BUCKET, Key=key)
    restored = runner.invoke(args=["db", "restore", str(dest), "--force"])
    assert restored.exit_code == 0, restored.output
    assert "2 uploads' bytes put back in the store" in restored.output
    assert set(objects(s3).values()) == sent
    with app.app_context():
        assert {blobs.store().get(hashlib.sha256(d).hexdigest()) for d in sent} == sent
