"""Problem reports: the student's form (from an exercise's page or an engine slot's result), and
the staff's inbox per course with the answer form (services/teaching/problem_reports.py)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from flask_wtf import FlaskForm
from wtforms import HiddenField, SelectField, TextAreaField
from wtforms.validators import DataRequired, Length

from grader.models import REPORT_TEXT_MAX
from grader.ratelimits import limiter, setting
from grader.services import ServiceError
from grader.services.teaching import problem_reports
from grader.web.forms import SelectChoice

bp = Blueprint("reports", __name__)


@bp.before_request
@login_required
def _signed_in() -> None:
    """Every page here needs a signed-in user; the service checks the course role."""


class ReportForm(FlaskForm):
    text = TextAreaField(
        "What is the problem?", validators=[DataRequired(), Length(max=REPORT_TEXT_MAX)]
    )
    concerning = SelectField("It is about", validate_choice=True)
    exercise = HiddenField()


class AnswerForm(FlaskForm):
    text = TextAreaField("Your answer", validators=[DataRequired(), Length(max=REPORT_TEXT_MAX)])


def _number(value: str | None) -> int | None:
    value = (value or "").strip()
    return int(value) if value.isdigit() and len(value) < 12 else None


def _named(value: str | None, prefix: str) -> int | None:
    """The id in a choice "a:ID" (an attempt) or "u:ID" (an upload)."""
    return _number(value[len(prefix) :]) if value and value.startswith(prefix) else None


def _user_key() -> str:
    return f"report:{current_user.get_id()}"


@bp.route("/assignments/<int:assignment_id>/slots/<int:index>/report", methods=["GET", "POST"])
@limiter.limit(
    setting("GRADER_REPORT_LIMIT"),
    key_func=_user_key,
    methods=["POST"],
    scope="problem-report",
    error_message="Too many problem reports: wait a while (see Retry-After), then send it.",
)
def report(assignment_id: int, index: int) -> Any:
    """Report a problem with this exercise (naming an attempt or upload, from the query)."""
    slot = problem_reports.slot_of(current_user, assignment_id, index)
    form = ReportForm()
    if request.method == "GET":
        form.exercise.data = request.args.get("exercise", "")[:12]
        form.concerning.data = request.args.get("about", "")[:14]
    exercise_id = _number(form.exercise.data)
    options = problem_reports.concerning(current_user, slot, exercise_id)
    form.concerning.choices = [
        *(SelectChoice(o.value, o.label) for o in options),
        SelectChoice("", "no attempt or upload in particular"),
    ]
    if form.validate_on_submit():
        try:
            filed = problem_reports.report(
                current_user,
                assignment_id,
                index,
                form.text.data or "",
                exercise_id=exercise_id,
                attempt_id=_named(form.concerning.data, "a:"),
                submission_id=_named(form.concerning.data, "u:"),
                inbox_url=url_for(
                    "reports.inbox", course_id=slot.assignment.course_id, _external=True
                ),
            )
        except ServiceError as error:
            flash(str(error), "error")
        else:
            told = ", who are told by e-mail" if filed.mailing else ""
            flash(
                f"Your report went to the course's staff{told}; their answer will show on the "
                "exercise's page.",
                "info",
            )
            return redirect(url_for("pages.slot", assignment_id=assignment_id, index=index))
    return render_template(
        "reports/report.html",
        form=form,
        slot=slot,
        reports=problem_reports.mine(current_user, slot.id),
        limit=REPORT_TEXT_MAX,
    ), (400 if request.method == "POST" else 200)


@bp.app_context_processor
def _my_reports() -> dict[str, Any]:
    """`my_reports(slot_id)` for the exercise and engine pages: the reader's reports there."""

    def my_reports(slot_id: int | None) -> list[Any]:
        if slot_id is None or not current_user.is_authenticated:
            return []
        return problem_reports.mine(current_user, slot_id)

    return {"my_reports": my_reports}


@bp.get("/instructor/courses/<int:course_id>/reports")
def inbox(course_id: int) -> Any:
    """The course's problem reports: open ones first, then the answered."""
    found = problem_reports.inbox(current_user, course_id)
    return render_template(
        "reports/inbox.html",
        inbox=found,
        staff=found.staff,
        course=found.staff.course,
        form=AnswerForm(),
    )


@bp.post("/instructor/reports/<int:report_id>/answer")
def answer(report_id: int) -> Any:
    course_id = problem_reports.course_of(current_user, report_id)  # refuses all but its staff
    form = AnswerForm()
    if form.validate_on_submit():
        try:
            problem_reports.answer(current_user, report_id, form.text.data or "")
        except ServiceError as error:
            flash(str(error), "error")
        else:
            flash("Answered: the student reads it on the exercise's page.", "info")
    else:
        for errors in form.errors.values():
            for message in errors:
                flash(f"The answer: {message}", "error")
    return redirect(url_for("reports.inbox", course_id=course_id))
