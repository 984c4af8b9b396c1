"""The instructor dashboard's course pages: the dashboard's home, a new course, a course's page,
archiving it, its time zone, and its copy for the next term."""

from __future__ import annotations

from typing import Any

from flask import abort, flash, render_template, request
from flask_login import current_user

from grader.services import Conflict, Invalid, ServiceError, plural
from grader.services.courses import copying, courses, roster, zones
from grader.services.courses.staff import may_open_dashboard, staff, staff_courses
from grader.services.data import retention
from grader.web.forms import ActionForm, SelectChoice, in_zone
from grader.web.instructor.blueprint import bp, redirect_to, submitted
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


def _course_page(
    course_id: int, timezone_form: TimezoneForm | None = None, status: int = 200
) -> Any:
    """The course's page; a refused time zone comes back as typed, its error beside its field
    (`status` 422)."""
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
        timezone_form=timezone_form or TimezoneForm(timezone=course.timezone),
        zone_names=zones.zone_names(),
        slip_form=SlipDaysForm(slip_days=course.slip_days),
        purge_at=retention.purge_at(course),
        retention_days=retention.retention_days(),
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
    return _course_page(course_id, form, 422)


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
