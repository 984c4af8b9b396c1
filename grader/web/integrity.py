"""The academic-integrity pages of the staff (/instructor/...): engines that share code, per
engine slot, and answers matching another student's tree, per assignment. Thin views over
services/integrity/, which decides who may see them (the course's instructors; its TAs when
the course allows it). Nothing here changes a score."""

from __future__ import annotations

import math
from typing import Any

from flask import Blueprint, flash, jsonify, redirect, render_template, request, url_for
from flask_login import current_user, login_required

from grader.gametree import KINDS
from grader.services import Conflict, Invalid
from grader.services.integrity import answers, checks, engines
from grader.web.forms import ActionForm
from grader.web.integrity_forms import IntegrityAccessForm, SimilarityForm

bp = Blueprint("integrity", __name__, url_prefix="/instructor")


@bp.before_request
@login_required
def _signed_in() -> None:
    """Every page here needs a signed-in user; the services check the course role."""


def _minimum() -> float:
    raw = request.args.get("min", "").strip()
    if not raw:
        return 0.0
    try:
        value = float(raw)
    except ValueError:
        raise Invalid("the least similarity shown is a number from 0 to 1") from None
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise Invalid("the least similarity shown is a number from 0 to 1")
    return value


# -- engines that share code ------------------------------------------------------------------


@bp.get("/assignments/<int:assignment_id>/slots/<int:index>/similarity")
def similarity(assignment_id: int, index: int) -> Any:
    found = engines.report(current_user, assignment_id, index, minimum=_minimum())
    return _report_page(
        "integrity/similarity.html",
        found,
        request.full_path,
        slot=found.slot,
        assignment=found.slot.assignment,
        form=SimilarityForm(),
    )


def _report_page(template: str, found: Any, back: str, **context: Any) -> str:
    """A report's page: who reads it, its latest check's state, and the course's TA-access form
    (which comes back to `back`)."""
    return render_template(
        template,
        report=found,
        staff=found.staff,
        course=found.staff.course,
        status=checks.status(found.check),
        access=IntegrityAccessForm(ta_may_read=found.staff.course.integrity_ta, back=back),
        **context,
    )


@bp.post("/assignments/<int:assignment_id>/slots/<int:index>/similarity")
def start_similarity(assignment_id: int, index: int) -> Any:
    form = SimilarityForm()
    if form.validate_on_submit():
        try:
            check = engines.request_check(
                current_user, assignment_id, index, earlier=bool(form.earlier.data)
            )
        except Conflict as refused:  # the course's check under way: said on the page
            flash(str(refused), "error")
        else:
            flash(f"Similarity check {check.id} is {check.status}.", "info")
    return redirect(url_for("integrity.similarity", assignment_id=assignment_id, index=index))


@bp.get("/assignments/<int:assignment_id>/slots/<int:index>/similarity/status")
def similarity_status(assignment_id: int, index: int) -> Any:
    return jsonify(checks.status(engines.latest_check(current_user, assignment_id, index)))


@bp.get("/assignments/<int:assignment_id>/slots/<int:index>/similarity/compare")
def compare(assignment_id: int, index: int) -> Any:
    """Any two submissions of the slot by their numbers (the form on the slot's page)."""
    a, b = request.args.get("a", type=int), request.args.get("b", type=int)
    if a is None or b is None or a < 1 or b < 1:
        engines.latest_check(current_user, assignment_id, index)  # who may ask, first
        flash("Give the numbers of two submissions to compare.", "error")
        return redirect(url_for("integrity.similarity", assignment_id=assignment_id, index=index))
    return redirect(
        url_for(
            "integrity.pair",
            assignment_id=assignment_id,
            index=index,
            submission_id=a,
            other_id=b,
        )
    )


@bp.get(
    "/assignments/<int:assignment_id>/slots/<int:index>/similarity/<int:submission_id>/<int:other_id>"
)
def pair(assignment_id: int, index: int, submission_id: int, other_id: int) -> Any:
    view = engines.pair_view(current_user, assignment_id, index, submission_id, other_id)
    return render_template(
        "integrity/pair.html",
        view=view,
        staff=view.staff,
        course=view.staff.course,
        slot=view.slot,
        assignment=view.slot.assignment,
    )


# -- answers matching another student's tree -----------------------------------------------------


@bp.get("/assignments/<int:assignment_id>/answers-matching")
def answers_page(assignment_id: int) -> Any:
    found = answers.report(current_user, assignment_id)
    return _report_page(
        "integrity/answers.html",
        found,
        request.path,
        assignment=found.assignment,
        kinds=KINDS,
        form=ActionForm(),
    )


@bp.post("/assignments/<int:assignment_id>/answers-matching")
def start_answers(assignment_id: int) -> Any:
    if ActionForm().validate_on_submit():
        try:
            check = answers.request_check(current_user, assignment_id)
        except Conflict as refused:  # the course's check under way: said on the page
            flash(str(refused), "error")
        else:
            flash(f"Answers check {check.id} is {check.status}.", "info")
    return redirect(url_for("integrity.answers_page", assignment_id=assignment_id))


@bp.get("/assignments/<int:assignment_id>/answers-matching/status")
def answers_status(assignment_id: int) -> Any:
    return jsonify(checks.status(answers.latest_check(current_user, assignment_id)))


# -- the course's setting ------------------------------------------------------------------------


@bp.post("/courses/<int:course_id>/integrity-access")
def access(course_id: int) -> Any:
    form = IntegrityAccessForm()
    checks.integrity_staff(current_user, course_id, change=True)
    if form.validate_on_submit():
        allowed = bool(form.ta_may_read.data)
        checks.set_ta_access(current_user, course_id, allowed)
        flash(
            "The course's TAs may now read the academic-integrity pages."
            if allowed
            else "Only the course's instructors see the academic-integrity pages now.",
            "info",
        )
    back = form.back.data or ""
    if not back.startswith("/instructor/") or back.startswith("//"):  # only the dashboard's pages
        back = url_for("instructor.course", course_id=course_id)
    return redirect(back)


__all__ = ["bp"]
