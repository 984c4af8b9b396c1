"""Engine submissions in the API: upload, status and results, games, staff reruns and a slot's
submissions with its leaderboard. Thin views over services/engines/submissions.py, services/engines/results.py
and services/engines/tournaments.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Response, g, url_for

from grader.models import DONE, MAX_ID, QUEUED, RUNNING, iso_utc
from grader.services import NotFound
from grader.services.courses import deadlines, release, zones
from grader.services.engines import results, submissions, tournaments, waiting
from grader.strict_json import json_text
from grader.web.api import bp, download, responses, schemas, spec
from grader.web.inputs import uploaded_file


def _first_verdict(submission: Any, held: Any) -> schemas.FirstVerdict | None:
    """The first verdict while the rest of the suite runs; never while scores are held."""
    first = (submission.progress or {}).get("first_verdict")
    if held or submission.status not in (RUNNING, QUEUED) or not first:
        return None  # queued with one: its rest or its timing waits (services/engines/leases.py)
    return schemas.FirstVerdict(**first)


def _timing_deferred(submission: Any) -> schemas.TimingDeferred | None:
    """Why the timing waits, while it waits or is timed again (never once done)."""
    deferred = (submission.progress or {}).get("timing_deferred")
    if submission.status not in (RUNNING, QUEUED) or not isinstance(deferred, dict):
        return None
    return schemas.TimingDeferred(**deferred)


def _submission(submission: Any, viewer: Any) -> schemas.EngineSubmission:
    """The upload as `viewer` may see it: while its score is held from them, that it was
    graded and when the score is released, never its score or results."""
    held = results.held_from(viewer, submission)
    shown = submission.status == "done" and held is None
    result = results.result_of(submission) if shown else None
    urls = {
        "self": url_for("api.get_engine", submission_id=submission.id),
        "page": url_for("engines.submission_page", submission_id=submission.id),
    }
    if result is not None:
        urls["results_json"] = url_for("api.engine_results", submission_id=submission.id)
        urls["rich_json"] = url_for("api.engine_rich", submission_id=submission.id)
    done = submission.status == DONE and result is not None
    return schemas.EngineSubmission(
        id=submission.id,
        user=submission.owner.email if submission.owner else None,
        assignment_id=submission.slot.assignment_id,
        slot_index=submission.slot.index,
        filename=submission.filename,
        size=submission.size,
        sha256=submission.sha256,
        suite=Path(submission.suite).stem,
        status=submission.status,
        attempts=submission.attempts,
        queue_position=waiting.queue_position(submission),
        estimated_seconds=waiting.estimated_wait(submission),
        progress={
            k: v
            for k, v in (submission.progress or {}).items()
            if k not in ("first_verdict", "deferred", "timing_deferred", "rest")
        },
        first_verdict=_first_verdict(submission, held),
        timing_deferred=_timing_deferred(submission),
        score=None if held else submission.score,
        max_score=None if held else submission.max_score,
        days_late=submission.days_late,
        penalty=submission.penalty,
        slip_days=submission.slip_days,
        late_words=deadlines.spent_words(
            submission.days_late,
            submission.slip_days,
            submission.penalty,
            submission.slot.assignment,
        ),
        error=submission.error,
        tournament_opt_in=submission.tournament_opt_in,
        created_at=iso_utc(submission.created_at),
        started_at=iso_utc(submission.started_at),
        finished_at=iso_utc(submission.finished_at),
        results=result.gradescope if done and result is not None else None,
        summary=results.summary(result.rich) if done and result is not None else None,
        released_at=zones.iso(held, submission.slot.assignment.course.timezone),
        held_words=release.held_words(held, submission.slot.assignment) if held else None,
        urls=urls,
    )


@bp.post("/engines")
@spec.validate(
    resp=responses(schemas.EngineSubmission, 201, body=True, also=(409, 429)), tags=["engines"]
)
def upload_engine(form: schemas.EngineUpload) -> tuple[schemas.EngineSubmission, int]:
    """Upload an engine (multipart/form-data)

    Fields: `assignment_id`, `slot_index`, `file` (engine.py, at most 256 KiB, or a zip with
    engine.py at its top, at most 1 MiB), `tournament` (opt in). Stored and queued before the
    response; a refused upload (400, with why) stores nothing; 429 with Retry-After past the
    rate limit."""
    if not (0 <= form.assignment_id <= MAX_ID and 0 <= form.slot_index <= MAX_ID):
        raise NotFound("no such assignment or slot")  # the database holds no larger number
    data, name = uploaded_file()
    submission = submissions.upload(
        g.user, form.assignment_id, form.slot_index, data, name, tournament=form.tournament
    )
    return _submission(submission, g.user), 201


@bp.get("/engines/<int:submission_id>")
@spec.validate(resp=responses(schemas.EngineSubmission), tags=["engines"])
def get_engine(submission_id: int) -> schemas.EngineSubmission:
    """An engine submission: status, progress, results once done"""
    return _submission(results.get_submission(g.user, submission_id), g.user)


def _result(submission_id: int) -> Any:
    result = results.shown_result(g.user, results.get_submission(g.user, submission_id))
    if result is None:
        raise NotFound("not graded yet")
    return result


@bp.get("/engines/<int:submission_id>/results.json")
@spec.validate(resp=responses(schemas.JsonObject), tags=["engines"])
def engine_results(submission_id: int) -> Response:
    """results.json (Gradescope's format)"""
    return download(
        json_text(_result(submission_id).gradescope),
        f"results-{submission_id}.json",
        "application/json",
    )


@bp.get("/engines/<int:submission_id>/rich.json")
@spec.validate(resp=responses(schemas.JsonObject), tags=["engines"])
def engine_rich(submission_id: int) -> Response:
    """Every test's measurements and every game's PDN"""
    return download(
        json_text(_result(submission_id).rich), f"rich-{submission_id}.json", "application/json"
    )


@bp.get("/engines/<int:submission_id>/games/<int:number>")
@spec.validate(resp=responses(schemas.EngineGame), tags=["engines"])
def engine_game(submission_id: int, number: int) -> schemas.EngineGame:
    """A game of the graded run: PDN, and each ply's move and position"""
    return schemas.EngineGame(**results.game(g.user, submission_id, number))


@bp.get("/engines/<int:submission_id>/games/<int:number>.pdn")
@spec.validate(resp=responses(), tags=["engines"])
def engine_game_pdn(submission_id: int, number: int) -> Response:
    """A game as a PDN file"""
    game = results.game(g.user, submission_id, number)
    return download(game["pdn"], f"game-{submission_id}-{number}.pdn", "application/x-checkers-pdn")


@bp.post("/engines/<int:submission_id>/rerun")
@spec.validate(resp=responses(schemas.EngineSubmission, also=(409,)), tags=["engines"])
def api_rerun(submission_id: int) -> schemas.EngineSubmission:
    """Grade it again (instructors)"""
    return _submission(submissions.rerun(g.user, submission_id), g.user)


@bp.get("/assignments/<int:assignment_id>/slots/<int:index>/engines")
@spec.validate(resp=responses(schemas.SlotEngines), tags=["engines"])
def api_slot_engines(assignment_id: int, index: int) -> schemas.SlotEngines:
    """Every submission of an engine slot, and the leaderboard (staff)"""
    _, slot, uploads = submissions.slot_submissions(g.user, assignment_id, index)
    return schemas.SlotEngines(
        submissions=[_submission(s, g.user) for s in uploads],
        leaderboard=[schemas.LeaderRow(**row.to_dict()) for row in tournaments.leaderboard(slot)],
    )
