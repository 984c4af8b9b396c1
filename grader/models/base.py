"""What every table shares: the declarative base, its naming convention, stored time, and a
leased job's statuses."""

from __future__ import annotations

import datetime as dt
import functools
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase

JSON = dict[str, Any]
MAX_ID = 2**63 - 1  # the largest id the database stores (a 64-bit signed integer)

# A leased job's status (Submission, TournamentGame, IntegrityCheck, ExamPrint: services/leases/).
QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"


@functools.cache
def grader_version() -> str:
    """The grader's version, stored with every score it gives (an attempt's, an upload's), so a
    term's regrade knows which scores an upgraded grader may change ("unknown" in a checkout
    that is not installed)."""
    try:
        return version("grader")
    except PackageNotFoundError:
        return "unknown"


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def iso_utc(moment: dt.datetime | None) -> str | None:
    """A stored time (naive, UTC) as the API writes it: ISO 8601 with a Z."""
    return moment.isoformat() + "Z" if moment is not None else None


class Base(DeclarativeBase):
    # Named constraints: Alembic's batch mode on SQLite needs names to alter them later.
    metadata = sa.MetaData(
        naming_convention={
            "ix": "ix_%(column_0_label)s",
            "uq": "uq_%(table_name)s_%(column_0_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )
