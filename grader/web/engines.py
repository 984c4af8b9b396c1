"""Engine uploads and their results: the student's pages, the staff's submissions table,
leaderboard and tournaments, and the JSON API under /api/engines. Thin views over
services/engines.py and services/tournaments.py."""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    flash,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from flask_login import current_user, login_required
from flask_wtf.csrf import generate_csrf
from pydantic import BaseModel, Field

from grader.harness.results import json_text
from grader.models import MAX_ID
from grader.services import Invalid, NotFound, ServiceError, engines, tournaments
from grader.services.uploads import MAX_ZIP_BYTES
from grader.web import api as student_api
from grader.web.forms import ActionForm
from grader.web.openapi import error_response

bp = Blueprint("engines", __name__)
api = student_api.api

#: Request bodies of the upload endpoints may hold a 1 MiB zip (the app's default is small).
UPLOAD_BODY_LIMIT = MAX_ZIP_BYTES + (64 << 10)
_UPLOAD_ENDPOINTS = {"engines.upload", "api.upload_engine"}


@bp.app_url_value_preprocessor
def _upload_limit(endpoint: str | None, _values: Any) -> None:
    """Raise the body limit for the uploads alone; runs before any hook reads the form (CSRF)."""
    if endpoint in _UPLOAD_ENDPOINTS:
        request.max_content_length = UPLOAD_BODY_LIMIT


def _rate_limited(error: engines.RateLimited, json: bool) -> Any:
    if json:
        response = error_response(429, str(error))
    else:
        flash(str(error), "error")
        response = redirect(request.referrer or url_for("pages.dashboard"))
    response.headers["Retry-After"] = str(error.retry_after)
    return response


def _file() -> tuple[bytes, str]:
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        raise Invalid("choose a file: engine.py or a .zip with engine.py at its top")
    return upload.read(UPLOAD_BODY_LIMIT + 1), upload.filename


def _flag(name: str) -> bool:
    return request.form.get(name, "").lower() in {"1", "true", "on", "yes"}


# -- pages ----------------------------------------------------------------------------------


@bp.before_request
@login_required
def _signed_in() -> None:
    """Every page here needs a signed-in user."""


@bp.get("/assignments/<int:assignment_id>/slots/<int:index>/engine/<name>")
def handout(assignment_id: int, index: int, name: str) -> Any:
    path, download = engines.handout(current_user, assignment_id, index, name)
    # Markdown is read in the browser as text; the starter engine is downloaded.
    return send_file(path, mimetype="text/plain" if download.endswith(".md") else "text/x-python",
                     as_attachment=download.endswith(".py"), download_name=download)


@bp.get("/assignments/<int:assignment_id>/slots/<int:index>/engine")
def slot_page(assignment_id: int, index: int) -> Any:
    slot = engines.engine_slot(current_user, assignment_id, index)
    return render_template("engines/slot.html", slot=slot, assignment=slot.assignment,
                           suite=engines.suite_of(slot),
                           submissions=engines.my_submissions(current_user, slot),
                           teaches=engines.teaches(current_user, slot), form=ActionForm())


@bp.post("/assignments/<int:assignment_id>/slots/<int:index>/engine")
def upload(assignment_id: int, index: int) -> Any:
    back = url_for("engines.slot_page", assignment_id=assignment_id, index=index)
    if not ActionForm().validate_on_submit():
        flash("the form expired; upload again", "error")
        return redirect(back)
    try:
        data, name = _file()
        submission = engines.upload(current_user, assignment_id, index, data, name,
                                    tournament=_flag("tournament"))
    except engines.RateLimited as error:
        return _rate_limited(error, json=False)
    except Invalid as error:
        flash(f"Upload refused: {error}", "error")
        return redirect(back), 303
    return redirect(url_for("engines.submission_page", submission_id=submission.id), 303)


@bp.get("/engines/<int:submission_id>")
def submission_page(submission_id: int) -> Any:
    submission = engines.get_submission(current_user, submission_id)
    page = {
        "submission_url": url_for("api.get_engine", submission_id=submission.id),
        "game_url_template": url_for("api.engine_game", submission_id=submission.id,
                                     number=0)[:-1] + "{n}",
        "pdn_url_template": url_for("api.engine_game_pdn", submission_id=submission.id,
                                    number=0).replace("/0.pdn", "/{n}.pdn"),
        "results_url": url_for("api.engine_results", submission_id=submission.id),
        "csrf_token": generate_csrf(),
    }
    return render_template("engines/submission.html", submission=submission, page=page)


# -- the staff's pages ---------------------------------------------------------------------


@bp.get("/instructor/assignments/<int:assignment_id>/slots/<int:index>/engines")
def staff_slot(assignment_id: int, index: int) -> Any:
    who, slot, found = engines.slot_submissions(current_user, assignment_id, index)
    return render_template("engines/staff_slot.html", staff=who, slot=slot,
                           assignment=slot.assignment, submissions=found,
                           leaderboard=tournaments.leaderboard(slot),
                           tournaments=tournaments.of_slot(slot), form=ActionForm())


@bp.post("/instructor/engines/<int:submission_id>/rerun")
def rerun(submission_id: int) -> Any:
    submission = engines.get_submission(current_user, submission_id)
    if ActionForm().validate_on_submit():
        try:
            engines.rerun(current_user, submission_id)
            flash(f"Submission {submission_id} queued again.", "info")
        except ServiceError as error:
            flash(str(error), "error")
    return redirect(url_for("engines.staff_slot", assignment_id=submission.slot.assignment_id,
                            index=submission.slot.index))


@bp.post("/instructor/assignments/<int:assignment_id>/slots/<int:index>/engines/rerun")
def rerun_all(assignment_id: int, index: int) -> Any:
    if ActionForm().validate_on_submit():
        count = engines.rerun_all(current_user, assignment_id, index)
        flash(f"{count} latest submissions queued again at low priority.", "info")
    return redirect(url_for("engines.staff_slot", assignment_id=assignment_id, index=index))


@bp.post("/instructor/assignments/<int:assignment_id>/slots/<int:index>/tournaments")
def start_tournament(assignment_id: int, index: int) -> Any:
    if ActionForm().validate_on_submit():
        try:
            tournament = tournaments.start(current_user, assignment_id, index)
        except ServiceError as error:
            flash(str(error), "error")
        else:
            return redirect(url_for("engines.tournament_page", tournament_id=tournament.id))
    return redirect(url_for("engines.staff_slot", assignment_id=assignment_id, index=index))


@bp.get("/instructor/tournaments/<int:tournament_id>")
def tournament_page(tournament_id: int) -> Any:
    found, table = tournaments.standings(current_user, tournament_id)
    return render_template("engines/tournament.html", tournament=found, table=table,
                           slot=found.slot)


# -- the JSON API (on the API blueprint, so /api/openapi.json documents it) ----------------


class EngineSubmission(BaseModel):
    id: int
    user: str | None
    assignment_id: int
    slot_index: int
    filename: str
    size: int
    sha256: str
    suite: str
    status: str = Field(description="queued, running, done, failed or superseded")
    attempts: int = Field(description="times a worker took it (internal errors, dead workers)")
    queue_position: int | None
    progress: dict[str, Any] = Field(
        description="while running: tests_done, tests_total, games_done, games_total, label")
    score: float | None
    max_score: float | None
    days_late: int
    penalty: float
    error: str | None = Field(description="why it failed: the grader's fault, not charged")
    tournament_opt_in: bool
    created_at: str | None
    started_at: str | None
    finished_at: str | None
    results: dict[str, Any] | None = Field(description="results.json (Gradescope) once done")
    summary: dict[str, Any] | None = Field(
        description="once done: tests, timing (CPU vs reference per depth), games, elo")
    urls: dict[str, str]


def _submission(submission: Any) -> EngineSubmission:
    result = engines.result_of(submission) if submission.status == "done" else None
    urls = {"self": url_for("api.get_engine", submission_id=submission.id),
            "page": url_for("engines.submission_page", submission_id=submission.id)}
    if result is not None:
        urls["results_json"] = url_for("api.engine_results", submission_id=submission.id)
        urls["rich_json"] = url_for("api.engine_rich", submission_id=submission.id)
    return EngineSubmission(**engines.describe(submission, result), urls=urls)


@api.route("POST", "/engines", summary="Upload an engine (multipart/form-data)",
           tag="engines", response=EngineSubmission, status=201, errors=("409", "429"), form={
               "type": "object", "required": ["assignment_id", "slot_index", "file"],
               "properties": {
                   "assignment_id": {"type": "integer", "minimum": 1},
                   "slot_index": {"type": "integer", "minimum": 0},
                   "file": {"type": "string", "format": "binary",
                            "description": "engine.py, or a .zip with engine.py at its top"},
                   "tournament": {"type": "boolean", "description": "opt in"}}})
def upload_engine() -> Any:
    """Fields: `assignment_id`, `slot_index`, `file` (engine.py, at most 256 KiB, or a zip with
    engine.py at its top, at most 1 MiB), `tournament` (opt in). Stored and queued before the
    response; a refused upload (400, with why) stores nothing; 429 with Retry-After past the
    rate limit."""
    try:
        assignment_id = int(request.form.get("assignment_id", ""))
        index = int(request.form.get("slot_index", ""))
    except ValueError:
        raise Invalid("assignment_id and slot_index must be whole numbers") from None
    if not (0 <= assignment_id <= MAX_ID and 0 <= index <= MAX_ID):
        raise NotFound("no such assignment or slot")  # the database holds no larger number
    try:
        data, name = _file()
        submission = engines.upload(g.user, assignment_id, index, data, name,
                                    tournament=_flag("tournament"))
    except engines.RateLimited as error:
        return _rate_limited(error, json=True)
    return _submission(submission)


@api.route("GET", "/engines/<int:submission_id>", summary="An engine submission: status, "
           "progress, results once done", tag="engines", response=EngineSubmission)
def get_engine(submission_id: int) -> EngineSubmission:
    return _submission(engines.get_submission(g.user, submission_id))


def _result(submission_id: int) -> Any:
    result = engines.result_of(engines.get_submission(g.user, submission_id))
    if result is None:
        raise engines.NotFound("not graded yet")
    return result


def _download(text: str, name: str, mimetype: str) -> Response:
    return Response(text, mimetype=mimetype,
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@api.route("GET", "/engines/<int:submission_id>/results.json",
           summary="results.json (Gradescope's format)", tag="engines")
def engine_results(submission_id: int) -> Any:
    return _download(json_text(_result(submission_id).gradescope),
                     f"results-{submission_id}.json", "application/json")


@api.route("GET", "/engines/<int:submission_id>/rich.json",
           summary="Every test's measurements and every game's PDN", tag="engines")
def engine_rich(submission_id: int) -> Any:
    return _download(json_text(_result(submission_id).rich), f"rich-{submission_id}.json",
                     "application/json")


@api.route("GET", "/engines/<int:submission_id>/games/<int:number>",
           summary="A game of the graded run: PDN, and each ply's move and position",
           tag="engines")
def engine_game(submission_id: int, number: int) -> Any:
    return jsonify(engines.game(g.user, submission_id, number))


@api.route("GET", "/engines/<int:submission_id>/games/<int:number>.pdn",
           summary="A game as a PDN file", tag="engines")
def engine_game_pdn(submission_id: int, number: int) -> Any:
    found = engines.game(g.user, submission_id, number)
    return _download(found["pdn"], f"game-{submission_id}-{number}.pdn",
                     "application/x-checkers-pdn")


@api.route("POST", "/engines/<int:submission_id>/rerun", summary="Grade it again (instructors)",
           tag="engines", response=EngineSubmission, errors=("409",))
def api_rerun(submission_id: int) -> EngineSubmission:
    return _submission(engines.rerun(g.user, submission_id))


@api.route("GET", "/assignments/<int:assignment_id>/slots/<int:index>/engines",
           summary="Every submission of an engine slot, and the leaderboard (staff)",
           tag="engines")
def api_slot_engines(assignment_id: int, index: int) -> Any:
    _, slot, found = engines.slot_submissions(g.user, assignment_id, index)
    return jsonify({"submissions": [_submission(s).model_dump(mode="json") for s in found],
                    "leaderboard": [row.to_dict() for row in tournaments.leaderboard(slot)]})
