"""Engines: uploads graded by the queue's workers (grader/jobs.py), their bytes and results, and
the tournaments among them."""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from grader.models.accounts import User
from grader.models.base import (
    DONE,
    FAILED,
    JSON,
    QUEUED,
    RUNNING,
    Base,
    JobColumns,
    LeaseColumns,
    utcnow,
)
from grader.models.courses import Slot

SUPERSEDED = "superseded"
SUBMISSION_STATUSES = (QUEUED, RUNNING, DONE, FAILED, SUPERSEDED)


class Blob(Base):
    """An upload's bytes, stored once under their SHA-256 (the workers read them from here, so
    a worker on another machine needs nothing but the database and the queue)."""

    __tablename__ = "blob"

    sha256: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    size: Mapped[int]
    data: Mapped[bytes] = mapped_column(sa.LargeBinary)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class Submission(JobColumns, Base):
    """An engine uploaded to an engine slot, and where its grading stands.

    The status here is the truth; a queue message is only a wake-up. A worker claims a queued
    submission by a conditional UPDATE that sets the lease (`lease_owner`, `lease_expires_at`),
    renews it while grading (`heartbeat_at`), and writes the result only while it still holds
    the lease; a lease that expires (the worker died) sends the submission back to the queue.
    """

    __tablename__ = "submission"
    __table_args__ = (
        sa.Index("ix_submission_slot_owner", "slot_id", "owner_id"),
        sa.Index("ix_submission_status", "status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)
    slot_id: Mapped[int] = mapped_column(sa.ForeignKey("slot.id", ondelete="CASCADE"))
    sha256: Mapped[str] = mapped_column(sa.String(64))
    # The bytes are the Blob of sha256; this is the name of a worker's local copy, relative to
    # its GRADER_UPLOADS_DIR (the suffix says .py or .zip).
    stored_path: Mapped[str] = mapped_column(sa.String(300))
    filename: Mapped[str] = mapped_column(sa.String(200))  # as uploaded, for people
    size: Mapped[int]
    suite: Mapped[str] = mapped_column(sa.String(100))
    priority: Mapped[int] = mapped_column(default=0)  # higher first; regrade-all is low
    score: Mapped[float | None]
    max_score: Mapped[float | None]
    tournament_opt_in: Mapped[bool] = mapped_column(default=False)
    days_late: Mapped[int] = mapped_column(default=0)
    penalty: Mapped[float] = mapped_column(default=0.0)
    slip_days: Mapped[int] = mapped_column(default=0, server_default="0")  # as Attempt's
    # What gave the score: the grader's version and the suite's (`harness.Suite.version`, a hash
    # of its tests and points); None before revision c54a7e1f2b38 recorded them (unknown).
    grader_version: Mapped[str | None] = mapped_column(sa.String(40))
    suite_version: Mapped[str | None] = mapped_column(sa.String(64))

    owner: Mapped[User] = relationship()
    slot: Mapped[Slot] = relationship()


class EngineResult(Base):
    """The one result of a submission (the unique key makes a second one impossible)."""

    __tablename__ = "engine_result"

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        sa.ForeignKey("submission.id", ondelete="CASCADE"), unique=True
    )
    worker: Mapped[str] = mapped_column(sa.String(100))
    gradescope: Mapped[JSON] = mapped_column(sa.JSON)  # results.json
    rich: Mapped[JSON] = mapped_column(sa.JSON)  # every test's measurements, every game's PDN
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class SlotVisit(Base):
    """When a person last opened an engine slot's page: the students about to upload, the
    signal that grading work is coming (`/metrics`). One row a person and slot, written at most
    once a minute."""

    __tablename__ = "slot_visit"

    user_id: Mapped[int] = mapped_column(
        sa.ForeignKey("user.id", ondelete="CASCADE"), primary_key=True
    )
    slot_id: Mapped[int] = mapped_column(
        sa.ForeignKey("slot.id", ondelete="CASCADE"), primary_key=True
    )
    seen_at: Mapped[dt.datetime] = mapped_column(default=utcnow, index=True)


class Tournament(Base):
    """A round-robin among the opted-in students' latest graded engines of a slot."""

    __tablename__ = "tournament"

    id: Mapped[int] = mapped_column(primary_key=True)
    slot_id: Mapped[int] = mapped_column(sa.ForeignKey("slot.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(sa.String(16), default=QUEUED)  # queued|running|done
    params: Mapped[JSON] = mapped_column(sa.JSON)  # ballots, time per move, max plies
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[dt.datetime | None]

    slot: Mapped[Slot] = relationship()
    games: Mapped[list[TournamentGame]] = relationship(
        back_populates="tournament", order_by="TournamentGame.id"
    )


class TournamentGame(LeaseColumns, Base):
    """One game of a tournament: a queue job of its own, leased, renewed and swept like a
    submission (services/leases/)."""

    __tablename__ = "tournament_game"

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(
        sa.ForeignKey("tournament.id", ondelete="CASCADE"), index=True
    )
    black_id: Mapped[int] = mapped_column(sa.ForeignKey("submission.id", ondelete="CASCADE"))
    white_id: Mapped[int] = mapped_column(sa.ForeignKey("submission.id", ondelete="CASCADE"))
    ballot: Mapped[str] = mapped_column(sa.String(20))
    opening: Mapped[list[Any]] = mapped_column(sa.JSON)
    result: Mapped[str | None] = mapped_column(sa.String(8))  # 1-0, 0-1, 1/2-1/2, *
    termination: Mapped[str | None] = mapped_column(sa.String(200))
    pdn: Mapped[str | None] = mapped_column(sa.Text)

    tournament: Mapped[Tournament] = relationship(back_populates="games")
    black: Mapped[Submission] = relationship(foreign_keys=[black_id])
    white: Mapped[Submission] = relationship(foreign_keys=[white_id])
