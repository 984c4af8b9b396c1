"""Engine uploads through the API and the page: checks, content-addressed storage in the blob
table, nothing stored for a refused upload, supersede, rate limit; the lease rules of the
workers' writes; a worker's local copies; the migration of the old uploads folder."""

from __future__ import annotations

import datetime as dt
import io
import re
from pathlib import Path

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import Blob, EngineResult, Submission, utcnow
from tests.app_support import csrf_from
from tests.jobs.engine_support import engine_bytes, post_multipart, zip_bytes


def stored_files(app) -> list[Path]:
    folder = Path(app.config["GRADER_UPLOADS_DIR"])
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def stored_blobs(app) -> dict[str, bytes]:
    with app.app_context():
        found = {b.sha256: bytes(b.data) for b in db.session.scalars(sa.select(Blob))}
        db.session.remove()
        return found


def rows(app) -> list[Submission]:
    with app.app_context():
        return list(db.session.scalars(sa.select(Submission).order_by(Submission.id)))


def test_upload_stores_content_addressed_and_queues(app, client, room, upload):
    data = engine_bytes("correct")
    response = upload(data, "engine.py")
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert body["status"] == "queued" and body["filename"] == "engine.py"
    assert body["size"] == len(data) and body["results"] is None
    import hashlib

    digest = hashlib.sha256(data).hexdigest()
    assert body["sha256"] == digest
    assert stored_blobs(app) == {digest: data}
    assert stored_files(app) == []  # the web writes no file: workers fetch the blob
    (row,) = rows(app)
    assert row.status == "queued" and row.enqueued_at is not None  # the wake-up was sent
    assert row.stored_path == f"{digest[:2]}/{digest[2:]}.py" and row.sha256 == digest
    again = client.get(body["urls"]["self"], headers=room.student)
    assert again.status_code == 200 and again.get_json()["id"] == body["id"]
    # The same bytes again: one blob, two submissions (the first superseded).
    assert upload(data, "engine.py").status_code == 201
    assert len(stored_blobs(app)) == 1
    assert [r.status for r in rows(app)] == ["superseded", "queued"]


def test_zip_upload_with_engine_at_top(app, upload):
    data = zip_bytes({"engine.py": engine_bytes("correct"), "helpers/util.py": "X = 1\n"})
    response = upload(data, "mine.zip")
    assert response.status_code == 201, response.get_json()
    assert list(stored_blobs(app).values()) == [data]
    (row,) = rows(app)
    assert row.stored_path.endswith(".zip")


BOMB = zip_bytes({"engine.py": "pass\n", "padding.txt": b"\0" * (6 << 20)})


MALFORMED = [
    (b"\x7fELF\x02\x01\x01\0" + bytes(range(256)) * 4, "engine.py", "not UTF-8"),
    (b"def search(fen, depth:\n    return 0\n", "engine.py", "not valid Python: line 1"),
    (b"print('hi')\n", "engine.txt", "a .py file"),
    (b"", "engine.py", "empty"),
    (b"x = 1\n" + b"#" * (300 << 10), "engine.py", "at most 262144"),
    (BOMB, "bomb.zip", "zip bomb"),
    (zip_bytes({"engine.py": "pass\n", "../evil.py": "x = 1\n"}), "e.zip", "'..'"),
    (zip_bytes({"engine.py": "pass\n", "/etc/evil.py": "x = 1\n"}), "e.zip", "absolute path"),
    (
        zip_bytes({"engine.py": "pass\n"}, links={"link.py": "/etc/passwd"}),
        "e.zip",
        "symbolic link",
    ),
    (zip_bytes({"src/engine.py": "pass\n"}), "e.zip", "no engine.py at its top"),
    (zip_bytes({"engine.py": "def f(:\n"}), "e.zip", "engine.py is not valid Python"),
    (zip_bytes({f"f{i}.py": "" for i in range(70)} | {"engine.py": ""}), "e.zip", "at most 64"),
    (b"PK\x03\x04 not really a zip", "e.zip", "not a valid zip"),
]


@pytest.mark.parametrize(
    ("data", "filename", "message"), MALFORMED, ids=[message for _, _, message in MALFORMED]
)
def test_malformed_uploads_are_refused_and_nothing_is_stored(app, upload, data, filename, message):
    response = upload(data, filename)
    assert response.status_code == 400, response.get_json()
    assert message in response.get_json()["error"]
    assert stored_blobs(app) == {}
    assert rows(app) == []


def test_oversized_bodies(app, upload):
    import os

    # A zip over 1 MiB within the body limit: refused by the check, with the limit named.
    big = zip_bytes({"engine.py": "pass\n", "noise.bin": os.urandom((1 << 20) + 8000)})
    response = upload(big, "big.zip")
    assert response.status_code == 400
    assert "at most 1048576" in response.get_json()["error"]
    # Far past it: the server stops reading (413) before anything is parsed.
    huge = b"#" * (3 << 20)
    response = upload(huge, "engine.py")
    assert response.status_code == 413
    assert stored_blobs(app) == {} and rows(app) == []


def test_missing_fields_and_wrong_slot(app, client, room, upload):
    response = post_multipart(client, "/api/engines", {"assignment_id": "x"}, room.student)
    assert response.status_code == 400 and "whole numbers" in response.get_json()["error"]
    response = post_multipart(
        client,
        "/api/engines",
        {"assignment_id": str(room.assignment_id), "slot_index": str(room.slot_index)},
        room.student,
    )
    assert response.status_code == 400 and "choose a file" in response.get_json()["error"]
    response = post_multipart(
        client,
        "/api/engines",
        {  # no slot_index (schemathesis found it)
            "assignment_id": str(room.assignment_id),
            "file": (io.BytesIO(b"pass\n"), "e.py"),
        },
        room.student,
    )
    assert response.status_code == 400
    assert response.get_json()["details"][0]["loc"] == ["slot_index"]
    response = post_multipart(
        client,
        "/api/engines",
        {
            "assignment_id": str(room.assignment_id),
            "slot_index": "0",
            "file": (io.BytesIO(b"pass\n"), "engine.py"),
        },
        room.student,
    )
    assert response.status_code == 404  # slot 0 is a game-tree exercise
    assert rows(app) == []


def test_rate_limit_is_429_with_retry_after(app, upload):
    app.config["GRADER_UPLOAD_RATE"] = "2/600"
    assert upload(engine_bytes("correct")).status_code == 201
    assert upload(engine_bytes("no_pruning")).status_code == 201
    response = upload(engine_bytes("wrong_eval"))
    assert response.status_code == 429
    assert "at most 2 uploads in 10 minutes" in response.get_json()["error"]
    assert 1 <= int(response.headers["Retry-After"]) <= 601
    assert len(rows(app)) == 2


def test_who_sees_a_submission(app, client, factory, room, upload):
    submission_id = upload(engine_bytes("correct")).get_json()["id"]
    factory.user("other@example.com")
    factory.member(room.course_id, "other@example.com")
    other = {"Authorization": f"Bearer {factory.token('other@example.com')}"}
    assert client.get(f"/api/engines/{submission_id}", headers=other).status_code == 404
    teacher = client.get(f"/api/engines/{submission_id}", headers=room.teacher)
    assert teacher.status_code == 200 and teacher.get_json()["user"] == "student@example.com"
    listing = client.get(
        f"/api/assignments/{room.assignment_id}/slots/{room.slot_index}/engines",
        headers=room.teacher,
    )
    assert [s["id"] for s in listing.get_json()["submissions"]] == [submission_id]
    assert (
        client.get(
            f"/api/assignments/{room.assignment_id}/slots/{room.slot_index}/engines",
            headers=room.student,
        ).status_code
        == 403
    )


def test_page_upload_with_the_form(app, client, auth, room):
    auth.login()
    page = client.get(f"/assignments/{room.assignment_id}/slots/{room.slot_index}")
    assert page.status_code == 302 and page.headers["Location"].endswith("/engine")
    html = client.get(page.headers["Location"]).get_data(as_text=True)
    assert "Upload your engine" in html
    response = post_multipart(
        client,
        page.headers["Location"],
        {
            "csrf_token": csrf_from(html),
            "tournament": "1",
            "file": (io.BytesIO(engine_bytes("correct")), "engine.py"),
        },
    )
    assert response.status_code == 303
    (row,) = rows(app)
    assert response.headers["Location"].endswith(f"/engines/{row.id}")
    assert row.tournament_opt_in is True
    results_page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert 'id="engine-data"' in results_page and "board-view" not in results_page
    refused = post_multipart(
        client,
        page.headers["Location"],
        {"csrf_token": csrf_from(html), "file": (io.BytesIO(b"def (:"), "engine.py")},
    )
    assert refused.status_code == 303
    follow = client.get(refused.headers["Location"]).get_data(as_text=True)
    assert "Upload refused: engine.py is not valid Python" in follow
    assert len(rows(app)) == 1


# -- the workers' writes (services/engines/leases.py), without a worker ------------------------------


def _claimed(app, upload, worker="w1"):
    from grader.services.engines import leases

    submission_id = upload(engine_bytes("correct")).get_json()["id"]
    with app.app_context():
        claim = leases.claim_submission(submission_id, worker)
        assert claim is not None and claim.attempts == 1
        assert claim.engine_file().read_bytes() == engine_bytes("correct")
    return submission_id


def test_result_is_written_once(app, upload):
    from grader.services.engines import leases

    submission_id = _claimed(app, upload)
    result = {"score": 3.0, "max_score": 5.0, "gradescope": {"score": 3.0}, "rich": {"tests": []}}
    with app.app_context():
        assert leases.claim_submission(submission_id, "w2") is None  # running: nobody else takes it
        assert leases.write_result(submission_id, "w2", **result) is False  # not its lease
        assert leases.write_result(submission_id, "w1", **result) is True
        assert leases.write_result(submission_id, "w1", **result) is False  # idempotent
        assert leases.heartbeat_submission(submission_id, "w1") is False  # done: the lease is gone
        count = db.session.scalar(sa.select(sa.func.count(EngineResult.id)))
        row = db.session.get(Submission, submission_id)
    assert count == 1 and row.status == "done" and row.score == 3.0


def test_the_results_page_has_the_timing_chart_drawn_by_the_server(app, client, auth, upload):
    """Graded before the page opens: the chart is in the page; opened before: the page's script
    fetches the same chart once the results are in (404 until then)."""
    from grader.services.engines import leases

    submission_id = _claimed(app, upload)
    auth.login()
    assert client.get(f"/engines/{submission_id}/timing").status_code == 404
    page = client.get(f"/engines/{submission_id}").get_data(as_text=True)
    assert '<div data-role="chart"></div>' in page
    rows = [
        {"depth": 3, "cpu": 0.012, "reference_cpu": 0.01},
        {"depth": 4, "cpu": 0.05, "reference_cpu": 0.04},
    ]
    rich = {
        "tests": [
            {
                "name": "timing: B:W21:B1",
                "kind": "timing",
                "verdict": "passed",
                "extra": {"rows": rows},
            }
        ]
    }
    with app.app_context():
        assert leases.write_result(
            submission_id, "w1", score=1.0, max_score=1.0, gradescope={}, rich=rich
        )
    page = client.get(f"/engines/{submission_id}").get_data(as_text=True)
    chart = re.search(r'<div data-role="chart">(.*?)</div>', page, re.S).group(1)
    assert chart.startswith('<svg class="chart"') and chart.count('class="mine"') == 2
    assert "d4" in chart and "you 0.050 s, reference 0.040 s" in chart
    fragment = client.get(f"/engines/{submission_id}/timing").get_data(as_text=True)
    ids = re.compile(r"chart-(title|desc)-\d+")
    assert ids.sub("id", fragment.strip()) == ids.sub("id", chart.strip())


def test_unique_key_refuses_a_second_result_row(app, upload):
    submission_id = _claimed(app, upload)
    with app.app_context():
        db.session.add(
            EngineResult(submission_id=submission_id, worker="a", gradescope={}, rich={})
        )
        db.session.commit()
        db.session.add(
            EngineResult(submission_id=submission_id, worker="b", gradescope={}, rich={})
        )
        with pytest.raises(sa.exc.IntegrityError):
            db.session.commit()
        db.session.rollback()


def test_expired_lease_is_requeued_then_fails_after_three_attempts(app, upload):
    from grader.services.engines import leases

    submission_id = _claimed(app, upload, "dead-1")
    later = utcnow() + dt.timedelta(seconds=60)
    with app.app_context():
        assert leases.heartbeat_submission(submission_id, "dead-1", {"tests_done": 1}) is True
        woken = leases.sweep_submissions(later)
        assert (submission_id, 0) in woken
        row = db.session.get(Submission, submission_id)
        db.session.refresh(row)
        assert row.status == "queued" and row.lease_owner is None
        # The dead worker comes back: it can write nothing.
        assert (
            leases.write_result(
                submission_id, "dead-1", score=1, max_score=1, gradescope={}, rich={}
            )
            is False
        )
        assert leases.claim_submission(submission_id, "dead-2") is not None
        assert leases.sweep_submissions(utcnow()) == []  # a live lease is left alone
        assert leases.sweep_submissions(later) == [(submission_id, 0)]
        assert leases.claim_submission(submission_id, "dead-3") is not None
        assert (
            leases.sweep_submissions(later) == []
        )  # its third worker died too: failed, not requeued
        row = db.session.get(Submission, submission_id)
        db.session.refresh(row)
    assert row.status == "failed" and row.attempts == 3 and "not charged" in row.error


def test_internal_errors_retry_then_fail_uncharged(app, upload):
    from grader.services.engines import leases

    submission_id = _claimed(app, upload, "w")
    with app.app_context():
        assert leases.submission_error(submission_id, "w", "sandbox broke") == "queued"
        assert leases.claim_submission(submission_id, "w") is not None
        assert leases.submission_error(submission_id, "w", "sandbox broke") == "queued"
        assert leases.claim_submission(submission_id, "w") is not None
        assert leases.submission_error(submission_id, "w", "sandbox broke") == "failed"
        assert leases.submission_error(submission_id, "w", "again") is None
        row = db.session.get(Submission, submission_id)
        db.session.refresh(row)
    assert row.status == "failed" and "not charged" in row.error and row.score is None


def test_gradebook_counts_the_engine_slot(app, factory, room, upload):
    from grader.services.engines import leases
    from grader.services.teaching import gradebook

    submission_id = _claimed(app, upload)
    with app.app_context():
        leases.write_result(
            submission_id, "w1", score=4.0, max_score=5.0, gradescope={}, rich={"tests": []}
        )
        book = gradebook.build(room.course_id)
        slot_id = db.session.get(Submission, submission_id).slot_id
    (row,) = book.rows
    assert row.slot_scores[slot_id] == pytest.approx(0.8)
    assert row.total == pytest.approx(0.8)


# -- the bytes in the database: a worker's local copies, the migration of the old folder ------


def test_a_worker_fetches_its_copy_from_the_database_and_checks_it(app, upload, tmp_path):
    from grader.services.engines import blobs, leases

    submission_id = upload(engine_bytes("correct")).get_json()["id"]
    app.config["GRADER_UPLOADS_DIR"] = str(tmp_path / "another-machine")  # nothing there
    with app.app_context():
        claim = leases.claim_submission(submission_id, "w")
        path = claim.engine_file()
        assert path.read_bytes() == engine_bytes("correct")
        assert path.is_relative_to(tmp_path / "another-machine")
        path.write_bytes(b"tampered = True\n")  # a damaged cache is fetched again
        assert claim.engine_file().read_bytes() == engine_bytes("correct")
        with pytest.raises(blobs.MissingBlob):
            blobs.local_copy("0" * 64, "00/" + "0" * 62 + ".py")


def test_the_same_bytes_twice_in_one_transaction_store_one_blob(app):
    from grader.services.engines import blobs
    from grader.services.transactions import writing

    with app.app_context():
        with writing() as session:
            blobs.store().put(session, "a" * 64, b"x = 1\n")
            blobs.store().put(session, "a" * 64, b"x = 1\n")
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Blob)) == 1
        assert blobs.store().get("a" * 64) == b"x = 1\n"


def test_migration_moves_the_uploads_folder_into_blobs(tmp_path, monkeypatch):
    import hashlib
    import sqlite3

    from flask_migrate import upgrade

    from grader import create_app
    from tests.migrations.rows_support import Schema, fill

    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path / "instance"))
    monkeypatch.delenv("GRADER_DATABASE_URL", raising=False)
    folder = tmp_path / "uploads"
    app = create_app(
        {
            "SECRET_KEY": "x",
            "GRADER_UPLOADS_DIR": str(folder),
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'old.sqlite3'}",
        }
    )
    kept, lost, bad = b"x = 1\n", b"y = 2\n", b"z = 3\n"
    with app.app_context():
        upgrade(directory=app.config["GRADER_MIGRATIONS_DIR"], revision="9aa616d658e0")
        # The account and slot the uploads belong to (an upgrade refuses rows pointing at nothing).
        with db.engine.begin() as connection:
            fill(connection, Schema.of_tables(connection, "user", "slot"))
        db.engine.dispose()
    connection = sqlite3.connect(tmp_path / "old.sqlite3")  # the rows of the old release
    for n, data in enumerate((kept, kept, lost, bad)):
        digest = hashlib.sha256(data).hexdigest()
        relative = f"{digest[:2]}/{digest[2:]}.py"
        if data is not lost:
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_bytes(data if data is kept else b"changed")
        connection.execute(
            "INSERT INTO submission (id, owner_id, slot_id, sha256, stored_path, filename, size,"
            " suite, status, priority, attempts, tournament_opt_in, days_late, penalty,"
            " created_at) VALUES (?, 1, 1, ?, ?, 'engine.py', 6, 'quick', 'done', 0, 1, 0, 0,"
            " 0, '2026-01-01 00:00:00')",
            (n + 1, digest, relative),
        )
    connection.commit()
    connection.close()
    with app.app_context():
        upgrade(directory=app.config["GRADER_MIGRATIONS_DIR"])
        found = {b.sha256: bytes(b.data) for b in db.session.scalars(sa.select(Blob))}
        db.session.remove()
        db.engine.dispose()
    assert found == {hashlib.sha256(kept).hexdigest(): kept}  # lost and changed: reported
