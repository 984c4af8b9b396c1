"""A term's deadlines: the extension forms and an extension removed. A refused deadline form is
shown again on its own page, so its route lives with that page: slip days on the course's
(`courses`), a group on the roster (`roster`), an extension and the accommodations list on the
assignment's (`editor`)."""

from __future__ import annotations

from typing import Any

from flask import flash, redirect, request, url_for
from flask_login import current_user

from grader.services import ServiceError
from grader.services.courses import extensions
from grader.services.courses.staff import staff
from grader.web.forms import ActionForm, SelectChoice, in_zone
from grader.web.instructor.blueprint import bp
from grader.web.instructor.deadlines_forms import AccommodationsForm, ExtensionForm


def extension_form(assignment: Any, zone: str, **given: Any) -> ExtensionForm:
    """An assignment's extension form (`given`: ExtensionForm's own, `formdata=None` for a
    blank one on a page a form refused elsewhere)."""
    form = in_zone(ExtensionForm(**given), zone)
    form.slot.choices = [SelectChoice("", "the whole assignment")] + [
        SelectChoice(str(s.index), f"exercise {s.index + 1}: {s.name}") for s in assignment.slots
    ]
    return form


def extension_forms(assignment: Any, zone: str) -> dict[str, Any]:
    """The assignment page's blank deadline forms."""
    return {
        "extension_form": extension_form(assignment, zone, formdata=None),
        "accommodations_form": AccommodationsForm(formdata=None),
    }


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
