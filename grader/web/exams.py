"""Paper exams' pages: printing an assignment (instructors), and entering the answers written
on the sheets (instructors and TAs), over services/paper/printing.py and entry.py."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, flash, jsonify, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grader.services import NotFound, RateLimited, ServiceError
from grader.services.paper import codes, printing
from grader.services.paper import entry as paper_entry
from grader.services.trees.attempts import to_api
from grader.web.api import RequestError
from grader.web.errors import status_of
from grader.web.exams_forms import ExamPrintForm, SheetCodeForm

bp = Blueprint("exams", __name__)


@bp.before_request
@login_required
def _signed_in() -> None:
    """Every page here needs a signed-in user; the services check the course role."""


# -- printing --------------------------------------------------------------------------------


@bp.route("/instructor/assignments/<int:assignment_id>/exam", methods=["GET", "POST"])
def print_page(assignment_id: int) -> Any:
    found = printing.print_runs(current_user, assignment_id)
    form = ExamPrintForm()
    status, headers = 200, {}
    if form.validate_on_submit():
        try:
            run = printing.request_print(
                current_user, assignment_id, paper=form.paper.data, anonymous=form.anonymous.data
            )
        except ServiceError as refused:  # a bound: said on the page, nothing stored or queued
            flash(str(refused), "error")
            status = status_of(refused)
            if isinstance(refused, RateLimited):
                headers["Retry-After"] = str(refused.retry_after)
        else:
            flash(f"Printing started (run {run.id}): this page shows its progress.", "success")
            return redirect(url_for("exams.print_page", assignment_id=assignment_id))
    trees, skipped = printing.printable_slots(found.assignment)
    return (
        render_template(
            "exams/print_page.html",
            assignment=found.assignment,
            course=found.assignment.course,
            staff=found.staff,
            runs=found.runs,
            allowance=found.allowance,
            form=form,
            trees=trees,
            skipped=skipped,
            files=printing.PRINT_FILES,
        ),
        status,
        headers,
    )


@bp.get("/instructor/exam-prints/<int:print_id>")
def print_status(print_id: int) -> Any:
    run = printing.get_print(current_user, print_id)
    return jsonify(
        id=run.id,
        status=run.status,
        progress=run.progress,
        error=run.error,
        files={
            name: url_for("exams.print_file", print_id=run.id, name=name)
            for name in printing.PRINT_FILES
        }
        if run.status == "done"
        else {},
    )


@bp.get("/instructor/exam-prints/<int:print_id>/<name>")
def print_file(print_id: int, name: str) -> Any:
    data = printing.print_file(current_user, print_id, name)
    kind = "application/zip" if name.endswith(".zip") else "application/pdf"
    response = Response(data, mimetype=kind)
    response.headers["Content-Disposition"] = f'attachment; filename="exam-{print_id}-{name}"'
    return response


# -- entering the answers ----------------------------------------------------------------------


@bp.get("/exams/sheets")
def open_sheet() -> Any:
    form = SheetCodeForm(request.args)
    if "code" in request.args and form.validate():
        try:
            sheet = paper_entry.find_sheet(current_user, form.code.data or "")
        except NotFound as error:
            form.code.errors = [str(error)]
            return render_template("exams/open.html", form=form), 404
        return redirect(url_for("exams.sheet", code=sheet.code))
    return render_template("exams/open.html", form=form)


@bp.get("/exams/sheets/<code>")
def sheet(code: str) -> Any:
    found = paper_entry.find_sheet(current_user, code)
    if not found.items:
        raise NotFound("this sheet has no questions")
    return redirect(url_for("exams.entry", code=found.code, slot_index=found.items[0].slot_index))


@bp.get("/exams/sheets/<code>/<int:slot_index>")
def entry(code: str, slot_index: int) -> Any:
    entry = paper_entry.open_item(current_user, code, slot_index)
    saved = to_api(entry.attempt, entry.solution) if entry.attempt else None
    return render_template(
        "exams/entry.html",
        entry=entry,
        sheet=entry.sheet,
        shown_code=codes.shown_code(entry.sheet.code),
        exercise=entry.exercise,
        saved=saved,
        history=paper_entry.history_lines(
            entry.attempt, entry.item.slot.assignment.course.timezone
        ),
        next_url=url_for("exams.entry", code=entry.next_url[0], slot_index=entry.next_url[1])
        if entry.next_url
        else url_for("exams.open_sheet"),
        page_course_id=entry.item.slot.assignment.course_id,
    )


class EntryBody(BaseModel):
    """What the entry page sends: the answer in the exercise kind's shape (the grader checks
    it), the number of entries the page showed, and the confirmations it asks for."""

    model_config = ConfigDict(extra="forbid", strict=True)

    answer: dict[str, Any]
    version: int = Field(ge=0, le=10_000)
    confirm: bool = False
    student_id: int | None = Field(default=None, ge=1, le=2**63 - 1)


@bp.post("/exams/sheets/<code>/<int:slot_index>")
def save(code: str, slot_index: int) -> Any:
    try:
        body = EntryBody.model_validate(request.get_json(silent=False))
    except ValidationError as error:
        raise RequestError(
            "the entry must be {answer, version, confirm?, student_id?}",
            [{"loc": list(e["loc"]), "msg": e["msg"]} for e in error.errors()],
        ) from error
    attempt, solution = paper_entry.save_entry(
        current_user,
        code,
        slot_index,
        body.answer,
        version=body.version,
        confirm=body.confirm,
        student_id=body.student_id,
    )
    slot = attempt.exercise.slot
    assert slot is not None  # an answer on paper is a slot's
    return jsonify(
        {
            **to_api(attempt, solution),
            "version": len(attempt.history or []),
            "history": attempt.history,
            # the entries as the page lists them, in the course's zone
            "history_lines": paper_entry.history_lines(attempt, slot.assignment.course.timezone),
        }
    )
