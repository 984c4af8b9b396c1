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
    # Its grading slots: the engine uploads and games it grades at once (its interactive
    # consumer's workers; 0 for a worker of bulk work only).
    slots: Mapped[int] = mapped_column(default=1, server_default="1")
