"""The instructor dashboard's course pages: the dashboard's home, a new course, a course's page,
archiving it, its time zone, its slip days, its join code, and its copy for the next term."""

from __future__ import annotations

from typing import Any

from flask import abort, flash, render_template, request
from flask_login import current_user

from grader.services import Conflict, Invalid, ServiceError, plural
from grader.services.courses import copying, courses, roster, slip_days, zones
from grader.services.courses.staff import may_open_dashboard, staff, staff_courses
from grader.services.data import retention
from grader.web.forms import ActionForm, SelectChoice, in_zone, utc_from_zone
from grader.web.instructor.blueprint import bp, kept, redirect_to, submitted
from grader.web.instructor.courses_forms import (
    CopyAssignmentForm,
    CopyCourseForm,
    CourseForm,
    TimezoneForm,
)
from grader.web.instructor.deadlines_forms import SlipDaysForm
from grader.web.instructor.roster_forms import ExpireForm


@bp.get("/")
def home() -> Any:
    return _home(CourseForm())


def _home(form: CourseForm, status: int = 200) -> Any:
    """The dashboard's home; a refused new course comes back as typed, its errors beside its
    fields (`status` 422)."""
    if not may_open_dashboard(current_user):
        abort(403, "the instructor dashboard is for instructors and TAs")
    return render_template(
        "instructor/home.html",
        courses=staff_courses(current_user),
        form=form,
        can_create=current_user.is_instructor,
        zone_names=zones.zone_names(),
    ), status


@bp.post("/courses")
def create_course() -> Any:
    form = CourseForm()
    if form.validate_on_submit():
        try:
            course = courses.create_course(
                form.name.data or "",
                by=current_user,
                timezone=(form.timezone.data or "").strip() or None,
            )
        except Invalid as error:
            form.name.errors = [*form.name.errors, str(error)]
        else:
            flash(f"Course created. Its join code is {course.join_code}.", "info")
            return redirect_to("instructor.course", course_id=course.id)
    return _home(form, 422)


@bp.get("/courses/<int:course_id>")
def course(course_id: int) -> Any:
    return _course_page(course_id)


def _course_page(course_id: int, status: int = 200, **forms: Any) -> Any:
    """The course's page; `forms` in place of the empty ones (a refused form, as typed, its
    errors beside its fields, with `status` 422)."""
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
        zone_names=zones.zone_names(),
        purge_at=retention.purge_at(course),
        retention_days=retention.retention_days(),
        **{
            "expire_form": in_zone(ExpireForm(formdata=None), course.timezone),
            "timezone_form": TimezoneForm(formdata=None, timezone=course.timezone),
            "slip_form": SlipDaysForm(formdata=None, slip_days=course.slip_days),
            **forms,
        },
    ), status


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
                f"{zones.words(when, course.timezone)}.",
                "info",
            )
    return redirect_to("instructor.course", course_id=course_id)


@bp.post("/courses/<int:course_id>/timezone")
def set_timezone(course_id: int) -> Any:
    staff(current_user, course_id, change=True)
    form = TimezoneForm()
    if form.validate_on_submit():
        try:
            course = courses.set_timezone(course_id, form.timezone.data or "", by=current_user)
        except Invalid as error:
            form.timezone.errors = [*form.timezone.errors, str(error)]
        else:
            flash(f"The course's dates are shown and typed in {course.timezone} now.", "info")
            return redirect_to("instructor.course", course_id=course_id)
    return _course_page(course_id, 422, timezone_form=form)


@bp.post("/courses/<int:course_id>/slip-days")
def set_slip_days(course_id: int) -> Any:
    staff(current_user, course_id, change=True)
    form = SlipDaysForm()
    done = kept(
        form,
        lambda: slip_days.set_slip_days(current_user, course_id, form.slip_days.data or 0),
        lambda course: f"Each student has {plural(course.slip_days, 'slip day')}.",
    )
    if done is None:
        return _course_page(course_id, 422, slip_form=form)
    return redirect_to("instructor.course", course_id=course_id)


@bp.post("/courses/<int:course_id>/join-code")
def regenerate_join_code(course_id: int) -> Any:
    if ActionForm().validate_on_submit():
        code = roster.regenerate_join_code(current_user, course_id)
        flash(f"New join code: {code}. The old one no longer works.", "info")
    return redirect_to("instructor.course", course_id=course_id)


@bp.post("/courses/<int:course_id>/join-code/expire")
def expire_join_code(course_id: int) -> Any:
    zone = staff(current_user, course_id, change=True).course.timezone
    form = in_zone(ExpireForm(), zone)

    def expire() -> Any:
        if form.expires_at.data is None and form.now.data != "yes":
            # An empty date never closes the code by surprise: closing now has its own button.
            raise Invalid(
                "Choose the date and time at which the join code stops working.",
                field="expires_at",
            )
        return roster.expire_join_code(
            current_user, course_id, utc_from_zone(form.expires_at, zone)
        )

    done = kept(
        form,
        expire,
        lambda course: f"The join code expires {zones.words(course.join_code_expires_at, zone)}.",
    )
    if done is None:
        return _course_page(course_id, 422, expire_form=form)
    return redirect_to("instructor.course", course_id=course_id)


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


def _copy_page(
    course_id: int,
    forms: tuple[CopyCourseForm, CopyAssignmentForm],
    preview: list[copying.Moved] | None = None,
) -> Any:
    as_staff = staff(current_user, course_id, change=True)
    return render_template(
        "instructor/copy.html",
        staff=as_staff,
        course=as_staff.course,
        form=forms[0],
        one=forms[1],
        first_due=copying.first_due(as_staff.course),
        preview=preview,
    )


@bp.route("/courses/<int:course_id>/copy", methods=["GET", "POST"])
def copy_course(course_id: int) -> Any:
    """The next term: the course copied into a new offering, its dates moved."""
    forms = _copy_forms(course_id)
    form = forms[0]

    zone = staff(current_user, course_id).course.timezone
    if form.preview.data:  # the new dates shown; nothing made
        preview = submitted(
            form,
            lambda: copying.preview(current_user, course_id, **form.how_dates_move(zone)),
            lambda moved: "Nothing is copied yet: the new dates are below.",
            refused=ServiceError,
        )
        return _copy_page(course_id, forms, preview)

    def copy() -> copying.Copied:
        return copying.copy_course(
            current_user, course_id, form.name.data or "", **form.how_dates_move(zone)
        )

    copied = submitted(
        form,
        copy,
        lambda copied: (
            f"Copied into {copied.course.name}: {plural(copied.assignments, 'assignment')}, "
            f"{plural(copied.slots, 'exercise')}, dates moved by "
            f"{copying.offset_words(copied.offset)}. Its join code is "
            f"{copied.course.join_code}; place its LMS links again by deep linking."
        ),
        refused=ServiceError,
    )
    if copied is not None:
        return redirect_to("instructor.course", course_id=copied.course.id)
    return _copy_page(course_id, forms)


@bp.post("/courses/<int:course_id>/copy-assignment")
def copy_assignment(course_id: int) -> Any:
    """One assignment copied into another course the instructor teaches."""
    forms = _copy_forms(course_id)
    one = forms[1]
    copied = submitted(
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
        return redirect_to("instructor.edit_assignment", assignment_id=copied.id)
    return _copy_page(course_id, forms)
