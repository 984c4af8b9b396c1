"""Who opened an engine slot's page lately: the students about to upload, read by the signal to
scale the workers (`services/metrics.py`). A visit is written at most once a minute a person and
slot, so a page reloaded in a loop costs reads, not writes."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from grader.extensions import db
from grader.models import Slot, SlotVisit, User, utcnow
from grader.services.transactions import writing

REWRITE_AFTER = dt.timedelta(minutes=1)


def note(user: User, slot: Slot) -> None:
    """``user`` opened ``slot``'s page now."""
    now = utcnow()
    seen = db.session.get(SlotVisit, (user.id, slot.id))
    if seen is not None and now - seen.seen_at < REWRITE_AFTER:
        return
    with writing() as session:
        row = session.get(SlotVisit, (user.id, slot.id))
        if row is None:
            session.add(SlotVisit(user_id=user.id, slot_id=slot.id, seen_at=now))
        else:
            row.seen_at = now


def recent_visitors(since: dt.datetime) -> int:
    """The people who opened any engine slot's page since ``since``."""
    query = sa.select(sa.func.count(sa.distinct(SlotVisit.user_id))).where(
        SlotVisit.seen_at >= since
    )
    return int(db.session.scalar(query) or 0)
