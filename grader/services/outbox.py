"""The LMS outbox: a score an attempt, an engine result, a regrade or a paper answer changed is
marked for the LMS in the transaction that changed it (one `LtiPassback` row per student and
slot), and its `lti_passback` job is queued once that transaction commits; nothing for a slot
no LMS shows. Sending is `lti.passback`'s (the job, the sweep that queues a mark again): every
use case that changes a score marks it here, below the domains, so none of them reaches up to
the LTI package (which reads the scores they write).
"""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from grader.extensions import PASSBACK, job_queue
from grader.models import LtiPassback, LtiResourceLink, Slot, utcnow

_PENDING = "lti_passback"  # Session.info key: (user id, slot id) pairs to send after commit


# A slot placed in an LMS, itself or through its assignment.
_IS_PLACED = sa.or_(
    sa.exists().where(LtiResourceLink.slot_id == Slot.id),
    sa.exists().where(
        LtiResourceLink.assignment_id == Slot.assignment_id, LtiResourceLink.slot_id.is_(None)
    ),
)
# Built once (every graded attempt asks): the slots among these placed in an LMS.
_PLACED = sa.select(Slot.id).where(
    Slot.id.in_(sa.bindparam("slot_ids", expanding=True)), _IS_PLACED
)
#: Whether the slot bound as `slot_id` is placed in an LMS: a column for a caller's own query
#: (the attempt path asks it with its count, in one statement).
SLOT_PLACED = sa.select(Slot.id).where(Slot.id == sa.bindparam("slot_id"), _IS_PLACED).exists()


def passback_after_commit(
    session: Session, pairs: list[tuple[int, int | None]], placed: set[int] | None = None
) -> int:
    """Marks these (student, slot) scores for the LMS in the caller's transaction, and queues
    them once it commits; only slots placed in an LMS (nothing at all for other courses).
    `placed`: which of these slots are, when the caller has read it in this transaction. The
    number of pairs the transaction has marked so far."""
    slot_ids = {slot for _, slot in pairs if slot is not None}
    if not slot_ids:
        return 0
    if placed is None:  # on the transaction's connection: a Core query that flushes nothing
        placed = set(session.connection().scalars(_PLACED, {"slot_ids": sorted(slot_ids)}))
    wanted = sorted({(user, slot) for user, slot in pairs if slot in placed})
    if not wanted:
        return 0
    _mark(session, wanted, utcnow())
    pending = session.info.setdefault(_PENDING, set())
    pending.update(wanted)
    return len(pending)


def _mark(session: Session, pairs: list[tuple[int, int]], now: dt.datetime) -> None:
    """One row per (student, slot), inserted or brought up to date in one statement (two
    concurrent transactions marking the same pair must not fail the student's request)."""
    rows = [
        {"user_id": u, "slot_id": s, "marked_at": now, "enqueued_at": now, "failures": 0}
        for u, s in pairs
    ]
    dialect = session.get_bind().dialect.name
    if dialect in ("sqlite", "postgresql"):
        insert = sqlite.insert if dialect == "sqlite" else postgresql.insert
        for start in range(0, len(rows), 500):  # within SQLite's limit of bound parameters
            statement = insert(LtiPassback).values(rows[start : start + 500])
            session.execute(
                statement.on_conflict_do_update(
                    index_elements=["user_id", "slot_id"],
                    set_={
                        "marked_at": statement.excluded.marked_at,
                        "enqueued_at": statement.excluded.enqueued_at,
                        "failures": 0,
                        "error": None,
                    },
                )
            )
        return
    for row in rows:  # other databases: read, then write, under the transaction's locks
        found = session.scalar(
            sa.select(LtiPassback).where(
                LtiPassback.user_id == row["user_id"], LtiPassback.slot_id == row["slot_id"]
            )
        )
        if found is None:
            session.add(LtiPassback(**row))
        else:
            found.marked_at, found.enqueued_at, found.failures, found.error = now, now, 0, None


@sa.event.listens_for(Session, "after_commit")
def _send_pending(session: Session) -> None:
    pending = session.info.pop(_PENDING, None)
    if not pending:
        return
    for user_id, slot_id in sorted(pending):  # the mark stays: the sweep queues it again
        job_queue.wake(
            PASSBACK, user_id, slot_id, what=f"the LTI score of user {user_id}, slot {slot_id}"
        )


@sa.event.listens_for(Session, "after_rollback")
def _drop_pending(session: Session) -> None:
    session.info.pop(_PENDING, None)
