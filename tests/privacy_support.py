"""A course with a person's every kind of record, made through the services (attempts, an
engine upload, an LTI identity, a pending LMS score, an integrity finding), for the export,
erasure and retention tests."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from tests.instructor_support import ALICE, BOB, Room, answer, make_room, user

ENGINE = b"def legal_moves(fen):\n    return []\n"
ENGINE_INDEX = 2  # the room's engine slot, after its two exercises


def full_room(app: Any, factory: Any) -> Room:
    """make_room's course, where Alice and Bob answered the textbook slot and uploaded an
    engine; Alice has an LMS identity and a score waiting for the LMS, the last answers check
    flagged her answer as fitting Bob's tree, and the engine slot's check found their uploads
    alike (results as the workers store them)."""
    from grader.extensions import db
    from grader.models import (
        ANSWERS_CHECK,
        DONE,
        ENGINES_CHECK,
        IntegrityCheck,
        LtiPassback,
        utcnow,
    )
    from grader.services.engines import submissions

    room = make_room(app, factory)
    factory.lms_identity(room.ids[ALICE], "lms-alice-7")
    first = answer(app, ALICE, room.assignment_id, 0, {"pruned": [], "value": 3})
    answer(app, BOB, room.assignment_id, 0, {"pruned": [], "value": 3})
    with app.app_context():
        index = submissions.add_engine_slot(room.assignment_id, suite="quick").index
        assert index == ENGINE_INDEX
        for email in (ALICE, BOB):
            room.ids[f"{email}-upload"] = submissions.upload(
                user(email), room.assignment_id, index, ENGINE, "engine.py"
            ).id
        alice, bob = room.ids[ALICE], room.ids[BOB]
        slot_id = db.session.scalar(
            sa.text('select id from slot where assignment_id = :a and "index" = 0'),
            {"a": room.assignment_id},
        )
        now = utcnow()
        db.session.add(LtiPassback(user_id=alice, slot_id=slot_id, marked_at=now, enqueued_at=now))
        db.session.add(
            IntegrityCheck(
                kind=ANSWERS_CHECK,
                assignment_id=room.assignment_id,
                params={},
                status=DONE,
                result={
                    "flags": [
                        {
                            "slot": slot_id,
                            "index": 0,
                            "copier": alice,
                            "source": bob,
                            "attempts": [first.id],
                            "own_errors": 0,
                            "errors_there": 0,
                            "source_first_at": None,
                        }
                    ],
                    "slots": [],
                    "suspects": 1,
                    "compared": 1,
                },
                finished_at=now,
            )
        )
        engine_slot_id = db.session.scalar(
            sa.text('select id from slot where assignment_id = :a and "index" = :i'),
            {"a": room.assignment_id, "i": ENGINE_INDEX},
        )
        a, b = sorted((room.ids[f"{ALICE}-upload"], room.ids[f"{BOB}-upload"]))
        db.session.add(
            IntegrityCheck(
                kind=ENGINES_CHECK,
                assignment_id=room.assignment_id,
                slot_id=engine_slot_id,
                params={},
                status=DONE,
                result={
                    "basis": "test",
                    "submissions": 2,
                    "earlier_submissions": 0,
                    "pairs": [{"a": a, "b": b, "similarity": 1.0, "a_share": 1.0, "b_share": 1.0}],
                    "pairs_total": 1,
                    "compared": 1,
                    "cached": 0,
                    "skipped": [],
                },
                finished_at=now,
            )
        )
        db.session.commit()
    return room


def traces(app: Any, *needles: str) -> list[str]:
    """Every text column of every table of the models (strings, texts and JSON, read as text)
    holding one of ``needles``, case-insensitively: "table.column #primary key: needle"."""
    from grader.extensions import db

    found = []
    with app.app_context():
        for table in db.metadata.sorted_tables:
            key = next(iter(table.primary_key.columns))
            for column in table.columns:
                if not isinstance(column.type, (sa.String, sa.JSON)):
                    continue
                text = sa.func.lower(sa.cast(column, sa.Text))
                for needle in needles:
                    for row in db.session.scalars(
                        sa.select(key).where(text.contains(needle.lower(), autoescape=True))
                    ):
                        found.append(f"{table.name}.{column.name} #{row}: {needle}")
        db.session.remove()
    return found
