"""What an operator, or an autoscaler, reads to run the workers (`/metrics`, written in
Prometheus's text format by the web layer): each class of work's queue, the workers alive and
their grading slots, the grading time of each suite, the students on an engine slot's page, and
how many workers the deadline needs now (`grader_desired_workers`, docs/deployment.md).

The queue's truth is the leased jobs' rows (a queue message is only a wake-up), so every figure
here is read from the database and is the same whichever web process answers.

`desired_workers` is the rule of PrairieLearn's grader autoscaling: the greatest of several
estimates of the grading slots needed, each divided by the slots a worker has:

- queue: every interactive job not yet graded (queued or running) on a slot of its own;
- current: the jobs running now, with headroom (`GRADER_SCALE_HEADROOM`);
- held: the most jobs not yet graded at any moment of the last `GRADER_SCALE_HOLD_MINUTES`, so
  the figure stays up while a rush drains and does not flap;
- pages: the students who opened an engine slot's page in the last 10 minutes, each taken to
  upload `GRADER_SCALE_UPLOADS_PER_VISITOR` times in those 10 minutes, each upload taking the
  mean grading time measured so far (Little's law: the jobs in service are the arrival rate times
  the time each takes), with headroom: it rises when the students arrive, before their uploads
  reach the queue.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from flask import current_app

from grader.extensions import INTERACTIVE, JOB_CLASS, WORK_CLASSES, db
from grader.models import DONE, QUEUED, RUNNING, Submission, TournamentGame, utcnow
from grader.services import integrity, liveness
from grader.services.engines import leases, visits
from grader.services.paper import printing

#: The leased jobs' kinds, each counted in its class of work's queue.
JOB_KINDS = (leases.SUBMISSION, leases.GAME, printing.PRINT, integrity.CHECK)

#: How long ago an engine slot's page was opened for its visitor to count as about to upload.
VISITOR_MINUTES = 10
#: An upload's grading time assumed before any is measured (the quick suite's order of size).
UNMEASURED_SECONDS = 30.0


@dataclass(frozen=True)
class Queue:
    work_class: str
    queued: int
    running: int
    oldest_seconds: float  # the oldest queued job's wait so far (0: none queued)


@dataclass(frozen=True)
class Estimates:
    """The workers each estimate asks for (fractions), and the desired count."""

    queue: float
    current: float
    held: float
    pages: float
    desired: int


@dataclass(frozen=True)
class Snapshot:
    queues: list[Queue]
    workers: int
    slots: int
    visitors: int
    grading_seconds: dict[str, list[float]]  # per suite, every graded upload's time
    estimates: Estimates


def desired_workers(
    *,
    ungraded: int,
    running: int,
    held_ungraded: int,
    visitors: int,
    upload_seconds: float,
    slots_per_worker: float,
    headroom: float,
    uploads_per_visitor: float,
) -> Estimates:
    """The workers needed by each estimate (module docstring), and their greatest, rounded up:
    at least 1, so uploads are never left without a worker."""
    per = max(slots_per_worker, 1.0)
    queue = ungraded / per
    current = running * headroom / per
    held = held_ungraded / per
    arriving = visitors * uploads_per_visitor / (VISITOR_MINUTES * 60)  # uploads a second
    pages = arriving * upload_seconds * headroom / per
    desired = max(1, math.ceil(round(max(queue, current, held, pages), 9)))
    return Estimates(queue, current, held, pages, desired)


def peak_overlap(spans: list[tuple[dt.datetime, dt.datetime | None]], now: dt.datetime) -> int:
    """The most spans (start, end; None: not ended) open at one moment, up to ``now``."""
    events = sorted(
        [(start, 1) for start, _ in spans] + [(end or now, -1) for _, end in spans],
        key=lambda event: (event[0], event[1]),  # an end before a start at the same instant
    )
    peak = count = 0
    for _, step in events:
        count += step
        peak = max(peak, count)
    return peak


def _queues(now: dt.datetime) -> list[Queue]:
    totals: dict[str, list[Any]] = {name: [0, 0, None] for name in WORK_CLASSES}
    for kind in JOB_KINDS:
        model: Any = kind.model
        since = _queued_since(model)
        queued, running, oldest = db.session.execute(
            sa.select(
                sa.func.count().filter(model.status == QUEUED),
                sa.func.count().filter(model.status == RUNNING),
                sa.func.min(since).filter(model.status == QUEUED),
            )
        ).one()
        total = totals[JOB_CLASS[kind.job]]
        total[0] += queued
        total[1] += running
        if oldest is not None and (total[2] is None or oldest < total[2]):
            total[2] = oldest
    return [
        Queue(name, queued, running, (now - oldest).total_seconds() if oldest else 0.0)
        for name, (queued, running, oldest) in totals.items()
    ]


def _queued_since(model: Any) -> Any:
    """When a job of ``model`` joined the queue: a game is made with its tournament and woken
    when it may start, so it counts from its wake-up."""
    if model is TournamentGame:
        return sa.func.coalesce(TournamentGame.enqueued_at, TournamentGame.started_at)
    return model.created_at


def _held_ungraded(now: dt.datetime, hold: dt.timedelta) -> int:
    """The most interactive jobs not yet graded at once over the last ``hold``."""
    spans: list[tuple[dt.datetime, dt.datetime | None]] = []
    for model in (Submission, TournamentGame):
        since = _queued_since(model)
        rows = db.session.execute(
            sa.select(since, model.finished_at).where(
                since.is_not(None),
                since <= now,
                sa.or_(model.finished_at.is_(None), model.finished_at >= now - hold),
                model.status.in_((QUEUED, RUNNING, DONE)),
            )
        ).all()
        spans += [(max(start, now - hold), end) for start, end in rows]
    return peak_overlap(spans, now)


def _grading_seconds() -> dict[str, list[float]]:
    rows = db.session.execute(
        sa.select(Submission.suite, Submission.started_at, Submission.finished_at).where(
            Submission.status == DONE,
            Submission.started_at.is_not(None),
            Submission.finished_at.is_not(None),
        )
    ).all()
    grading: dict[str, list[float]] = {}
    for suite, started, finished in rows:
        if started is not None and finished is not None:  # as the query asks
            grading.setdefault(suite, []).append(max((finished - started).total_seconds(), 0.0))
    return grading


def snapshot(now: dt.datetime | None = None) -> Snapshot:
    """Every figure of `/metrics`, read now."""
    now = now or utcnow()
    config = current_app.config
    queues = _queues(now)
    workers = liveness.live()
    slots = sum(worker.slots for worker in workers)
    visitors = visits.recent_visitors(now - dt.timedelta(minutes=VISITOR_MINUTES))
    interactive = next(queue for queue in queues if queue.work_class == INTERACTIVE)
    grading_workers = [worker.slots for worker in workers if worker.slots > 0]
    grading = _grading_seconds()
    measured = [seconds for times in grading.values() for seconds in times]
    estimates = desired_workers(
        ungraded=interactive.queued + interactive.running,
        running=interactive.running,
        held_ungraded=_held_ungraded(
            now, dt.timedelta(minutes=float(config["GRADER_SCALE_HOLD_MINUTES"]))
        ),
        visitors=visitors,
        upload_seconds=sum(measured) / len(measured) if measured else UNMEASURED_SECONDS,
        slots_per_worker=sum(grading_workers) / len(grading_workers) if grading_workers else 1.0,
        headroom=float(config["GRADER_SCALE_HEADROOM"]),
        uploads_per_visitor=float(config["GRADER_SCALE_UPLOADS_PER_VISITOR"]),
    )
    return Snapshot(queues, len(workers), slots, visitors, grading, estimates)
