"""A term's regrades: asked for, their preview (per student the old and new score, what changed,
a histogram of the changes) and the staff's choice on it (services/teaching/term_regrade.py,
regrade_preview.py, regrade_choice.py)."""

from __future__ import annotations

from typing import Any

from flask import abort, render_template
from flask_login import current_user

from grader.models import DONE
from grader.services import ServiceError
from grader.services.courses.staff import staff
from grader.services.teaching import regrade_choice, regrade_preview, term_regrade
from grader.web import charts
from grader.web.instructor.blueprint import bp, redirect_to, submitted
from grader.web.instructor.regrades_forms import ChoiceForm, StartRegradeForm


@bp.get("/courses/<int:course_id>/regrades")
def regrades_page(course_id: int) -> Any:
    as_staff = staff(current_user, course_id)
    return render_template(
        "instructor/regrades.html",
        staff=as_staff,
        course=as_staff.course,
        regrades=term_regrade.listed(current_user, course_id),
        scope_words=term_regrade.scope_words,
        form=StartRegradeForm().for_course(as_staff.course.assignments),
    )


@bp.post("/courses/<int:course_id>/regrades")
def start_regrade(course_id: int) -> Any:
    as_staff = staff(current_user, course_id, change=True)
    form = StartRegradeForm().for_course(as_staff.course.assignments)
    started = submitted(
        form,
        lambda: term_regrade.start(
            current_user, course_id, reason=form.reason.data or "", **form.target()
        ),
        lambda regrade: (
            f"Regrade {regrade.id} is queued at low priority: its preview "
            "appears here once a worker has computed it, and nothing changes until you choose."
        ),
        refused=ServiceError,
    )
    if started is None:
        return redirect_to("instructor.regrades_page", course_id=course_id)
    return redirect_to("instructor.regrade_page", regrade_id=started.id)


@bp.get("/regrades/<int:regrade_id>")
def regrade_page(regrade_id: int) -> Any:
    regrade = term_regrade.get(current_user, regrade_id)
    as_staff = staff(current_user, regrade.course_id)
    result = regrade.result if regrade.status == DONE else None
    chart = None
    if result is not None:
        chart = charts.column_chart(
            "How much each changed score moves",
            result["histogram"]["labels"],
            result["histogram"]["counts"],
            x_label="change in percentage points",
            y_label="scores",
        )
    return render_template(
        "instructor/regrade.html",
        staff=as_staff,
        course=as_staff.course,
        regrade=regrade,
        scope=term_regrade.scope_words(regrade),
        result=result,
        progress=regrade_preview.progress_words(regrade.progress),
        chart=chart,
        choice_words=regrade_choice.CHOICE_WORDS,
        form=ChoiceForm(),
    )


@bp.post("/regrades/<int:regrade_id>/apply")
def apply_regrade(regrade_id: int) -> Any:
    regrade = term_regrade.get(current_user, regrade_id)
    staff(current_user, regrade.course_id, change=True)
    form = ChoiceForm()
    if form.choice.data not in regrade_choice.CHOICE_WORDS:
        abort(400)
    submitted(
        form,
        lambda: regrade_choice.apply(current_user, regrade_id, form.choice.data or ""),
        lambda counts: (
            f"Applied ({regrade_choice.CHOICE_WORDS[form.choice.data or '']}): "
            f"{counts['changed']} scores changed, {counts['kept']} kept, "
            f"{counts['stale']} left alone because they changed since the preview."
        ),
        refused=ServiceError,
    )
    return redirect_to("instructor.regrade_page", regrade_id=regrade.id)
