"""The assignment editor: assignments and their slots made, edited, previewed, regraded and
deleted, a slot's tree exported."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Response, flash, redirect, render_template, request, url_for
from flask_login import current_user

from grader.gametree import KINDS
from grader.gametree.kinds import error_rule
from grader.gametree.variants import ALL_VARIANTS
from grader.models import Slot
from grader.services import Conflict, Invalid, ServiceError, plural
from grader.services.courses import accommodations, courses, extensions
from grader.services.courses.staff import staff, staff_for_assignment, staff_for_slot
from grader.services.engines import submissions
from grader.services.teaching import editor, regrade
from grader.web.forms import ActionForm, SelectChoice, in_zone, refuse_bad_rows
from grader.web.instructor.blueprint import bp, flash_errors, kept, redirect_to
from grader.web.instructor.deadlines import extension_form, extension_forms
from grader.web.instructor.deadlines_forms import AccommodationsForm
from grader.web.instructor.editor_forms import AssignmentForm, EngineSlotForm, RegradeForm, SlotForm
from grader.web.slot_pages import slot_url


@bp.route("/courses/<int:course_id>/assignments/new", methods=["GET", "POST"])
def new_assignment(course_id: int) -> Any:
    as_staff = staff(current_user, course_id, change=True)
    form = in_zone(AssignmentForm(), as_staff.course.timezone)
    form.preset.choices = [SelectChoice("", "(empty: add exercises next)")] + [
        SelectChoice(name, name) for name in courses.preset_names()
    ]
    if form.validate_on_submit():
        try:
            made = editor.create_assignment(
                current_user,
                course_id,
                form.assignment_input(as_staff.course.timezone),
                preset=form.preset.data or None,
            )
        except Invalid as error:
            flash(str(error), "error")
        else:
            flash("Assignment created.", "info")
            return redirect_to("instructor.edit_assignment", assignment_id=made.id)
    return render_template(
        "instructor/assignment_form.html",
        staff=as_staff,
        course=as_staff.course,
        form=form,
        assignment=None,
    )


@bp.route("/assignments/<int:assignment_id>", methods=["GET", "POST"])
def edit_assignment(assignment_id: int) -> Any:
    as_staff, assignment = staff_for_assignment(current_user, assignment_id)
    zone = as_staff.course.timezone
    form = in_zone(AssignmentForm(obj=assignment), zone, stored=request.method == "GET")
    form.preset.choices = []
    if request.method == "POST" and form.validate_on_submit():
        try:
            changed = editor.update_assignment(
                current_user, assignment_id, form.assignment_input(zone)
            )
        except Invalid as error:
            flash(str(error), "error")
        else:
            flash(
                "Saved."
                + (f" Lateness recomputed: {changed} attempts changed." if changed else ""),
                "info",
            )
            return redirect_to("instructor.edit_assignment", assignment_id=assignment_id)
    return _assignment_page(as_staff, assignment, form)


def _assignment_page(
    as_staff: Any, assignment: Any, form: AssignmentForm, status: int = 200, **forms: Any
) -> Any:
    """The assignment's page; `forms` in place of the empty ones (a refused form, as typed)."""
    return render_template(
        "instructor/assignment_form.html",
        staff=as_staff,
        course=as_staff.course,
        form=form,
        assignment=assignment,
        action=ActionForm(),
        suites=submissions.engine_suites(),
        released=courses.is_released(assignment),
        extensions=extensions.listing(current_user, as_staff.course.id, assignment.id),
        **{
            "engine_form": _engine_form(formdata=None),
            **extension_forms(assignment, as_staff.course.timezone),
            **forms,
        },
    ), status


@bp.post("/assignments/<int:assignment_id>/extensions/import")
def import_accommodations(assignment_id: int) -> Any:
    """An accommodations list: all of it applied, or (any bad row) none of it, the list then
    back in its box as typed, each bad row named beside it."""
    as_staff, assignment = staff_for_assignment(current_user, assignment_id, change=True)
    form = AccommodationsForm()

    def import_list() -> accommodations.ImportOutcome:
        outcome = accommodations.import_accommodations(
            current_user, assignment_id, form.csv_text.data or ""
        )
        refuse_bad_rows(outcome.errors, "applied")
        return outcome

    done = kept(
        form,
        import_list,
        lambda outcome: f"{plural(outcome.applied, 'extension')} granted.",
        fields={"text": "csv_text"},
    )
    if done is None:
        return _assignment_page(
            as_staff, assignment, _stored(as_staff, assignment), 422, accommodations_form=form
        )
    return redirect(
        url_for("instructor.edit_assignment", assignment_id=assignment_id) + "#extensions"
    )


def _stored(as_staff: Any, assignment: Any) -> AssignmentForm:
    """The assignment's form as stored, on its page where another form was refused."""
    shown = in_zone(
        AssignmentForm(formdata=None, obj=assignment), as_staff.course.timezone, stored=True
    )
    shown.preset.choices = []
    return shown


@bp.post("/assignments/<int:assignment_id>/extensions")
def grant_extension(assignment_id: int) -> Any:
    as_staff, assignment = staff_for_assignment(current_user, assignment_id, change=True)
    zone = as_staff.course.timezone
    form = extension_form(assignment, zone)
    done = kept(
        form,
        lambda: extensions.grant(
            current_user, as_staff.course.id, form.extension_input(assignment_id, zone)
        ),
        lambda _: "Extension granted.",
        fields={"slot_index": "slot"},
    )
    if done is None:
        return _assignment_page(
            as_staff, assignment, _stored(as_staff, assignment), 422, extension_form=form
        )
    return redirect(
        url_for("instructor.edit_assignment", assignment_id=assignment_id) + "#extensions"
    )


def _engine_form(**given: Any) -> EngineSlotForm:
    form = EngineSlotForm(**given)
    form.suite.choices = [SelectChoice(name) for name in submissions.engine_suites()]
    return form


@bp.post("/assignments/<int:assignment_id>/slots/engine")
def add_engine_slot(assignment_id: int) -> Any:
    as_staff, assignment = staff_for_assignment(current_user, assignment_id, change=True)
    form = _engine_form()
    done = kept(
        form,
        lambda: submissions.add_engine_slot(
            assignment_id, suite=form.suite.data, title=form.title.data, user=current_user
        ),
        lambda made: (
            f"Exercise {made.index + 1} added: a checkers engine, graded with the "
            f"{form.suite.data} suite."
        ),
    )
    if done is None:
        return _assignment_page(
            as_staff, assignment, _stored(as_staff, assignment), 422, engine_form=form
        )
    return redirect_to("instructor.edit_assignment", assignment_id=assignment_id)


@bp.post("/assignments/<int:assignment_id>/delete")
def delete_assignment(assignment_id: int) -> Any:
    as_staff, _ = staff_for_assignment(current_user, assignment_id, change=True)
    if ActionForm().validate_on_submit():
        title = editor.delete_assignment(current_user, assignment_id)
        flash(f"Deleted {title} with its attempts.", "info")
    return redirect_to("instructor.course", course_id=as_staff.course.id)


def _preview_context(preview: editor.Preview | None) -> dict[str, Any]:
    if preview is None:
        return {"preview": None}
    return {
        "preview": preview,
        "preview_json": preview.to_dict(),
        "variant_text": {
            code: variant.sentence(preview.tree, preview.conventions)
            for code, variant in ALL_VARIANTS.items()
        },
    }


def _slot_page(
    as_staff: Any,
    assignment: Any,
    form: SlotForm,
    slot: Slot | None,
    preview: editor.Preview | None = None,
    attempts: int = 0,
    status: int = 200,
) -> tuple[str, int]:
    return render_template(
        "instructor/slot_form.html",
        staff=as_staff,
        course=as_staff.course,
        assignment=assignment,
        form=form,
        slot=slot,
        attempts=attempts,
        regrade_form=RegradeForm(),
        action=ActionForm(),
        kinds=KINDS,
        scoring_rule=error_rule(),
        **_preview_context(preview),
    ), status


@bp.route("/assignments/<int:assignment_id>/slots/new", methods=["GET", "POST"])
def new_slot(assignment_id: int) -> Any:
    as_staff, assignment = staff_for_assignment(current_user, assignment_id)
    form = in_zone(SlotForm(), as_staff.course.timezone)
    if request.method == "GET":
        return _slot_page(as_staff, assignment, form, None)

    def add(spec: Any) -> Any:
        made = editor.add_slot(current_user, assignment_id, spec)
        flash(f"Exercise {made.index + 1} added.", "info")
        return redirect_to("instructor.edit_assignment", assignment_id=assignment_id)

    return _slot_posted(as_staff, assignment, form, None, add, refused=(Invalid,))


def _slot_posted(
    as_staff: Any,
    assignment: Any,
    form: SlotForm,
    slot: Slot | None,
    save: Callable[[Any], Any],
    attempts: int = 0,
    refused: tuple[type[ServiceError], ...] = (Invalid, Conflict),
) -> Any:
    """A posted slot form: its preview drawn on the form, or its input saved by `save` (whose
    response is returned); the form's errors or a refusal show the form again, a refusal with
    400 (409 for a conflict)."""
    preview = None
    if form.validate_on_submit():
        try:
            spec = form.slot_input(as_staff.course.timezone)
            if request.form.get("action") == "preview":
                preview = editor.preview(current_user, as_staff.course.id, spec)
            else:
                return save(spec)
        except refused as error:
            flash(str(error), "error")
            return _slot_page(
                as_staff,
                assignment,
                form,
                slot,
                attempts=attempts,
                status=409 if isinstance(error, Conflict) else 400,
            )
    else:
        flash_errors(form)
    return _slot_page(as_staff, assignment, form, slot, preview, attempts)


@bp.route("/assignments/<int:assignment_id>/slots/<int:index>", methods=["GET", "POST"])
def edit_slot(assignment_id: int, index: int) -> Any:
    as_staff, slot, attempts = editor.editor_slot(current_user, assignment_id, index)
    if not slot.slot_kind.has_exercise:  # its own staff page
        return redirect(slot_url(slot, staff=True))
    if request.method == "GET":
        return _slot_page(
            as_staff,
            slot.assignment,
            in_zone(SlotForm.from_slot(slot), as_staff.course.timezone, stored=True),
            slot,
            attempts=attempts,
        )
    form = in_zone(SlotForm(), as_staff.course.timezone)

    def update(spec: Any) -> Any:
        saved = editor.update_slot(
            current_user, assignment_id, index, spec, allow_lower=bool(form.allow_lower.data)
        )
        message = "Saved."
        if saved.regraded is not None:
            message += f" Regraded: {saved.regraded} attempts changed (see the audit log)."
        flash(message, "info")
        return redirect_to("instructor.edit_slot", assignment_id=assignment_id, index=index)

    return _slot_posted(as_staff, slot.assignment, form, slot, update, attempts)


@bp.post("/assignments/<int:assignment_id>/slots/<int:index>/delete")
def delete_slot(assignment_id: int, index: int) -> Any:
    if ActionForm().validate_on_submit():
        editor.delete_slot(current_user, assignment_id, index)
        flash(f"Exercise {index + 1} deleted with its attempts.", "info")
    return redirect_to("instructor.edit_assignment", assignment_id=assignment_id)


@bp.post("/assignments/<int:assignment_id>/slots/<int:index>/regrade")
def regrade_slot(assignment_id: int, index: int) -> Any:
    as_staff, _ = staff_for_slot(current_user, assignment_id, index, change=True)
    form = RegradeForm()
    if form.validate_on_submit():
        log = regrade.regrade_slot(
            current_user, assignment_id, index, allow_lower=bool(form.allow_lower.data)
        )
        flash(
            "No attempts to regrade."
            if log is None
            else f"Regraded {log.attempts_total} attempts: {log.attempts_changed} changed.",
            "info",
        )
    return redirect_to("instructor.audit", course_id=as_staff.course.id)


@bp.get("/assignments/<int:assignment_id>/slots/<int:index>/tree.test")
def export_tree(assignment_id: int, index: int) -> Any:
    text, name = editor.slot_tree_cs188(current_user, assignment_id, index)
    return Response(
        text,
        mimetype="text/plain",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )
