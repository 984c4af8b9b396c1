"""The lease every leased queue job runs under: engine submissions, tournament games, exam
prints, integrity checks and term regrades. Claim, heartbeat, finish, give back after an internal error, the
sweep, and the record of a wake-up sent; `runner` runs a job kind's body under it. The jobs whose
progress names its phase (uploads graded, integrity checks, term regrades) go through the
`*_phased` forms, which write the phases the pages show at each turn of the lease.

    queued --claim--> running --finish--> done (or what the job says)
       ^                 |  \\--internal error, attempts left--> queued
       |                 |   \\-internal error, none left------> failed
       +--lease expired--+  (swept; failed once max_attempts claims have died)

A job's row is the truth and a queue message only wakes a worker. A worker claims a row by one
conditional UPDATE (queued -> running with its name and an expiry), renews the expiry while it
works (`heartbeat`, every quarter of the lease), and every later write is conditional on still
holding the lease (`status = 'running' AND lease_owner = me`), so a worker presumed dead that
comes back can never overwrite anything.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.orm import Session

from grader.models import (
    DONE,
    FAILED,
    QUEUED,
    RUNNING,
    ExamPrint,
    IntegrityCheck,
    Submission,
    TermRegrade,
    TournamentGame,
    utcnow,
)
from grader.services.transactions import rows_changed, writing

log = logging.getLogger(__name__)

Leased = (
    type[Submission]
    | type[TournamentGame]
    | type[ExamPrint]
    | type[IntegrityCheck]
    | type[TermRegrade]
)
_JOBS_NAMED = {
    "submission": "submissions",
    "tournament_game": "games",
    "exam_print": "exam prints",
    "integrity_check": "checks",
    "term_regrade": "term regrades",
}


def lease_seconds() -> float:
    return float(current_app.config["GRADER_LEASE_SECONDS"])


def _expiry(now: dt.datetime) -> dt.datetime:
    return now + dt.timedelta(seconds=lease_seconds())


def mine(model: Leased, job_id: int, worker: str) -> sa.ColumnElement[bool]:
    """The row while this worker holds its lease."""
    return sa.and_(model.id == job_id, model.status == RUNNING, model.lease_owner == worker)


def claim(session: Session, model: Leased, job_id: int, worker: str, **values: Any) -> bool:
    """queued -> running with this worker's lease, in one UPDATE (in the caller's transaction);
    False if another worker has it or it is no longer queued."""
    now = utcnow()
    done = rows_changed(
        session,
        sa.update(model)
        .where(model.id == job_id, model.status == QUEUED)
        .values(
            status=RUNNING,
            lease_owner=worker,
            heartbeat_at=now,
            started_at=now,
            lease_expires_at=_expiry(now),
            attempts=model.attempts + 1,
            **values,
        ),
    )
    return done == 1


def heartbeat(model: Leased, job_id: int, worker: str, **values: Any) -> bool:
    """Renew the lease (and write `values`, the progress); False once the lease is lost."""
    now = utcnow()
    with writing() as session:
        done = rows_changed(
            session,
            sa.update(model)
            .where(mine(model, job_id, worker))
            .values(heartbeat_at=now, lease_expires_at=_expiry(now), **values),
        )
        return done == 1


def finish(
    session: Session, model: Leased, job_id: int, worker: str, status: str, **values: Any
) -> bool:
    """running -> `status`, the lease released, in the caller's transaction; False when this
    worker no longer holds the lease (nothing is written then)."""
    done = rows_changed(
        session,
        sa.update(model)
        .where(mine(model, job_id, worker))
        .values(status=status, lease_owner=None, lease_expires_at=None, **values),
    )
    return done == 1


def _progress(model: Leased, keep: Sequence[str]) -> Any:
    """The model's progress column where progress is kept (the jobs whose progress names its
    phase; a game has none), else a null."""
    return getattr(model, "progress") if keep else sa.null()  # noqa: B009


def kept_progress(progress: Any, keep: Sequence[str], new: dict[str, Any]) -> dict[str, Any]:
    """`new` progress with the `keep` keys of the old `progress` (what an earlier run gave,
    for the next claim to go on from)."""
    old = progress if isinstance(progress, dict) else {}
    return {**{key: old[key] for key in keep if key in old}, **new}


def give_back(
    model: Leased,
    job_id: int,
    worker: str,
    max_attempts: int,
    values: dict[str, Any],
    failed_values: dict[str, Any],
    keep: Sequence[str] = (),
) -> str | None:
    """After an internal error of the grader: back to the queue while claims are left, else
    failed. Requeued, its progress keeps the `keep` keys of the progress it had. The new
    status, or None when the lease was already lost."""
    with writing() as session:
        row = session.execute(
            sa.select(model.attempts, _progress(model, keep)).where(mine(model, job_id, worker))
        ).one_or_none()
        if row is None:
            return None
        status = FAILED if row.attempts >= max_attempts else QUEUED
        extra = failed_values if status == FAILED else values
        if status == QUEUED and keep and "progress" in extra:
            extra = {**extra, "progress": kept_progress(row[1], keep, extra["progress"])}
        finish(session, model, job_id, worker, status, **extra)
    return status


def sweep(
    model: Leased,
    max_attempts: int,
    *,
    failed_values: dict[str, Any],
    requeued_values: dict[str, Any],
    now: dt.datetime | None = None,
    queued: sa.ColumnElement[bool] | None = None,
    keep: Sequence[str] = (),
) -> list[int]:
    """Expired leases back to the queue (failed once `max_attempts` claims have died), each
    requeued one's progress keeping the `keep` keys of the progress it had, then the queued
    jobs with no wake-up message for GRADER_REWAKE_SECONDS (only those matching `queued` if
    given): their ids, each marked as sent."""
    now = now or utcnow()
    rewake = dt.timedelta(seconds=float(current_app.config["GRADER_REWAKE_SECONDS"]))
    with writing() as session:
        expired = sa.and_(model.status == RUNNING, model.lease_expires_at < now)
        carried = (
            session.execute(
                sa.select(model.id, _progress(model, keep)).where(
                    expired, model.attempts < max_attempts
                )
            ).all()
            if keep and "progress" in requeued_values
            else []
        )
        session.execute(
            sa.update(model)
            .where(expired, model.attempts >= max_attempts)
            .values(status=FAILED, lease_owner=None, lease_expires_at=None, **failed_values)
        )
        requeued = rows_changed(
            session,
            sa.update(model)
            .where(expired)
            .values(
                status=QUEUED,
                lease_owner=None,
                lease_expires_at=None,
                enqueued_at=None,
                **requeued_values,
            ),
        )
        for job_id, progress in carried:  # in this transaction: no claim sees them between
            session.execute(
                sa.update(model)
                .where(model.id == job_id, model.status == QUEUED)  # requeued (no heartbeat came)
                .values(progress=kept_progress(progress, keep, requeued_values["progress"]))
            )
        if requeued:
            log.warning(
                "requeued %d %s whose worker stopped",
                requeued,
                _JOBS_NAMED[model.__tablename__],
            )
        stale = list(
            session.scalars(
                sa.select(model.id).where(
                    model.status == QUEUED,
                    queued if queued is not None else sa.true(),
                    sa.or_(model.enqueued_at.is_(None), model.enqueued_at < now - rewake),
                )
            )
        )
        if stale:
            session.execute(sa.update(model).where(model.id.in_(stale)).values(enqueued_at=now))
    return stale


def wake_due_in(seconds: float, now: dt.datetime) -> dt.datetime:
    """The `enqueued_at` that has the sweep send a queued job's wake-up `seconds` after `now`
    instead of GRADER_REWAKE_SECONDS after (the sweep sends again a message older than that):
    the time a message would have been sent for the sweep to send the next one then (after
    `now` when `seconds` is longer than the sweep's wait)."""
    rewake = float(current_app.config["GRADER_REWAKE_SECONDS"])
    return now - dt.timedelta(seconds=rewake - seconds)


def woken(model: Leased, *job_ids: int) -> None:
    """Record that wake-up messages were sent (the sweep resends one after
    GRADER_REWAKE_SECONDS)."""
    if job_ids:
        with writing() as session:
            session.execute(
                sa.update(model).where(model.id.in_(job_ids)).values(enqueued_at=utcnow())
            )


# -- the jobs whose progress names its phase: uploads graded, integrity checks, term regrades --

STARTING, RETRYING, DONE_PHASE, FAILED_PHASE = "starting", "retrying", "done", "failed"
REQUEUED = "requeued: the worker stopped"


def claim_phased(session: Session, model: Leased, job_id: int, worker: str) -> bool:
    """`claim`, the progress saying the job is starting."""
    return claim(session, model, job_id, worker, progress={"phase": STARTING})


def finish_phased(
    session: Session,
    model: Leased,
    job_id: int,
    worker: str,
    now: dt.datetime | None = None,
    **values: Any,
) -> bool:
    """`finish` as done: no error, the progress done, finished `now`, and the result's
    `values` (a "progress" among them keeps what it says beside the done phase)."""
    progress = {**values.pop("progress", {}), "phase": DONE_PHASE}
    done = {"error": None, "progress": progress, "finished_at": now or utcnow()}
    return finish(session, model, job_id, worker, DONE, **done, **values)


def give_back_phased(
    model: Leased,
    job_id: int,
    worker: str,
    max_attempts: int,
    error: str,
    keep: Sequence[str] = (),
) -> str | None:
    """`give_back` with the grader's `error`: retrying while claims are left (the progress's
    `keep` keys kept), else failed."""
    return give_back(
        model,
        job_id,
        worker,
        max_attempts,
        {"error": error, "progress": {"phase": RETRYING}},
        {"error": error, "progress": {"phase": FAILED_PHASE}, "finished_at": utcnow()},
        keep,
    )


def sweep_phased(
    model: Leased,
    max_attempts: int,
    stopped: str,
    now: dt.datetime | None = None,
    keep: Sequence[str] = (),
) -> list[int]:
    """`sweep`: a job whose worker died requeued (its progress's `keep` keys kept), and failed
    with the words `stopped` once `max_attempts` claims have died."""
    now = now or utcnow()
    return sweep(
        model,
        max_attempts,
        now=now,
        failed_values={"finished_at": now, "progress": {"phase": FAILED_PHASE}, "error": stopped},
        requeued_values={"progress": {"phase": REQUEUED}},
        keep=keep,
    )
