"""A term's deadlines: slip days, extensions, the accommodations list and named groups."""

from __future__ import annotations

from typing import Any

from flask import flash, redirect, request, url_for
from flask_login import current_user

from grader.services import ServiceError, plural
from grader.services.courses import extensions, groups, slip_days
from grader.services.courses.staff import staff, staff_for_assignment
from grader.web.forms import ActionForm, SelectChoice, in_zone
from grader.web.instructor.blueprint import bp, redirect_to, submitted
from grader.web.instructor.deadlines_forms import (
    AccommodationsForm,
    ExtensionForm,
    GroupForm,
    SlipDaysForm,
)


@bp.post("/courses/<int:course_id>/slip-days")
def set_slip_days(course_id: int) -> Any:
    staff(current_user, course_id, change=True)
    form = SlipDaysForm()
    submitted(
        form,
        lambda: slip_days.set_slip_days(current_user, course_id, form.slip_days.data or 0),
        lambda course: f"Each student has {plural(course.slip_days, 'slip day')}.",
    )
    return redirect_to("instructor.course", course_id=course_id)


def extension_forms(assignment: Any, zone: str) -> dict[str, Any]:
    form = in_zone(ExtensionForm(), zone)
    form.slot.choices = [SelectChoice("", "the whole assignment")] + [
        SelectChoice(str(s.index), f"exercise {s.index + 1}: {s.name}") for s in assignment.slots
    ]
    return {"extension_form": form, "accommodations_form": AccommodationsForm()}


@bp.post("/assignments/<int:assignment_id>/extensions")
def grant_extension(assignment_id: int) -> Any:
    as_staff, assignment = staff_for_assignment(current_user, assignment_id, change=True)
    form = extension_forms(assignment, as_staff.course.timezone)["extension_form"]
    submitted(
        form,
        lambda: extensions.grant(
            current_user,
            as_staff.course.id,
            form.extension_input(assignment_id, as_staff.course.timezone),
        ),
        lambda _: "Extension granted.",
        refused=ServiceError,
    )
    return redirect(
        url_for("instructor.edit_assignment", assignment_id=assignment_id) + "#extensions"
    )


@bp.post("/courses/<int:course_id>/extensions/<int:extension_id>/remove")
def remove_extension(course_id: int, extension_id: int) -> Any:
    """Back to the assignment's page or the roster, whichever the button was on."""
    staff(current_user, course_id, change=True)
    back = url_for("instructor.roster_page", course_id=course_id) + "#extensions"
    if ActionForm().validate_on_submit():
        try:
            text, assignment_id = extensions.remove(current_user, course_id, extension_id)
        except ServiceError as error:
            flash(str(error), "error")
        else:
            flash(text, "info")
            if request.form.get("back") == "assignment":
                back = url_for("instructor.edit_assignment", assignment_id=assignment_id)
                back += "#extensions"
    return redirect(back)


@bp.post("/courses/<int:course_id>/groups")
def set_group(course_id: int) -> Any:
    staff(current_user, course_id, change=True)
    form = GroupForm()
    submitted(
        form,
        lambda: groups.set_group(
            current_user, course_id, form.name.data or "", (form.emails.data or "").split()
        ),
        lambda count: f"The group {form.name.data} has {count} students.",
        refused=ServiceError,
    )
    return redirect(url_for("instructor.roster_page", course_id=course_id) + "#extensions")
