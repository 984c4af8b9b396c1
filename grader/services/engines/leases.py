"""The lease every queue job is run under, one implementation for engine submissions and
tournament games: claim, heartbeat, finish, give back after an internal error, and the sweep;
then the workers' side of each job on it (grading a submission, playing a tournament game):
what a claim hands the worker, and the result written once under the lease.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import (
    DONE,
    FAILED,
    QUEUED,
    RUNNING,
    EngineResult,
    ExamPrint,
    IntegrityCheck,
    Submission,
    Tournament,
    TournamentGame,
    utcnow,
)
from grader.services import outbox
from grader.services.engines import blobs
from grader.services.transactions import rows_changed, writing

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3  # claims of one submission before it fails (internal errors, dead workers)
MAX_GAME_ATTEMPTS = 3  # claims of one tournament game before it fails

Leased = type[Submission] | type[TournamentGame] | type[ExamPrint] | type[IntegrityCheck]
_JOBS_NAMED = {
    "submission": "submissions",
    "tournament_game": "games",
    "exam_print": "exam prints",
    "integrity_check": "checks",
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


def give_back(
    model: Leased,
    job_id: int,
    worker: str,
    max_attempts: int,
    values: dict[str, Any],
    failed_values: dict[str, Any],
) -> str | None:
    """After an internal error of the grader: back to the queue while claims are left, else
    failed. The new status, or None when the lease was already lost."""
    with writing() as session:
        attempts = session.scalar(sa.select(model.attempts).where(mine(model, job_id, worker)))
        if attempts is None:
            return None
        status = FAILED if attempts >= max_attempts else QUEUED
        extra = failed_values if status == FAILED else values
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
) -> list[int]:
    """Expired leases back to the queue (failed once `max_attempts` claims have died), then the
    queued jobs with no wake-up message for GRADER_REWAKE_SECONDS (only those matching `queued`
    if given): their ids, each marked as sent."""
    now = now or utcnow()
    rewake = dt.timedelta(seconds=float(current_app.config["GRADER_REWAKE_SECONDS"]))
    with writing() as session:
        expired = sa.and_(model.status == RUNNING, model.lease_expires_at < now)
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


def woken(model: Leased, *job_ids: int) -> None:
    """Record that wake-up messages were sent (the sweep resends one after
    GRADER_REWAKE_SECONDS)."""
    if job_ids:
        with writing() as session:
            session.execute(
                sa.update(model).where(model.id.in_(job_ids)).values(enqueued_at=utcnow())
            )


# -- engine submissions: the job of grading one ------------------------------------------


@dataclass(frozen=True)
class SubmissionClaim:
    id: int
    sha256: str
    stored_path: str  # the worker's local copy, relative to its GRADER_UPLOADS_DIR
    suite: str
    attempts: int

    def engine_file(self) -> Path:
        """The upload on this machine (fetched from the blob store when not here yet)."""
        return blobs.local_copy(self.sha256, self.stored_path)


def claim_submission(submission_id: int, worker: str) -> SubmissionClaim | None:
    """queued -> running with this worker's lease; None if someone else has it, it was
    superseded, or it is done."""
    with writing() as session:
        if not claim(session, Submission, submission_id, worker, progress={"phase": "starting"}):
            return None
        row = session.execute(
            sa.select(
                Submission.sha256, Submission.stored_path, Submission.suite, Submission.attempts
            ).where(Submission.id == submission_id)
        ).one()
    return SubmissionClaim(submission_id, row.sha256, row.stored_path, row.suite, row.attempts)


def heartbeat_submission(
    submission_id: int, worker: str, progress: dict[str, Any] | None = None
) -> bool:
    """Renew the lease (and store the progress); False once the lease is lost."""
    values = {"progress": progress} if progress is not None else {}
    return heartbeat(Submission, submission_id, worker, **values)


def write_result(
    submission_id: int,
    worker: str,
    *,
    score: float,
    max_score: float,
    gradescope: dict[str, Any],
    rich: dict[str, Any],
) -> bool:
    """running -> done with the result, once: False when this worker no longer holds the lease
    or the result exists (a second call, a resurrected worker)."""
    now = utcnow()
    try:
        with writing() as session:
            if not finish(
                session,
                Submission,
                submission_id,
                worker,
                DONE,
                score=score,
                max_score=max_score,
                finished_at=now,
                error=None,
                progress={"phase": "done"},
            ):
                return False
            session.add(
                EngineResult(
                    submission_id=submission_id,
                    worker=worker,
                    gradescope=gradescope,
                    rich=rich,
                    created_at=now,
                )
            )
            owner_slot = session.execute(
                sa.select(Submission.owner_id, Submission.slot_id).where(
                    Submission.id == submission_id
                )
            ).one()
            outbox.passback_after_commit(session, [(owner_slot.owner_id, owner_slot.slot_id)])
    except sa.exc.IntegrityError:  # the unique key: a result already exists
        return False
    return True


def submission_error(submission_id: int, worker: str, message: str) -> str | None:
    """The grader failed (not the engine): back to the queue while attempts are left, else
    failed, never charged. The new status, or None when the lease was already lost."""
    attempts = db.session.scalar(
        sa.select(Submission.attempts).where(Submission.id == submission_id)
    )
    error = (
        f"internal error of the grader (attempt {attempts} of {MAX_ATTEMPTS}, "
        f"not charged to you): {message[:2000]}"
    )
    return give_back(
        Submission,
        submission_id,
        worker,
        MAX_ATTEMPTS,
        {"error": error, "progress": {"phase": "retrying"}},
        {"error": error, "progress": {"phase": "failed"}, "finished_at": utcnow()},
    )


def sweep_submissions(now: dt.datetime | None = None) -> list[tuple[int, int]]:
    """Expired leases back to the queue (or failed past MAX_ATTEMPTS), then the queued
    submissions with no recent wake-up message: (id, priority) to wake, each marked as sent."""
    now = now or utcnow()
    stale = sweep(
        Submission,
        MAX_ATTEMPTS,
        now=now,
        failed_values={
            "finished_at": now,
            "progress": {"phase": "failed"},
            "error": f"the grading worker stopped {MAX_ATTEMPTS} times on this "
            "engine; the staff will look at it (not charged to you)",
        },
        requeued_values={"progress": {"phase": "requeued: the worker stopped"}},
    )
    if not stale:
        return []
    priority = {
        row.id: row.priority
        for row in db.session.execute(
            sa.select(Submission.id, Submission.priority).where(Submission.id.in_(stale))
        )
    }
    db.session.commit()
    return [(i, priority[i]) for i in stale]


# -- tournament games: the job of playing one ----------------------------------------------


@dataclass(frozen=True)
class GameClaim:
    """A claimed game: what the worker needs to play it."""

    id: int
    tournament_id: int
    engines: tuple[tuple[str, str], tuple[str, str]]  # (sha256, stored path) of black, white
    names: tuple[str, str]
    params: dict[str, Any]
    opening: list[str]
    attempts: int

    def engine_files(self) -> tuple[Path, Path]:
        black, white = (blobs.local_copy(sha, path) for sha, path in self.engines)
        return black, white


def claim_game(game_id: int, worker: str) -> GameClaim | None:
    """queued -> running under this worker's lease (services/engines/leases.py); None if taken."""
    with writing() as session:
        if not claim(session, TournamentGame, game_id, worker):
            return None
        game = session.get_one(TournamentGame, game_id)
        tournament = session.get_one(Tournament, game.tournament_id)
        if tournament.status == QUEUED:
            tournament.status = RUNNING
        black, white = game.black, game.white
        return GameClaim(
            game_id,
            game.tournament_id,
            ((black.sha256, black.stored_path), (white.sha256, white.stored_path)),
            (black.owner.email, white.owner.email),
            dict(tournament.params),
            list(game.opening),
            game.attempts,
        )


def heartbeat_game(game_id: int, worker: str) -> bool:
    return heartbeat(TournamentGame, game_id, worker)


def _close_if_over(session: Session, tournament_id: int) -> None:
    left = session.scalar(
        sa.select(sa.func.count(TournamentGame.id)).where(
            TournamentGame.tournament_id == tournament_id,
            TournamentGame.status.in_([QUEUED, RUNNING]),
        )
    )
    if not left:
        session.execute(
            sa.update(Tournament)
            .where(Tournament.id == tournament_id)
            .values(status=DONE, finished_at=utcnow())
        )


def write_game(game_id: int, worker: str, *, result: str, termination: str, pdn: str) -> bool:
    """running -> done with the game, once, while this worker holds the lease."""
    with writing() as session:
        written = finish(
            session,
            TournamentGame,
            game_id,
            worker,
            DONE,
            result=result,
            termination=termination[:200],
            pdn=pdn,
            finished_at=utcnow(),
        )
        if written:
            _close_if_over(session, session.get_one(TournamentGame, game_id).tournament_id)
    return written


def game_error(game_id: int, worker: str, message: str) -> str | None:
    """The grader failed: the game goes back to the queue while claims are left, else failed."""
    termination = f"internal error: {message}"[:200]
    status = give_back(
        TournamentGame,
        game_id,
        worker,
        MAX_GAME_ATTEMPTS,
        {"termination": termination},
        {"termination": termination, "finished_at": utcnow()},
    )
    if status == FAILED:
        with writing() as session:
            _close_if_over(session, session.get_one(TournamentGame, game_id).tournament_id)
    return status


def sweep_games(now: dt.datetime | None = None) -> list[int]:
    """Games whose worker died back to the queue (failed after MAX_GAME_ATTEMPTS); queued games
    with no recent wake-up message (ids to wake)."""
    now = now or utcnow()
    stale = sweep(
        TournamentGame,
        MAX_GAME_ATTEMPTS,
        now=now,
        failed_values={"finished_at": now, "termination": "the worker stopped on every attempt"},
        requeued_values={},
    )
    with writing() as session:  # a tournament whose last game the sweep failed is over
        left = sa.select(TournamentGame.id).where(
            TournamentGame.tournament_id == Tournament.id,
            TournamentGame.status.in_([QUEUED, RUNNING]),
        )
        session.execute(
            sa.update(Tournament)
            .where(Tournament.status == RUNNING, ~left.exists())
            .values(status=DONE, finished_at=now)
        )
    return stale
