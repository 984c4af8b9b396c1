"""An erased person leaves no trace: after `grader user erase`, no text column of any table
holds their address, their name or their LMS subject. The course is seeded with the person
in every table that can name them: the audit log (an extension for them, written by its
service), an extension and a group ("accom 1.5x"), a problem report, a print run with their
sheet, an invitation, a password reset, a pending erasure request, LMS launch data, and a
paper answer a TA typed in under their address."""

from __future__ import annotations

import datetime as dt
import hashlib

import sqlalchemy as sa

from tests.instructor_support import ALICE, BOB, TEACHER, user
from tests.privacy_support import full_room, traces

NAME = "Alice Pleasance Liddell"
SUB = "lms-alice-7"


def _seed(app, factory) -> dict[str, int]:
    from grader.extensions import db
    from grader.models import (
        ErasureRequest,
        ExamPrint,
        ExamSheet,
        Invite,
        LtiLaunchData,
        Membership,
        PasswordReset,
        ProblemReport,
        ScoreNote,
        Slot,
        SlotVisit,
        utcnow,
    )
    from grader.services.courses import extensions, groups
    from grader.services.engines import blobs

    room = full_room(app, factory)
    alice_id = room.ids[ALICE]
    with app.app_context():
        now = utcnow()
        alice = user(ALICE)
        alice.name = NAME
        db.session.execute(
            sa.update(Membership).where(Membership.user_id == alice_id).values(name=NAME)
        )
        db.session.commit()
        teacher = user(TEACHER)
        groups.set_group(teacher, room.course_id, "accom 1.5x", [ALICE, BOB])
        for who in ({"email": ALICE}, {"group": "accom 1.5x"}):
            extensions.grant(
                teacher,
                room.course_id,
                extensions.ExtensionInput(
                    assignment_id=room.assignment_id, extra_attempts=2, **who
                ),
            )
        slot = db.session.scalar(
            sa.select(Slot).where(Slot.assignment_id == room.assignment_id, Slot.index == 0)
        )
        db.session.add(
            ProblemReport(
                course_id=room.course_id,
                slot_id=slot.id,
                user_id=alice_id,
                text=f"I am {NAME} ({ALICE}) and the tree looks wrong",
            )
        )
        db.session.add(
            Invite(
                course_id=room.course_id,
                user_id=alice_id,
                nonce="n" * 32,
                token_hash="a" * 64,
                name=NAME,
                expires_at=now + dt.timedelta(days=7),
            )
        )
        db.session.add(
            PasswordReset(
                user_id=alice_id, token_hash="b" * 64, expires_at=now + dt.timedelta(hours=1)
            )
        )
        db.session.add(ErasureRequest(user_id=alice_id))
        db.session.add(SlotVisit(user_id=alice_id, slot_id=slot.id))
        db.session.add(
            ScoreNote(
                user_id=alice_id,
                course_id=slot.assignment.course_id,
                slot_id=slot.id,
                text="Your score went from 75% to 100%: the suite's perft test was overweighted.",
            )
        )
        db.session.add(
            LtiLaunchData(
                key="launch-alice",
                value={"sub": SUB, "email": ALICE, "name": NAME},
                expires_at=now + dt.timedelta(hours=1),
            )
        )
        archive = f"001-alice-ABCD.pdf {NAME} {ALICE}".encode()
        sha = hashlib.sha256(archive).hexdigest()
        blobs.store().put(db.session, sha, archive)
        run = ExamPrint(
            assignment_id=room.assignment_id,
            requested_by_id=teacher.id,
            status="done",
            result_sha256=sha,
            error=f"sheet of {ALICE} redrawn",
        )
        db.session.add(run)
        db.session.flush()
        db.session.add(ExamSheet(code="ALICESHEET01", print_id=run.id, number=1, user_id=alice_id))
        # A paper answer of Bob's, typed in by Alice (as a TA elsewhere would): the history
        # keeps the address of whoever entered it.
        bob_attempt = db.session.scalar(
            sa.text("select id from attempt where user_id = :u"), {"u": room.ids[BOB]}
        )
        db.session.execute(
            sa.text("update attempt set history = :h, entered_by_id = :a where id = :i"),
            {
                "h": f'[{{"answer": {{}}, "score": 1.0, "entered_by": "{ALICE}", '
                f'"entered_at": "2026-01-01T00:00:00Z"}}]',
                "a": alice_id,
                "i": bob_attempt,
            },
        )
        db.session.commit()
        return {"alice": alice_id, "run": run.id, "sha": sha}


def test_an_erased_person_is_in_no_text_column_of_any_table(app, factory, runner):
    from grader.extensions import db
    from grader.models import (
        AuditEntry,
        Blob,
        ExamPrint,
        Extension,
        GroupMember,
        ScoreNote,
        SlotVisit,
    )

    seeded = _seed(app, factory)
    before = traces(app, ALICE, NAME, SUB)
    tables = {hit.split(".")[0] for hit in before}
    assert {
        "user",
        "membership",
        "regrade",
        "problem_report",
        "invite",
        "lti_user",
        "lti_launch_data",
        "exam_print",
        "attempt",
    } <= tables, before

    done = runner.invoke(args=["user", "erase", ALICE], input="y\n")
    assert done.exit_code == 0, done.output

    assert traces(app, ALICE, NAME, SUB) == []
    with app.app_context():
        alice = seeded["alice"]
        # Her accommodation goes with her: her own extension, her place in the group, and
        # the audit row that granted it; the group's extension stays for Bob.
        assert db.session.scalars(sa.select(Extension.user_id)).all() == [None]
        assert alice not in db.session.scalars(sa.select(GroupMember.user_id)).all()
        for entry in db.session.scalars(sa.select(AuditEntry)):
            assert alice not in [d.get("user_id") for d in entry.details], entry.what
        assert db.session.scalars(sa.select(SlotVisit.user_id)).all() == []
        assert db.session.scalars(sa.select(ScoreNote.user_id)).all() == []
        # The print run's archive (her sheet, her name in its PDFs) is gone.
        run = db.session.get(ExamPrint, seeded["run"])
        assert run.result_sha256 is None and run.status == "failed"
        assert db.session.get(Blob, seeded["sha"]) is None
