"""A term's data: backups, and a person's erasure with its audit (services/data/)."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from grader.models.accounts import User
from grader.models.base import Base, utcnow


class BackupRun(Base):
    """One backup, taken by `grader db backup` or by a worker's schedule (GRADER_BACKUP_HOURS):
    when, where, how large, and whether it succeeded. A scheduled run holds its `period` (the
    hours since the epoch, divided by GRADER_BACKUP_HOURS), unique, so two workers' sweeps
    never take the same period's backup twice."""

    __tablename__ = "backup_run"

    id: Mapped[int] = mapped_column(primary_key=True)
    period: Mapped[int | None] = mapped_column(sa.BigInteger, unique=True)
    started_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[dt.datetime | None]
    status: Mapped[str] = mapped_column(sa.String(16))  # running, ok, failed
    path: Mapped[str | None] = mapped_column(sa.Text)
    size: Mapped[int | None] = mapped_column(sa.BigInteger)
    error: Mapped[str | None] = mapped_column(sa.Text)


ANONYMIZE, DELETE = "anonymize", "delete"  # GRADER_ERASURE_ATTEMPTS: what erasure does to attempts


class AccountErasure(Base):
    """The audit of an erasure: who erased which account id, when, and what became of its
    attempts. It holds nothing of the erased data (no address, no name)."""

    __tablename__ = "account_erasure"

    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(index=True)  # the erased User's id (the row stays)
    # The administrator who erased it; None: the server's operator (`grader user erase`).
    erased_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("user.id", ondelete="SET NULL"))
    erased_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    attempts: Mapped[str] = mapped_column(sa.String(16))  # ANONYMIZE or DELETE

    erased_by: Mapped[User | None] = relationship(foreign_keys=[erased_by_id])


class ErasureRequest(Base):
    """A person's request, from their account page, that the administrators erase the account."""

    __tablename__ = "erasure_request"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    user: Mapped[User] = relationship()
