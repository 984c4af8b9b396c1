"""The instructor dashboard (/instructor): thin views over the roster, editor, gradebook,
stats and regrade services, which check who may do what (its JSON API is web/api/instructor.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_login import current_user, login_required

from grader.gametree import KINDS
from grader.gametree.kinds import error_rule
from grader.gametree.variants import ALL_VARIANTS
from grader.models import Slot
from grader.services import Conflict, Invalid, ServiceError
from grader.services.courses import (
    accommodations,
    copying,
    courses,
    extensions,
    groups,
    roster,
    slip_days,
    zones,
)
from grader.services.courses.staff import (
    may_open_dashboard,
    staff,
    staff_courses,
    staff_for_assignment,
    staff_for_slot,
)
from grader.services.data import retention
from grader.services.engines import submissions
from grader.services.teaching import editor, gradebook, regrade, stats
from grader.services.trees import exercises
from grader.web import charts
from grader.web.forms import ActionForm, SelectChoice
from grader.web.instructor_forms import (
    AccommodationsForm,
    AssignmentForm,
    CopyAssignmentForm,
    CopyCourseForm,
    CourseForm,
    EngineSlotForm,
    ExpireForm,
    ExtensionForm,
    GroupForm,
    ImportForm,
    MemberForm,
    RegradeForm,
    RoleForm,
    SlipDaysForm,
    SlotForm,
    TimezoneForm,
    in_zone,
)
from grader.web.slot_pages import slot_url
from grader.web.words import misconception_name

bp = Blueprint("instructor", __name__, url_prefix="/instructor")

T = TypeVar("T")


@bp.before_request
@login_required
def _signed_in() -> None:
    """Every dashboard page needs a signed-in user; the services check the course role."""


def _back(endpoint: str, **values: Any) -> Any:
    return redirect(url_for(endpoint, **values))


def _flash_errors(form: Any) -> None:
    for name, errors in form.errors.items():
        label = getattr(form, name).label.text if hasattr(form, name) else name
        for error in errors:
            flash(f"{label}: {error}", "error")


def _submitted(
    form: Any,
    change: Callable[[], T],
    words: Callable[[T], str],
    refused: type[ServiceError] = Invalid,
) -> T | None:
    """The change a valid `form` asks for, its `words` flashed; None when the form's errors or
    the service's refusal were flashed instead (nothing changed then)."""
    if not form.validate_on_submit():
        _flash_errors(form)
        return None
    try:
        done = change()
    except refused as error:
        flash(str(error), "error")
        return None
    flash(words(done), "info")
    return done


# -- courses and rosters ---------------------------------------------------------------------


@bp.get("/")
def home() -> Any:
    if not may_open_dashboard(current_user):
        abort(403, "the instructor dashboard is for instructors and TAs")
    return render_template(
        "instructor/home.html",
        courses=staff_courses(current_user),
        form=CourseForm(),
        can_create=current_user.is_instructor,
    )


@bp.post("/courses")
def create_course() -> Any:
    form = CourseForm()
    course = _submitted(
        form,
        lambda: courses.create_course(
            form.name.data or "",
            by=current_user,
            timezone=(form.timezone.data or "").strip() or None,
        ),
        lambda course: f"Course created. Its join code is {course.join_code}.",
    )
    if course is None:
        return _back("instructor.home")
    return _back("instructor.course", course_id=course.id)


@bp.get("/courses/<int:course_id>")
def course(course_id: int) -> Any:
    as_staff, members = roster.roster(current_user, course_id)
    course = courses.find_course(course_id)
    return render_template(
        "instructor/course.html",
        staff=as_staff,
        course=course,
        assignments=course.assignments,
        members=members,
        join_open=roster.join_code_open(course),
        action=ActionForm(),
        expire_form=in_zone(ExpireForm(), course.timezone),
        timezone_form=TimezoneForm(timezone=course.timezone),
        slip_form=SlipDaysForm(slip_days=course.slip_days),
        purge_at=retention.purge_at(course),
        retention_days=retention.retention_days(),
    )


@bp.get("/courses/<int:course_id>/roster")
def roster_page(course_id: int) -> Any:
    as_staff, members = roster.roster(current_user, course_id)
    return render_template(
        "instructor/roster.html",
        staff=as_staff,
        course=as_staff.course,
        members=members,
        member_form=MemberForm(),
        import_form=ImportForm(),
        role_form=RoleForm(),
        group_form=GroupForm(),
        extensions=extensions.listing(current_user, course_id),
        action=ActionForm(),
    )


@bp.post("/courses/<int:course_id>/roster")
def add_member(course_id: int) -> Any:
    form = MemberForm()
    if form.validate_on_submit():
        what = roster.add_member(
            current_user,
            course_id,
            form.email.data or "",
            form.role.data,
            form.name.data,
            url=_invite_url,
        )
        flash(f"{form.email.data}: {what}.", "info")
    else:
        _flash_errors(form)
    return _back("instructor.roster_page", course_id=course_id)


@bp.post("/courses/<int:course_id>/roster/import")
def import_roster(course_id: int) -> Any:
    form = ImportForm()
    if not form.validate_on_submit():
        _flash_errors(form)
        return _back("instructor.roster_page", course_id=course_id)
    upload = request.files.get("csv_file")
    text = (
        upload.read().decode("utf-8-sig", errors="replace")
        if upload and upload.filename
        else form.csv_text.data or ""
    )
    result = roster.import_students(current_user, course_id, text, url=_invite_url)
    flash(f"Imported: {result.summary}.", "info")
    for error in result.errors[:20]:
        flash(error, "error")
    return _back("instructor.roster_page", course_id=course_id)


def _invite_url(token: str) -> str:
    return url_for("auth.invite", token=token, _external=True)


@bp.post("/courses/<int:course_id>/roster/invites.csv")
def invite_links(course_id: int) -> Any:
    """Every pending invite link of the course, one a person, to hand out."""
    if not ActionForm().validate_on_submit():
        return _back("instructor.roster_page", course_id=course_id)
    return _csv(
        roster.invite_links(current_user, course_id, _invite_url), f"invites-{course_id}.csv"
    )


@bp.post("/courses/<int:course_id>/roster/<int:user_id>/role")
def set_role(course_id: int, user_id: int) -> Any:
    form = RoleForm()
    if form.validate_on_submit():
        what = roster.set_role(current_user, course_id, user_id, form.role.data)
        flash(
            {
                "invited": "Invited: the role is given when the account accepts its invite "
                "(download the invite links to hand it out).",
                "unchanged": "The role was already so.",
            }.get(what, "Role changed."),
            "info",
        )
    return _back("instructor.roster_page", course_id=course_id)


@bp.post("/courses/<int:course_id>/roster/<int:user_id>/remove")
def remove_member(course_id: int, user_id: int) -> Any:
    if ActionForm().validate_on_submit():
        email = roster.remove_member(current_user, course_id, user_id)
        flash(
            f"{email} removed; their attempts are kept (a service administrator can erase "
            "the account).",
            "info",
        )
    return _back("instructor.roster_page", course_id=course_id)


@bp.post("/courses/<int:course_id>/archive")
def archive_course(course_id: int) -> Any:
    """Archives the course (read-only, its students' data purged later), or reopens it."""
    if ActionForm().validate_on_submit():
        reopen = request.form.get("reopen") == "yes"
        try:
            course = retention.archive(current_user, course_id, not reopen)
        except Conflict as error:  # purged already; a refusal of the person is the error page
            flash(str(error), "error")
        else:
            when = retention.purge_at(course)
            flash(
                f"{course.name} is open again: it takes attempts and uploads."
                if when is None
                else f"{course.name} is archived: read-only. Its students' data is purged on "
                f"{when:%Y-%m-%d} (UTC).",
                "info",
            )
    return _back("instructor.course", course_id=course_id)


@bp.post("/courses/<int:course_id>/join-code")
def regenerate_join_code(course_id: int) -> Any:
    if ActionForm().validate_on_submit():
        code = roster.regenerate_join_code(current_user, course_id)
        flash(f"New join code: {code}. The old one no longer works.", "info")
    return _back("instructor.course", course_id=course_id)


@bp.post("/courses/<int:course_id>/join-code/expire")
def expire_join_code(course_id: int) -> Any:
    form = ExpireForm()
    staff(current_user, course_id, change=True)  # the form may end here, before the service
    if not form.validate_on_submit():
        _flash_errors(form)
    elif form.expires_at.data is None and form.now.data != "yes":
        # An empty date never closes the code by surprise: closing now has its own confirmation.
        flash("Choose the date and time at which the join code stops working.", "error")
    else:
        zone = courses.find_course(course_id).timezone
        try:
            at = zones.to_utc(form.expires_at.data, zone) if form.expires_at.data else None
            course = roster.expire_join_code(current_user, course_id, at)
        except Invalid as error:
            flash(str(error), "error")
        else:
            flash(
                f"The join code expires {zones.words(course.join_code_expires_at, zone)}.", "info"
            )
    return _back("instructor.course", course_id=course_id)


@bp.post("/courses/<int:course_id>/slip-days")
def set_slip_days(course_id: int) -> Any:
    staff(current_user, course_id, change=True)
    form = SlipDaysForm()
    _submitted(
        form,
        lambda: slip_days.set_slip_days(current_user, course_id, form.slip_days.data or 0),
        lambda course: f"Each student has {course.slip_days} slip days.",
    )
    return _back("instructor.course", course_id=course_id)


@bp.post("/courses/<int:course_id>/timezone")
def set_timezone(course_id: int) -> Any:
    staff(current_user, course_id, change=True)
    form = TimezoneForm()
    _submitted(
        form,
        lambda: courses.set_timezone(course_id, form.timezone.data or "", by=current_user),
        lambda course: f"The course's dates are shown and typed in {course.timezone} now.",
    )
    return _back("instructor.course", course_id=course_id)


# -- the assignment editor -----------------------------------------------------------------------


def _copy_forms(course_id: int) -> tuple[CopyCourseForm, CopyAssignmentForm]:
    as_staff = staff(current_user, course_id, change=True)
    one = CopyAssignmentForm(prefix="one")
    one.assignment.choices = [SelectChoice(str(a.id), a.title) for a in as_staff.course.assignments]
    one.target.choices = [
        SelectChoice(str(c.id), c.name)
        for c in copying.taught_courses(current_user)
        if c.id != course_id
    ]
    return in_zone(CopyCourseForm(prefix="course"), as_staff.course.timezone), one


def _copy_page(course_id: int, forms: tuple[CopyCourseForm, CopyAssignmentForm]) -> Any:
    as_staff = staff(current_user, course_id, change=True)
    return render_template(
        "instructor/copy.html",
        staff=as_staff,
        course=as_staff.course,
        form=forms[0],
        one=forms[1],
        first_due=copying.first_due(as_staff.course),
    )


@bp.route("/courses/<int:course_id>/copy", methods=["GET", "POST"])
def copy_course(course_id: int) -> Any:
    """The next term: the course copied into a new offering, its dates moved."""
    forms = _copy_forms(course_id)
    form = forms[0]

    def copy() -> copying.Copied:
        by_days = form.how.data == "shift"
        zone = staff(current_user, course_id).course.timezone
        return copying.copy_course(
            current_user,
            course_id,
            form.name.data or "",
            shift_days=(form.shift_days.data or 0) if by_days else None,
            first_due_at=None if by_days else form.first_due_at(zone),
        )

    copied = _submitted(
        form,
        copy,
        lambda copied: (
            f"Copied into {copied.course.name}: {copied.assignments} assignment(s), "
            f"{copied.slots} exercise(s), dates moved by "
            f"{copying.offset_words(copied.offset)}. Its join code is "
            f"{copied.course.join_code}; place its LMS links again by deep linking."
        ),
        refused=ServiceError,
    )
    if copied is not None:
        return _back("instructor.course", course_id=copied.course.id)
    return _copy_page(course_id, forms)


@bp.post("/courses/<int:course_id>/copy-assignment")
def copy_assignment(course_id: int) -> Any:
    """One assignment copied into another course the instructor teaches."""
    forms = _copy_forms(course_id)
    one = forms[1]
    copied = _submitted(
        one,
        lambda: copying.copy_assignment(
            current_user,
            int(one.assignment.data or 0),
            int(one.target.data or 0),
            shift_days=one.shift_days.data or 0,
        ),
        lambda copied: f"Copied {copied.title} into {copied.course.name}.",
        refused=ServiceError,
    )
    if copied is not None:
        return _back("instructor.edit_assignment", assignment_id=copied.id)
    return _copy_page(course_id, forms)


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
            return _back("instructor.edit_assignment", assignment_id=made.id)
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
            return _back("instructor.edit_assignment", assignment_id=assignment_id)
    return render_template(
        "instructor/assignment_form.html",
        staff=as_staff,
        course=as_staff.course,
        form=form,
        assignment=assignment,
        action=ActionForm(),
        engine_form=_engine_form(),
        suites=submissions.engine_suites(),
        released=courses.is_released(assignment),
        extensions=extensions.listing(current_user, as_staff.course.id, assignment_id),
        **extension_forms(assignment, as_staff.course.timezone),
    )


def _engine_form() -> EngineSlotForm:
    form = EngineSlotForm()
    form.suite.choices = [SelectChoice(name) for name in submissions.engine_suites()]
    return form


@bp.post("/assignments/<int:assignment_id>/slots/engine")
def add_engine_slot(assignment_id: int) -> Any:
    staff_for_assignment(current_user, assignment_id, change=True)
    form = _engine_form()
    _submitted(
        form,
        lambda: submissions.add_engine_slot(
            assignment_id, suite=form.suite.data, title=form.title.data, user=current_user
        ),
        lambda made: (
            f"Exercise {made.index + 1} added: a checkers engine, graded with the "
            f"{form.suite.data} suite."
        ),
    )
    return _back("instructor.edit_assignment", assignment_id=assignment_id)


@bp.post("/assignments/<int:assignment_id>/delete")
def delete_assignment(assignment_id: int) -> Any:
    as_staff, _ = staff_for_assignment(current_user, assignment_id, change=True)
    if ActionForm().validate_on_submit():
        title = editor.delete_assignment(current_user, assignment_id)
        flash(f"Deleted {title} with its attempts.", "info")
    return _back("instructor.course", course_id=as_staff.course.id)


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
        return _back("instructor.edit_assignment", assignment_id=assignment_id)

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
        _flash_errors(form)
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
        return _back("instructor.edit_slot", assignment_id=assignment_id, index=index)

    return _slot_posted(as_staff, slot.assignment, form, slot, update, attempts)


@bp.post("/assignments/<int:assignment_id>/slots/<int:index>/delete")
def delete_slot(assignment_id: int, index: int) -> Any:
    if ActionForm().validate_on_submit():
        editor.delete_slot(current_user, assignment_id, index)
        flash(f"Exercise {index + 1} deleted with its attempts.", "info")
    return _back("instructor.edit_assignment", assignment_id=assignment_id)


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
    return _back("instructor.audit", course_id=as_staff.course.id)


@bp.get("/assignments/<int:assignment_id>/slots/<int:index>/tree.test")
def export_tree(assignment_id: int, index: int) -> Any:
    text, name = editor.slot_tree_cs188(current_user, assignment_id, index)
    return Response(
        text,
        mimetype="text/plain",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


# -- extensions and accommodations --------------------------------------------------------------


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
    _submitted(
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


@bp.post("/assignments/<int:assignment_id>/extensions/import")
def import_accommodations(assignment_id: int) -> Any:
    staff_for_assignment(current_user, assignment_id, change=True)  # before the form is read
    form = AccommodationsForm()
    if form.validate_on_submit():
        try:
            outcome = accommodations.import_accommodations(
                current_user, assignment_id, form.csv_text.data or ""
            )
        except ServiceError as error:
            flash(str(error), "error")
        else:
            if outcome.errors:
                flash(
                    "Nothing was applied; fix these rows and import again: "
                    + "; ".join(outcome.errors),
                    "error",
                )
            else:
                flash(f"{outcome.applied} extensions granted.", "info")
    else:
        _flash_errors(form)
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
    _submitted(
        form,
        lambda: groups.set_group(
            current_user, course_id, form.name.data or "", (form.emails.data or "").split()
        ),
        lambda count: f"The group {form.name.data} has {count} students.",
        refused=ServiceError,
    )
    return redirect(url_for("instructor.roster_page", course_id=course_id) + "#extensions")


# -- gradebook, statistics, misconceptions, audit ---------------------------------------------


@bp.get("/courses/<int:course_id>/gradebook")
def gradebook_page(course_id: int) -> Any:
    as_staff, book = gradebook.gradebook(current_user, course_id)
    return render_template(
        "instructor/gradebook.html", staff=as_staff, course=as_staff.course, book=book
    )


@bp.get("/courses/<int:course_id>/gradebook.csv")
def gradebook_download(course_id: int) -> Any:
    return _csv(*gradebook.gradebook_csv(current_user, course_id))


def _csv(text: str, name: str) -> Response:
    return Response(
        text, mimetype="text/csv", headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


@bp.get("/courses/<int:course_id>/students/<int:user_id>")
def student(course_id: int, user_id: int) -> Any:
    as_staff, person, assignments = gradebook.student_attempts(current_user, course_id, user_id)
    return render_template(
        "instructor/student.html",
        staff=as_staff,
        course=as_staff.course,
        student=person,
        assignments=assignments,
        kinds=KINDS,
        labels_for=lambda e: exercises.tree_of(e).labels(),
    )


@bp.get("/courses/<int:course_id>/statistics")
def statistics_page(course_id: int) -> Any:
    as_staff, by_assignment = stats.statistics(current_user, course_id)
    histograms = {
        s.slot_id: charts.column_chart(
            f"Scores on {a.title}: {s.index + 1}. {s.title}",
            stats.histogram_labels(),
            s.histogram,
            x_label="slot score (best or last attempt)",
            y_label="students",
        )
        for a, slots in by_assignment
        for s in slots
    }
    return render_template(
        "instructor/statistics.html",
        staff=as_staff,
        course=as_staff.course,
        assignments=by_assignment,
        histograms=histograms,
        labels=stats.histogram_labels(),
    )


@bp.get("/courses/<int:course_id>/misconceptions")
def misconceptions_page(course_id: int) -> Any:
    as_staff, assignments, counts = stats.misconceptions(current_user, course_id)
    codes = counts.codes
    names = [misconception_name(c) for c in codes]  # the codes themselves show on hover
    overall = charts.horizontal_bars(
        "Wrong answers by misconception, whole course",
        names,
        [counts.total.get(c, 0) for c in codes],
        x_label="wrong attempts",
        y_label="misconception",
    )
    per_assignment = {
        a.id: charts.horizontal_bars(
            f"Wrong answers by misconception: {a.title}",
            names,
            [counts.by_assignment.get(a.id, Counter()).get(c, 0) for c in codes],
            x_label="wrong attempts",
            y_label="misconception",
        )
        for a in assignments
    }
    weeks = sorted(counts.by_week)
    over_time = charts.stacked_columns(
        "Wrong answers by misconception, per week",
        weeks,
        {
            misconception_name(c): [counts.by_week[w].get(c, 0) for w in weeks]
            for c in codes
            if any(counts.by_week[w].get(c, 0) for w in weeks)
        },
        x_label="ISO week",
        y_label="wrong attempts",
    )
    return render_template(
        "instructor/misconceptions.html",
        staff=as_staff,
        course=as_staff.course,
        assignments=assignments,
        misconceptions=counts,
        overall=overall,
        overall_values=[counts.total.get(c, 0) for c in codes],
        per_assignment=per_assignment,
        over_time=over_time,
        weeks=weeks,
    )


@bp.get("/courses/<int:course_id>/audit")
def audit(course_id: int) -> Any:
    as_staff = staff(current_user, course_id)
    logs = regrade.audit_log(current_user, course_id)
    people = regrade.emails({d["user_id"] for log in logs for d in log.details})
    return render_template(
        "instructor/audit.html", staff=as_staff, course=as_staff.course, logs=logs, people=people
    )


__all__ = ["bp"]
