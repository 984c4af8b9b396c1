"""The queue's workers' signs of life. Apart from the domains: every worker beats, whatever
kinds of job (engines, prints, integrity checks, passbacks) it serves."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from grader.models.base import Base, utcnow


class WorkerBeat(Base):
    """The last sign of life of each `grader worker` (its sweep writes it), for /healthz and
    `grader worker --check`."""

    __tablename__ = "worker_beat"

    name: Mapped[str] = mapped_column(sa.String(100), primary_key=True)  # host:pid
    host: Mapped[str] = mapped_column(sa.String(100), index=True)
    started_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    seen_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
