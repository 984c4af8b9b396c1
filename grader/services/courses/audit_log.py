"""The course's audit log: every change staff make to what counts (a regrade, an extension, the
slip days' budget) writes one entry (`AuditEntry`), with each score it changed; the course's
staff read it."""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import AuditEntry, User
from grader.services.courses.staff import staff


def record(
    session: Session,
    course_id: int,
    actor_id: int | None,
    what: str,
    changes: dict[str, Any],
    details: list[dict[str, Any]],
    slot_id: int | None,
    *,
    allow_lower: bool = False,
    attempts_total: int | None = None,
    attempts_changed: int | None = None,
    created_at: dt.datetime | None = None,
) -> AuditEntry:
    """One entry, inside the caller's transaction: who changed what (`what`, `changes`:
    {"field": [before, after]}), each score it changed or kept (`details`), and how many of the
    attempts it looked at changed (by default, all of those in `details`)."""
    entry = AuditEntry(
        course_id=course_id,
        slot_id=slot_id,
        actor_id=actor_id,
        what=what[:300],
        changes=changes,
        allow_lower=allow_lower,
        attempts_total=len(details) if attempts_total is None else attempts_total,
        attempts_changed=len(details) if attempts_changed is None else attempts_changed,
        details=details,
    )
    if created_at is not None:
        entry.created_at = created_at
    session.add(entry)
    return entry


def entries(user: User, course_id: int, limit: int = 200) -> list[AuditEntry]:
    """The course's audit log, newest first (instructors and TAs may read it)."""
    staff(user, course_id)
    return list(
        db.session.scalars(
            sa.select(AuditEntry)
            .where(AuditEntry.course_id == course_id)
            .options(sa.orm.joinedload(AuditEntry.actor))
            .order_by(AuditEntry.id.desc())
            .limit(limit)
        )
    )


def people(found: list[AuditEntry]) -> dict[int, str]:
    """The e-mail of each student the entries' details name, by account id."""
    user_ids = {d["user_id"] for entry in found for d in entry.details}
    if not user_ids:
        return {}
    return dict(
        db.session.execute(sa.select(User.id, User.email).where(User.id.in_(user_ids))).all()
    )
