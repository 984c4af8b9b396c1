"""The course's audit log: every change staff make to what counts (an extension, the slip days'
budget, a regrade) writes one entry, with each score it changed."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from grader.models import Course, Regrade, Slot


def record(
    session: Session,
    course: Course,
    actor_id: int | None,
    what: str,
    changes: dict[str, Any],
    details: list[dict[str, Any]],
    slot: Slot | None,
) -> None:
    """One entry: who changed what (`what`, `changes`: {"field": [before, after]}) and each
    score it changed (`details`), inside the caller's transaction."""
    session.add(
        Regrade(
            course_id=course.id,
            slot_id=slot.id if slot is not None else None,
            actor_id=actor_id,
            what=what[:300],
            changes=changes,
            attempts_total=len(details),
            attempts_changed=len(details),
            details=details,
        )
    )
