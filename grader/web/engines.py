"""Engine uploads and their results: the student's pages, the staff's submissions table,
leaderboard and tournaments (their JSON API is in `web/api/engines.py`). Thin views over
services/engines/submissions.py, services/engines/results.py and services/engines/tournaments.py."""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from flask_login import current_user, login_required
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup

from grader.services import Invalid, NotFound, RateLimited, ServiceError
from grader.services.courses import deadlines, release
from grader.services.engines import results, submissions, tournaments
from grader.web import charts, handouts, inputs, kit
from grader.web.forms import ActionForm
from grader.web.words import graded_by

bp = Blueprint("engines", __name__)

bp.app_url_value_preprocessor(inputs.upload_body_limit)


def _rate_limited(error: RateLimited) -> Any:
    flash(str(error), "error")
    response = redirect(request.referrer or url_for("pages.dashboard"))
    response.headers["Retry-After"] = str(error.retry_after)
    return response


def _flag(name: str) -> bool:
    return request.form.get(name, "").lower() in {"1", "true", "on", "yes"}


# -- pages ----------------------------------------------------------------------------------


@bp.before_request
@login_required
def _signed_in() -> None:
    """Every page here needs a signed-in user."""


@bp.get("/assignments/<int:assignment_id>/slots/<int:index>/engine/<name>")
def handout(assignment_id: int, index: int, name: str) -> Any:
    """The assignment and the rules as pages of the site; the starter engine downloaded."""
    slot, path, download = submissions.handout(current_user, assignment_id, index, name)
    if name not in submissions.HANDOUT_PAGES:
        return _download(path, download)

    def link(target: str) -> tuple[str, bool] | None:
        other = submissions.HANDOUT_NAMES.get(target)
        if other is None:
            return None
        url = url_for("engines.handout", assignment_id=assignment_id, index=index, name=other)
        return url, other not in submissions.HANDOUT_PAGES  # the starter downloads

    title, body = handouts.render(path.read_text(encoding="utf-8"), link)
    return render_template(
        "engines/handout.html",
        title=title,
        body=body,
        slot=slot,
        assignment=slot.assignment,
        name=name,
        download=download,
    )


@bp.get("/assignments/<int:assignment_id>/slots/<int:index>/engine/<name>/download")
def handout_download(assignment_id: int, index: int, name: str) -> Any:
    """A handout's own file: the Markdown as written, or the starter engine."""
    _, path, download = submissions.handout(current_user, assignment_id, index, name)
    return _download(path, download)


def _download(path: Any, download: str) -> Any:
    return send_file(
        path,
        mimetype="text/markdown" if download.endswith(".md") else "text/x-python",
        as_attachment=True,
        download_name=download,
    )


@bp.get("/assignments/<int:assignment_id>/slots/<int:index>/engine")
def slot_page(assignment_id: int, index: int) -> Any:
    page = submissions.engine_slot_page(current_user, assignment_id, index)
    return render_template(
        "engines/slot.html",
        slot=page.slot,
        assignment=page.slot.assignment,
        suite=page.suite,
        submissions=page.submissions,
        teaches=page.teaches,
        terms=page.terms,
        held_until=page.held_until,
        late_cost=page.late_cost,
        form=ActionForm(),
        kit_command=kit.install_command(current_user),
        kit_days=current_app.config["GRADER_KIT_DAYS"],
    )


@bp.post("/assignments/<int:assignment_id>/slots/<int:index>/engine")
def upload(assignment_id: int, index: int) -> Any:
    back = url_for("engines.slot_page", assignment_id=assignment_id, index=index)
    if not ActionForm().validate_on_submit():
        flash("the form expired; upload again", "error")
        return redirect(back)
    try:
        data, name = inputs.uploaded_file()
        submission = submissions.upload(
            current_user, assignment_id, index, data, name, tournament=_flag("tournament")
        )
    except RateLimited as error:
        return _rate_limited(error)
    except Invalid as error:
        flash(f"Upload refused: {error}", "error")
        return redirect(back), 303
    return redirect(url_for("engines.submission_page", submission_id=submission.id), 303)


@bp.get("/engines/<int:submission_id>")
def submission_page(submission_id: int) -> Any:
    submission = results.get_submission(current_user, submission_id)
    held = results.held_from(current_user, submission)
    page = {
        "submission_url": url_for("api.get_engine", submission_id=submission.id),
        "game_url_template": url_for("api.engine_game", submission_id=submission.id, number=0)[:-1]
        + "{n}",
        "pdn_url_template": url_for(
            "api.engine_game_pdn", submission_id=submission.id, number=0
        ).replace("/0.pdn", "/{n}.pdn"),
        "results_url": url_for("api.engine_results", submission_id=submission.id),
        "csrf_token": generate_csrf(),
        "timing_url": url_for("engines.timing_chart", submission_id=submission.id),
    }
    return render_template(
        "engines/submission.html",
        submission=submission,
        page=page,
        held_words=release.held_words(held, submission.slot.assignment) if held else None,
        late_words=deadlines.spent_words(
            submission.days_late,
            submission.slip_days,
            submission.penalty,
            submission.slot.assignment,
        ),
        timing=None if held else _timing_chart(submission),
        page_course_id=submission.slot.assignment.course_id,
    )


def _timing_chart(submission: Any) -> Markup | None:
    """The search-time chart of a graded submission as the user may see it, yours beside the
    reference's per depth (None until it is graded; a sentence where there is nothing to draw,
    saying why); refused while its score is held from the user."""
    graded = submission.status == "done"
    result = results.shown_result(current_user, submission) if graded else None
    if result is None:
        return None
    summary = results.summary(result.rich)
    rows = summary["timing"]
    if not rows:
        timed = [t for t in summary["tests"] if t.get("kind") == "timing"]
        if not timed:
            return Markup("<p>This suite has no timing test.</p>")
        # The suite times the engine, but no run finished to compare (a crash, a wrong answer).
        return Markup(
            f"<p>No timing to draw: none of your {len(timed)} timing "
            f"test{'s' if len(timed) != 1 else ''} finished with the reference's answer "
            f"(see {'their verdicts' if len(timed) != 1 else 'its verdict'} above).</p>"
        )
    chart = charts.grouped_columns(
        "Search CPU seconds per depth, yours and the reference's",
        [f"d{r['depth']}\n{r['position'][:10]}" for r in rows],
        {"you": [r["cpu"] for r in rows], "reference": [r["reference_cpu"] for r in rows]},
        y_label="CPU seconds",
        unit=" s",
        classes={"you": "mine", "reference": "reference"},
    )
    timed = summary["reference_timed"]
    return chart + Markup("<p>{}</p>").format(timed) if timed else chart


@bp.get("/engines/<int:submission_id>/timing")
def timing_chart(submission_id: int) -> Any:
    """The chart alone, for the results page that was open before the grading finished."""
    chart = _timing_chart(results.get_submission(current_user, submission_id))
    if chart is None:
        raise NotFound("not graded yet")
    return chart


# -- the staff's pages ---------------------------------------------------------------------


@bp.get("/instructor/assignments/<int:assignment_id>/slots/<int:index>/engines")
def staff_slot(assignment_id: int, index: int) -> Any:
    as_staff, slot, uploads = submissions.slot_submissions(current_user, assignment_id, index)
    return render_template(
        "engines/staff_slot.html",
        staff=as_staff,
        slot=slot,
        assignment=slot.assignment,
        submissions=uploads,
        leaderboard=tournaments.leaderboard(slot),
        tournaments=tournaments.of_slot(slot),
        graded_by=graded_by,
        form=ActionForm(),
    )


@bp.post("/instructor/engines/<int:submission_id>/rerun")
def rerun(submission_id: int) -> Any:
    submission = results.get_submission(current_user, submission_id)
    if ActionForm().validate_on_submit():
        try:
            submissions.rerun(current_user, submission_id)
            flash(f"Submission {submission_id} queued again.", "info")
        except ServiceError as error:
            flash(str(error), "error")
    return redirect(
        url_for(
            "engines.staff_slot",
            assignment_id=submission.slot.assignment_id,
            index=submission.slot.index,
        )
    )


@bp.post("/instructor/assignments/<int:assignment_id>/slots/<int:index>/engines/rerun")
def rerun_all(assignment_id: int, index: int) -> Any:
    if ActionForm().validate_on_submit():
        count = submissions.rerun_all(current_user, assignment_id, index)
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
    tournament, table = tournaments.standings(current_user, tournament_id)
    return render_template(
        "engines/tournament.html",
        tournament=tournament,
        table=table,
        slot=tournament.slot,
        page_course_id=tournament.slot.assignment.course_id,
    )
