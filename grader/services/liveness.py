"""Workers' signs of life: each `grader worker` writes its row every sweep; /healthz counts the
live ones and `grader worker --check` (the container's healthcheck) asks for its own host's."""

from __future__ import annotations

import datetime as dt
import os
import socket

import sqlalchemy as sa
from flask import current_app

from grader.extensions import db
from grader.models import WorkerBeat, utcnow
from grader.services.transactions import writing


def this_worker() -> tuple[str, str]:
    """(name, host) of the `grader worker` this process belongs to."""
    host = socket.gethostname()[:60]
    return f"{host}:{os.getpid()}", host


def beat(name: str, host: str, slots: int = 1) -> None:
    """The worker ``name`` is alive, grading ``slots`` jobs at once."""
    now = utcnow()
    with writing() as session:
        row = session.get(WorkerBeat, name)
        if row is None:
            session.add(WorkerBeat(name=name, host=host, started_at=now, seen_at=now, slots=slots))
        else:
            row.seen_at = now
            row.slots = slots


def stale_after() -> dt.timedelta:
    """A worker not seen for three sweeps (at least 30 s) is taken for dead."""
    return dt.timedelta(seconds=max(30.0, 3 * float(current_app.config["GRADER_SWEEP_SECONDS"])))


def live(host: str | None = None) -> list[WorkerBeat]:
    """The workers seen lately (of one host if given), most recent first."""
    since = utcnow() - stale_after()
    query = sa.select(WorkerBeat).where(WorkerBeat.seen_at >= since)
    if host is not None:
        query = query.where(WorkerBeat.host == host)
    return list(db.session.scalars(query.order_by(WorkerBeat.seen_at.desc())))


def forget_old(days: int = 7) -> None:
    """Rows of workers gone for a week (containers come and go)."""
    with writing() as session:
        session.execute(
            sa.delete(WorkerBeat).where(WorkerBeat.seen_at < utcnow() - dt.timedelta(days=days))
        )
