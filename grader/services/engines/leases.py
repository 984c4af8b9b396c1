"""The engines' two leased jobs, on the lease of services/leases: grading a submission and
playing a tournament game. For each, what a claim hands the worker, the result written once
under the lease, the give-back after an error of the grader, the sweep's values, and the job
kind (`SUBMISSION`, `GAME`) that services/leases/runner.py runs.
"""

# Whole: the two engine jobs' lease bodies mirror each other, read side by side.

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.orm import Session

from grader.extensions import GAME as GAME_JOB
from grader.extensions import GRADE, db
from grader.models import (
    DONE,
    FAILED,
    QUEUED,
    RUNNING,
    EngineResult,
    Submission,
    Tournament,
    TournamentGame,
    grader_version,
    utcnow,
)
from grader.services import outbox
from grader.services.engines import blobs
from grader.services.leases import (
    claim,
    claim_phased,
    finish,
    finish_phased,
    give_back,
    give_back_phased,
    sweep,
    sweep_phased,
    wake_due_in,
)
from grader.services.leases.runner import JobKind, Progress
from grader.services.transactions import writing

if TYPE_CHECKING:
    from grader.harness import Kept, Report
    from grader.harness.match import MatchGame
    from grader.harness.suite import Suite

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3  # claims of one submission before it fails (internal errors, dead workers)
MAX_GAME_ATTEMPTS = 3  # claims of one tournament game before it fails
GAME_PRIORITY = -5  # after uploads, before regrade-all
RETIME_PRIORITY = -10  # a deferred timing, timed again: with regrade-all, after uploads and games
# Times an upload's timing is deferred for a busy machine; the next run times it anyway (its
# reference timed beside it, run for run) and says so.
MAX_DEFERRALS = 3
DEFERRED_PHASE, RETIME_RUNNING = "timing deferred", "timing again"
# An upload's first run grades its correctness tests alone; the rest (timing, games) waits one
# step below the upload's priority, behind every upload's first run, so at a deadline's peak
# the first verdicts come first (issue 51). Phases as the page names them:
REST_PHASE, REST_RUNNING = "first verdict given; timing and games queued", "timing and games"
# What an upload's progress carries when its run, queued or running, is its last (`waiting`'s
# estimate): the rest after a first verdict, or a deferred timing. Read from these and not from
# the phase, which a stopped worker's requeue or a failed run's retry rewrites.
LAST_RUN_KEYS = ("rest", "deferred")
# What an upload's progress carries from an earlier run to the next (what that run gave, and
# the page's words for it), kept while it runs and when a stopped worker's or a failed run's
# claim is given back: the next claim goes on from it instead of grading the first run again.
CARRIED = ("rest", "deferred", "first_verdict", "first_seconds", "timing_deferred")


# -- engine submissions: the job of grading one ------------------------------------------


@dataclass(frozen=True)
class SubmissionClaim:
    id: int
    sha256: str
    stored_path: str  # the worker's local copy, relative to its GRADER_UPLOADS_DIR
    suite: str
    attempts: int
    # When this claim is a retime: the progress's "deferred" (`defer_timing`), with what the
    # run whose timing was deferred gave ("kept"); only the deferred timing tests run.
    deferred: dict[str, Any] | None = None
    # When this claim is the rest after a first verdict: the progress's "rest" (`queue_rest`),
    # with the correctness tests' results ("kept"); only the other tests run.
    rest: dict[str, Any] | None = None

    def engine_file(self) -> Path:
        """The upload on this machine (fetched from the blob store when not here yet)."""
        return blobs.local_copy(self.sha256, self.stored_path)


def claim_submission(submission_id: int, worker: str) -> SubmissionClaim | None:
    """queued -> running with this worker's lease; None if someone else has it, it was
    superseded, or it is done."""
    with writing() as session:
        waiting = session.scalar(
            sa.select(Submission.progress).where(Submission.id == submission_id)
        )
        deferred = waiting.get("deferred") if isinstance(waiting, dict) else None
        rest = waiting.get("rest") if isinstance(waiting, dict) else None
        if isinstance(deferred, dict):  # a retime: what the page said while it waited stays
            starting = {**deferred_words(deferred), "deferred": deferred, "phase": RETIME_RUNNING}
            claimed = claim(session, Submission, submission_id, worker, progress=starting)
        elif isinstance(rest, dict):  # the rest: the first verdict stays on the page
            starting = {**_rest_words(rest), "rest": rest, "phase": REST_RUNNING}
            claimed = claim(session, Submission, submission_id, worker, progress=starting)
        else:
            claimed = claim_phased(session, Submission, submission_id, worker)
        if not claimed:
            return None
        row = session.execute(
            sa.select(
                Submission.sha256, Submission.stored_path, Submission.suite, Submission.attempts
            ).where(Submission.id == submission_id)
        ).one()
    return SubmissionClaim(
        submission_id,
        row.sha256,
        row.stored_path,
        row.suite,
        row.attempts,
        deferred if isinstance(deferred, dict) else None,
        rest if isinstance(rest, dict) else None,
    )


def heartbeat_submission(
    submission_id: int, worker: str, progress: dict[str, Any] | None = None
) -> bool:
    """Renew the lease (and store the progress); False once the lease is lost."""
    return SUBMISSION.beat(submission_id, worker, progress)


def write_result(
    submission_id: int,
    worker: str,
    *,
    score: float,
    max_score: float,
    gradescope: dict[str, Any],
    rich: dict[str, Any],
    suite_version: str | None = None,
) -> bool:
    """running -> done with the result, once: False when this worker no longer holds the lease
    or the result exists (a second call, a resurrected worker)."""
    now = utcnow()
    try:
        with writing() as session:
            running = session.scalar(
                sa.select(Submission.progress).where(Submission.id == submission_id)
            )
            first_seconds = (running or {}).get("first_seconds")  # a rest: its first run's
            if not finish_phased(
                session,
                Submission,
                submission_id,
                worker,
                now,
                progress={} if first_seconds is None else {"first_seconds": first_seconds},
                score=score,
                max_score=max_score,
                grader_version=grader_version(),
                suite_version=suite_version or None,
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


def deferred_words(deferred: dict[str, Any]) -> dict[str, Any]:
    """What the page and the API show of an upload whose timing was deferred (its progress's
    "deferred" without the kept results): the words, how many times, the first verdict."""
    return {
        "first_verdict": deferred.get("first_verdict"),
        "timing_deferred": {
            "words": deferred.get("words", ""),
            "deferrals": deferred.get("deferrals", 1),
        },
    }


def defer_timing(submission_id: int, worker: str, report: Report) -> bool:
    """running -> queued at RETIME_PRIORITY, once, while this worker holds the lease: the
    machine was busy while the timing ran (`Report.deferred`). No score is written and nothing
    goes to the LMS; what the other tests gave is kept in the progress, and the upload is woken
    again (`SubmissionJob.record`) for a run that times only the deferred tests.
    Its claims start again from 0: a deferral is not a failure."""
    from grader import harness

    kept = harness.Kept.of(report)
    busy = report.deferred[0].extra.get("machine") or "the reference got less than a core"
    words = (
        f"Timing deferred: the machine was busy ({busy}); it will be timed again, and the "
        "score comes then"
    )
    deferred = {
        "words": words,
        "deferrals": kept.deferrals,
        "first_verdict": first_verdict(report.tests, kept.tests),
        "kept": kept.to_dict(),
    }
    with writing() as session:
        return finish(
            session,
            Submission,
            submission_id,
            worker,
            QUEUED,
            priority=RETIME_PRIORITY,
            attempts=0,
            # Woken by the sweep after `retime_after`, or at once (`SubmissionJob.record`).
            enqueued_at=wake_due_in(retime_after(kept.deferrals), utcnow()),
            progress={"phase": DEFERRED_PHASE, **deferred_words(deferred), "deferred": deferred},
        )


def retime_after(deferrals: int) -> float:
    """Seconds until a timing deferred `deferrals` times is woken again with no upload waiting:
    GRADER_RETIME_SECONDS, doubled at each deferral after the first, at most
    GRADER_REWAKE_SECONDS. A machine busy for a moment is timed on again soon; one busy for
    long is tried a few times more, ever later, then timed anyway (MAX_DEFERRALS)."""
    config = current_app.config
    first, most = float(config["GRADER_RETIME_SECONDS"]), float(config["GRADER_REWAKE_SECONDS"])
    return min(most, first * 2 ** max(0, deferrals - 1))


def uploads_waiting_before(priority: int) -> bool:
    """Whether an upload waits in the queue at a priority above `priority` (a worker claims it
    first)."""
    return (
        db.session.scalar(
            sa.select(Submission.id)
            .where(Submission.status == QUEUED, Submission.priority > priority)
            .limit(1)
        )
        is not None
    )


def _rest_words(rest: dict[str, Any]) -> dict[str, Any]:
    """What the progress of an upload past its first verdict shows (its "rest" without the kept
    results): the first verdict, and how long the first run took (`waiting`'s estimate)."""
    return {"first_verdict": rest.get("first_verdict"), "first_seconds": rest.get("first_seconds")}


def queue_rest(submission_id: int, worker: str, report: Report) -> int | None:
    """running -> queued one step below its priority, while this worker holds the lease: the
    first run gave the first verdict (`Report.rest`), and the rest of the suite waits behind
    every upload's first run. No score is written and nothing goes to the LMS; the first
    verdict shows on the page, and the correctness tests' results are kept in the progress for
    the run that grades the rest. The priority it waits at (to wake it with), or None when the
    lease was lost. Its claims start again from 0: the rest is not a retry."""
    from grader import harness

    kept = harness.Kept.of(report, deferral=False)
    with writing() as session:
        row = session.execute(
            sa.select(Submission.priority, Submission.suite, Submission.started_at).where(
                Submission.id == submission_id
            )
        ).one_or_none()
        if row is None:
            return None
        priority = row.priority
        rest = {
            "first_verdict": first_verdict(harness.load_suite(row.suite).tests, kept.tests),
            "first_seconds": round((utcnow() - row.started_at).total_seconds(), 3)
            if row.started_at
            else None,
            "kept": kept.to_dict(),
        }
        queued = finish(
            session,
            Submission,
            submission_id,
            worker,
            QUEUED,
            priority=priority - 1,
            attempts=0,
            enqueued_at=utcnow(),
            progress={"phase": REST_PHASE, **_rest_words(rest), "rest": rest},
        )
    return priority - 1 if queued else None


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
    return give_back_phased(Submission, submission_id, worker, MAX_ATTEMPTS, error, CARRIED)


def sweep_submissions(now: dt.datetime | None = None) -> list[tuple[int, int]]:
    """Expired leases back to the queue (or failed past MAX_ATTEMPTS), then the queued
    submissions with no recent wake-up message: (id, priority) to wake, each marked as sent."""
    stale = sweep_phased(
        Submission,
        MAX_ATTEMPTS,
        f"the grading worker stopped {MAX_ATTEMPTS} times on this "
        "engine; the staff will look at it (not charged to you)",
        now,
        CARRIED,
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
    """queued -> running under this worker's lease (services/leases/); None if taken."""
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
    return GAME.beat(game_id, worker, None)


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


def first_verdict(tests: Sequence[Any], results: Sequence[Any]) -> dict[str, Any]:
    """What the suite's leading correctness tests gave (`results`, in order), for the page and
    the API while the rest runs: their points, how many failed, and the kinds still to come."""
    from grader.harness import TEST_KINDS

    done = {result.name for result in results}
    titles = list(dict.fromkeys(TEST_KINDS[result.kind].title for result in results))
    running = list(
        dict.fromkeys(TEST_KINDS[test.kind].title for test in tests if test.name not in done)
    )
    return {
        "score": round(sum(result.score for result in results), 4),
        "max_score": round(sum(result.max_score for result in results), 4),
        "tests": len(results),
        "failed": sum(1 for result in results if result.verdict != "passed"),
        "parts": titles,
        "running": running,
    }


def run_suite(
    engine_file: Path,
    suite: Suite,
    report: Callable[[str, int, int, str], None] | None = None,
    first: Callable[[list[Any]], None] | None = None,
    defer_below: float = 0.0,
    kept: Kept | None = None,
    first_only: bool = False,
) -> Report:
    """An engine graded by ``suite`` in the sandbox, under the app's settings (its budget, the
    reference's cache): an upload's grading, and a term regrade's run of the tests a suite
    gained (``regrade_preview``). ``report`` hears each test and game done, ``first`` the
    first verdict; ``defer_below`` and ``kept`` are `harness.grade_engine`'s (a timing on a
    busy machine deferred, and the retime that keeps the other tests' results); a retime
    judges the machine busy by the worker's own ``GRADER_TIMING_BUSY_SHARE``."""
    from grader import harness

    config = current_app.config
    return harness.grade_engine(
        engine_file,
        suite,
        harness.SandboxConfig(sandbox=config["GRADER_SANDBOX"]),
        report,
        budget=config["GRADER_JOB_SECONDS"],
        cache=Path(config["GRADER_CACHE_DIR"]),
        first=first,
        defer_below=defer_below,
        kept=kept,
        busy_below=float(config["GRADER_TIMING_BUSY_SHARE"]),
        first_only=first_only,
    )


# -- the two job kinds ------------------------------------------------------------------------


class SubmissionJob(JobKind[SubmissionClaim, "Report"]):
    """Grading an upload in the sandbox, its progress (tests and games done) on the page."""

    job, noun, model = GRADE, "submission", Submission
    first_phase = "grading"

    def claim(self, job_id: int, worker: str) -> SubmissionClaim | None:
        return claim_submission(job_id, worker)

    def priority_of(self, job_id: int) -> int:
        return db.session.get_one(Submission, job_id).priority

    def run(self, claimed: SubmissionClaim, progress: Progress) -> Report:
        from grader import harness

        job_progress: dict[str, Any] = {
            "tests_done": 0,
            "tests_total": 0,
            "games_done": 0,
            "games_total": 0,
            "label": "",
            "phase": "grading",
        }

        def report(kind: str, done: int, total: int, label: str) -> None:
            job_progress[f"{kind}s_done"], job_progress[f"{kind}s_total"] = done, total
            job_progress["label"] = label[:120]
            progress(dict(job_progress))

        suite = harness.load_suite(claimed.suite)
        job_progress["tests_total"], job_progress["games_total"] = (
            len(suite.tests),
            suite.game_count,
        )
        kept = None
        # A retime or the rest: the page keeps saying why, and the first verdict; the progress
        # keeps what the earlier run gave, for a claim after this one's worker stops (CARRIED).
        if claimed.deferred:
            kept = harness.Kept.from_dict(claimed.deferred["kept"])
            job_progress.update(
                deferred_words(claimed.deferred), deferred=claimed.deferred, phase=RETIME_RUNNING
            )
        elif claimed.rest:
            kept = harness.Kept.from_dict(claimed.rest["kept"])
            job_progress.update(_rest_words(claimed.rest), rest=claimed.rest, phase=REST_RUNNING)
        progress(dict(job_progress))

        def first(results: list[Any]) -> None:
            job_progress["first_verdict"] = first_verdict(suite.tests, results)
            progress(dict(job_progress))

        return run_suite(
            claimed.engine_file(),
            suite,
            report,
            None if kept else first,  # a retime or the rest keeps the first run's verdict
            defer_below=(
                float(current_app.config["GRADER_TIMING_BUSY_SHARE"])
                if (kept.deferrals if kept else 0) < MAX_DEFERRALS
                else 0.0
            ),
            kept=kept,
            first_only=kept is None,  # a first run ends at the first verdict (`queue_rest`)
        )

    def incomplete(self, result: Report) -> str | None:
        if result.complete:
            return None
        return result.error or "a test hit an internal error of the grader"

    def give_back(self, job_id: int, worker: str, message: str) -> str | None:
        return submission_error(job_id, worker, message)

    def record(self, job_id: int, worker: str, result: Report) -> bool:
        from grader import harness

        if result.rest:  # the first verdict given: the rest waits behind every first run
            priority = queue_rest(job_id, worker, result)
            if priority is None:
                return False
            self.wake(job_id, priority=priority)
            return True
        if result.deferred:  # the machine was busy: no score yet, timed again later
            if not defer_timing(job_id, worker, result):
                return False
            if uploads_waiting_before(RETIME_PRIORITY):
                # A deadline's queue, whose first runs starting beside the timing made the
                # machine busy: woken now, it is timed again as soon as they are graded. With
                # none waiting, the machine is busy from outside the queue: the sweep wakes it
                # after `retime_after` (15 s, then 30 and 60), time for the machine to calm.
                self.wake(job_id, priority=RETIME_PRIORITY)
            return True
        return write_result(
            job_id,
            worker,
            score=result.score,
            max_score=result.max_score,
            gradescope=harness.gradescope(result),
            rich=harness.rich(result),
            suite_version=result.suite_version,
        )


class GameJob(JobKind[GameClaim, "MatchGame"]):
    """Playing one tournament game between two uploads, each in its sandbox."""

    job, noun, model = GAME_JOB, "game", TournamentGame
    priority = GAME_PRIORITY
    incomplete_word = "internal error"

    def claim(self, job_id: int, worker: str) -> GameClaim | None:
        return claim_game(job_id, worker)

    def run(self, claimed: GameClaim, progress: Progress) -> MatchGame:
        from grader.harness import SandboxConfig
        from grader.harness.match import play_pair

        params = claimed.params
        return play_pair(
            *claimed.engine_files(),
            claimed.opening,
            names=claimed.names,
            time_per_move=float(params["time_per_move"]),
            margin=float(params["margin"]),
            max_plies=int(params["max_plies"]),
            config=SandboxConfig(sandbox=current_app.config["GRADER_SANDBOX"]),
            event=f"tournament {claimed.tournament_id}",
        )

    def incomplete(self, result: MatchGame) -> str | None:
        return result.internal_error or None

    def give_back(self, job_id: int, worker: str, message: str) -> str | None:
        return game_error(job_id, worker, message)

    def record(self, job_id: int, worker: str, result: MatchGame) -> bool:
        return write_game(
            job_id, worker, result=result.result, termination=result.termination, pdn=result.pdn
        )


SUBMISSION = SubmissionJob()
GAME = GameJob()
