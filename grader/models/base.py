"""What every table shares: the declarative base, its naming convention, stored time, and a
leased job's statuses and columns."""

from __future__ import annotations

import datetime as dt
import functools
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

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


class LeaseColumns:
    """The columns of a row that is a queue job run under a lease (services/leases/): where it
    stands, the claims by a worker (the internal errors and the workers that died), the worker
    holding the lease and until when, its last renewal, its last wake-up message sent, and when
    it started and finished. TournamentGame has these; every other leased job has `JobColumns`.
    """

    status: Mapped[str] = mapped_column(sa.String(16), default=QUEUED)
    attempts: Mapped[int] = mapped_column(default=0)
    lease_owner: Mapped[str | None] = mapped_column(sa.String(100))
    lease_expires_at: Mapped[dt.datetime | None]
    heartbeat_at: Mapped[dt.datetime | None]
    enqueued_at: Mapped[dt.datetime | None]
    started_at: Mapped[dt.datetime | None]
    finished_at: Mapped[dt.datetime | None]


class JobColumns(LeaseColumns):
    """A leased job's columns (Submission, ExamPrint, IntegrityCheck, TermRegrade): the lease's,
    the progress the page polls, why it failed (the grader's error, never the student's), and
    when it was asked for."""

    progress: Mapped[JSON | None] = mapped_column(sa.JSON(none_as_null=True))
    error: Mapped[str | None] = mapped_column(sa.Text)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
