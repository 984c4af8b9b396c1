"""A person's data on the real SQLite: the export holds every kind of record; erasure removes
the person from the gradebook, the roster, the CSV, the integrity results and the LMS's queue,
keeps (or deletes) the attempts, and leaves one audit row; an archived course is read-only and
its students' data is purged once its retention has run out."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import zipfile

import pytest
import sqlalchemy as sa

from tests.app_support import attempt_count
from tests.instructor_support import ALICE, BOB, TEACHER, answer, user
from tests.privacy_support import ENGINE, ENGINE_INDEX, full_room

FILES = {
    "README.txt",
    "account.json",
    "memberships.json",
    "api_tokens.json",
    "invites.json",
    "exercises.json",
    "attempts.json",
    "uploads.json",
    "exam_sheets.json",
    "lti_identities.json",
    "problem_reports.json",
    "erasure_request.json",
    "deadlines.json",
}


def _zip(data) -> zipfile.ZipFile:
    with data:
        return zipfile.ZipFile(io.BytesIO(data.read()))


def test_the_export_holds_every_record_and_the_uploads_bytes(app, factory):
    from grader.services.data import export

    room = full_room(app, factory)
    with app.app_context():
        alice = user(ALICE)
        data, name = export.export(alice, alice.id)
        archive = _zip(data)
    upload = f"uploads/{room.ids[ALICE + '-upload']}-engine.py"
    assert set(archive.namelist()) == FILES | {upload}
    assert name.startswith(f"grader-account-{alice.id}-") and name.endswith(".zip")
    assert archive.read(upload) == ENGINE
    account = json.loads(archive.read("account.json"))
    assert account["email"] == ALICE
    attempts = json.loads(archive.read("attempts.json"))
    assert len(attempts) == 1 and attempts[0]["score"] == 0.5 and attempts[0]["feedback"]
    exercises = json.loads(archive.read("exercises.json"))
    assert {e["slot"] for e in exercises} == {1} and exercises[0]["tree"]
    uploads = json.loads(archive.read("uploads.json"))
    assert uploads[0]["file"] == upload and uploads[0]["status"] == "queued"
    assert json.loads(archive.read("lti_identities.json")) == [
        {"issuer": "https://lms.example.edu", "client_id": "grader", "sub": "lms-alice-7"}
    ]
    assert [m["course"] for m in json.loads(archive.read("memberships.json"))] == ["Search 101"]
    assert "integrity.json" not in archive.namelist()  # the person's own export
    assert b"bob@example.com" not in b"".join(archive.read(n) for n in archive.namelist())


def test_an_administrators_export_adds_the_integrity_findings(app, factory):
    from grader.services.data import export

    room = full_room(app, factory)
    with app.app_context():
        archive = _zip(export.export(None, room.ids[ALICE])[0])
        found = json.loads(archive.read("integrity.json"))
        bobs = json.loads(_zip(export.export(None, room.ids[BOB])[0]).read("integrity.json"))
    answers = [f for f in found if f["kind"] == "answers"]
    engines = [f for f in found if f["kind"] == "engines"]
    assert [(f["as"], f["own_errors"]) for f in answers] == [("answered", 0)]
    assert [f["as"] for f in bobs if f["kind"] == "answers"] == ["tree fitted"]
    assert [(f["upload"], f["similarity"]) for f in engines] == [(room.ids[ALICE + "-upload"], 1.0)]
    common = {"check", "kind", "checked_at", "assignment_id", "slot_id"}
    # No classmate named: neither their account nor their upload.
    assert {key for f in answers for key in f} == common | {
        "as", "attempts", "own_errors", "errors_there",
    }  # fmt: skip
    assert {key for f in engines for key in f} == common | {"upload", "similarity"}


def _everything_listing(app, room):
    """Every page's and service's list of people that could name Alice: the gradebook (rows,
    CSV), the roster, the integrity report, the LMS's queue, the LMS identities."""
    from grader.extensions import db
    from grader.models import LtiPassback, LtiUser
    from grader.services import lti
    from grader.services.courses import roster
    from grader.services.integrity import answers, engines
    from grader.services.teaching import gradebook

    teacher = user(TEACHER)
    book = gradebook.build(room.course_id)
    _, members = roster.roster(teacher, room.course_id)
    report = answers.report(teacher, room.assignment_id)
    similar = engines.report(teacher, room.assignment_id, ENGINE_INDEX)
    return {
        "similarity": sorted({r.a_label for r in similar.rows} | {r.b_label for r in similar.rows}),
        # Whose scores the worker's sweep would queue for the LMS now.
        "due": [who for who, _ in lti.due_passbacks(dt.datetime(2100, 1, 1))],
        "gradebook": [r.email for r in book.rows],
        "csv": book.to_csv(),
        "roster": [m.email for m in members],
        "integrity": [(f.copier.user.email, f.source.user.email) for f in report.flags],
        "passback": list(db.session.scalars(sa.select(LtiPassback.user_id))),
        "lti": list(db.session.scalars(sa.select(LtiUser.sub))),
    }


def test_erasure_removes_the_person_everywhere_and_keeps_anonymous_attempts(app, factory):
    from grader.extensions import db
    from grader.models import AccountErasure, Attempt, Submission, User
    from grader.services.data import erasure
    from grader.services.teaching import stats

    room = full_room(app, factory)
    alice_id = room.ids[ALICE]
    with app.app_context():
        before = _everything_listing(app, room)
        assert ALICE in before["gradebook"] and ALICE in before["csv"]
        assert ALICE in before["roster"] and before["integrity"] == [(ALICE, BOB)]
        assert before["passback"] == [alice_id] and before["lti"] == ["lms-alice-7"]
        assert before["similarity"] == [ALICE, BOB] and before["due"] == [alice_id]
        _, counted = stats.statistics(user(TEACHER), room.course_id)
        attempts_before = counted[0][1][0].attempts

        admin = user(TEACHER)
        admin.is_admin = True
        db.session.commit()
        erased = erasure.erase(admin, alice_id)
        assert (erased.attempts, erased.attempts_kept, erased.uploads_deleted) == (
            "anonymize",
            1,
            1,
        )

        after = _everything_listing(app, room)
        assert ALICE not in after["gradebook"] and ALICE not in after["csv"]
        assert ALICE not in after["roster"] and after["integrity"] == []
        assert after["passback"] == [] and after["lti"] == []
        assert after["similarity"] == [] and after["due"] == []
        assert BOB in after["gradebook"]
        # Item statistics still count her attempt, which no longer names anyone.
        _, counted = stats.statistics(user(TEACHER), room.course_id)
        assert counted[0][1][0].attempts == attempts_before
        row = db.session.get(User, alice_id)
        assert row.email == f"erased-account-{alice_id}" and row.password_hash is None
        assert row.name is None and row.erased_at is not None
        assert attempt_count(None, Attempt.user_id == alice_id) == 1
        assert (
            db.session.scalar(sa.select(Submission.id).where(Submission.owner_id == alice_id))
            is None
        )
        audit = db.session.scalars(sa.select(AccountErasure)).all()
        assert [(a.account_id, a.erased_by_id, a.attempts) for a in audit] == [
            (alice_id, admin.id, "anonymize")
        ]
        # Bob's upload had the same bytes: they stay, his.
        from grader.services.engines import blobs

        assert (
            blobs.store().get(db.session.get(Submission, room.ids[BOB + "-upload"]).sha256)
            == ENGINE
        )


def test_erasure_with_delete_removes_the_attempts(app, factory):
    from grader.extensions import db
    from grader.models import Attempt, Exercise
    from grader.services.data import erasure

    room = full_room(app, factory)
    app.config["GRADER_ERASURE_ATTEMPTS"] = "delete"
    with app.app_context():
        erased = erasure.erase(None, room.ids[ALICE])
        assert (erased.attempts, erased.attempts_deleted) == ("delete", 1)
        for model, column in ((Attempt, Attempt.user_id), (Exercise, Exercise.owner_id)):
            assert (
                db.session.scalar(
                    sa.select(sa.func.count()).select_from(model).where(column == room.ids[ALICE])
                )
                == 0
            )
        assert attempt_count() == 1  # Bob's


def test_an_archived_course_is_read_only_then_purged_after_its_retention(app, factory):
    from grader.extensions import db
    from grader.models import Course, Membership, Submission
    from grader.services import Conflict
    from grader.services.data import retention
    from grader.services.engines import submissions
    from grader.services.teaching import gradebook

    room = full_room(app, factory)
    with app.app_context():
        from grader.models import DONE, Blob, ExamPrint, ExamSheet
        from grader.services.engines import blobs

        # A print run of the assignment, as the exam job leaves it: its PDFs' archive stored.
        archive = b"PK\x05\x06" + bytes(18)
        sha = hashlib.sha256(archive).hexdigest()
        blobs.store().put(db.session, sha, archive)
        run = ExamPrint(assignment_id=room.assignment_id, status=DONE, result_sha256=sha)
        db.session.add(run)
        db.session.flush()
        db.session.add(
            ExamSheet(code="ABCDEFGHJK", print_id=run.id, number=1, user_id=room.ids[ALICE])
        )
        db.session.commit()
        course = retention.archive(user(TEACHER), room.course_id)
        assert course.archived_at is not None
    with pytest.raises(Conflict, match=r"archived on .*read-only and takes no new attempts"):
        answer(app, ALICE, room.assignment_id, 0, {"pruned": [], "value": 3})
    with app.app_context():
        with pytest.raises(Conflict, match="read-only"):
            submissions.upload(user(ALICE), room.assignment_id, ENGINE_INDEX, ENGINE, "engine.py")
        assert ALICE in gradebook.build(room.course_id).to_csv()  # still exportable
        admin = user(TEACHER)
        admin.is_admin = True
        db.session.commit()
        [due] = retention.schedule(admin)
        assert (due.students, due.attempts, due.uploads) == (2, 2, 2)
        assert due.purge_at == due.course.archived_at + dt.timedelta(days=365)
        assert retention.purge_due(due.purge_at - dt.timedelta(minutes=1)) == []
        assert retention.purge_due(due.purge_at) == [room.course_id]
        assert attempt_count() == 0
        assert db.session.scalar(sa.select(sa.func.count(Submission.id))) == 0
        roles = db.session.scalars(
            sa.select(Membership.role).where(Membership.course_id == room.course_id)
        ).all()
        assert "student" not in roles and "instructor" in roles
        assert db.session.get(Course, room.course_id).purged_at is not None
        assert retention.schedule(admin) == []
        for model in (ExamPrint, ExamSheet, Blob):  # the uploads' bytes and the print's too
            assert db.session.scalar(sa.select(sa.func.count()).select_from(model)) == 0


def test_an_export_reads_the_same_whatever_the_rest_of_the_service_holds(app, factory):
    """Bounded by the person's own rows: the statements an export runs are as many when the
    course holds ten more students' work."""
    from grader.extensions import db
    from grader.services.data import export

    room = full_room(app, factory)

    def statements() -> int:
        seen: list[str] = []

        def count(_conn, _cursor, statement, *_rest) -> None:
            seen.append(statement)

        with app.app_context():
            sa.event.listen(db.engine, "before_cursor_execute", count)
            try:
                export.download(None, room.ids[ALICE])
            finally:
                sa.event.remove(db.engine, "before_cursor_execute", count)
        return len(seen)

    before = statements()
    for n in range(10):
        email = f"more{n}@example.com"
        factory.user(email)
        factory.member(room.course_id, email)
        answer(app, email, room.assignment_id, 0, {"pruned": [], "value": 3})
    assert statements() == before


def test_the_workers_sweep_purges_a_course_past_its_retention(app, factory):
    from grader import jobs
    from grader.extensions import db
    from grader.models import Course, utcnow
    from grader.services.data import retention

    room = full_room(app, factory)
    app.config["GRADER_RETENTION_DAYS"] = 30
    with app.app_context():
        retention.archive(None, room.course_id)
        assert jobs.sweep_once(app) == 0  # archived today: 30 days to go
        course = db.session.get(Course, room.course_id)
        course.archived_at = utcnow() - dt.timedelta(days=30, seconds=1)
        db.session.commit()
    assert jobs.sweep_once(app) == 1
    with app.app_context():
        assert db.session.get(Course, room.course_id).purged_at is not None
        assert attempt_count() == 0
    assert jobs.sweep_once(app) == 0  # once


def test_erasure_removes_the_second_factor_and_every_recovery_link(app, factory):
    """The TOTP key, its recovery codes and any forgot-password link go with the account."""
    import datetime as dt

    from grader.extensions import db
    from grader.models import PasswordReset, RecoveryCode, User, utcnow
    from grader.services.data import erasure

    room = full_room(app, factory)
    alice_id = room.ids[ALICE]
    with app.app_context():
        alice = db.session.get(User, alice_id)
        alice.totp_secret, alice.totp_last_step = "JBSWY3DPEHPK3PXP", 123
        db.session.add(RecoveryCode(user_id=alice_id, code_hash="a" * 64))
        db.session.add(
            PasswordReset(
                user_id=alice_id, token_hash="b" * 64, expires_at=utcnow() + dt.timedelta(hours=1)
            )
        )
        admin = user(TEACHER)
        admin.is_admin = True
        db.session.commit()
        erasure.erase(admin, alice_id)
        db.session.expire_all()
        alice = db.session.get(User, alice_id)
        assert (alice.totp_secret, alice.totp_last_step) == (None, None)
        for model in (RecoveryCode, PasswordReset):
            left = db.session.scalar(
                sa.select(sa.func.count(model.id)).where(model.user_id == alice_id)
            )
            assert left == 0, model.__tablename__
