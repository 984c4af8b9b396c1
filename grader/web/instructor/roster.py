"""The roster: members added, imported, invited, given a role or removed, and the join code."""

from __future__ import annotations

from typing import Any

from flask import flash, render_template, request, url_for
from flask_login import current_user

from grader.ratelimits import limiter, setting
from grader.services import Invalid
from grader.services.courses import courses, extensions, roster, sign_in_links, zones
from grader.services.courses.staff import staff
from grader.web.forms import ActionForm
from grader.web.instructor.blueprint import bp, csv_response, flash_errors, redirect_to
from grader.web.instructor.deadlines_forms import GroupForm
from grader.web.instructor.roster_forms import ExpireForm, ImportForm, MemberForm, RoleForm


@bp.get("/courses/<int:course_id>/roster")
def roster_page(course_id: int) -> Any:
    return _roster_page(course_id, ImportForm())


def _roster_page(
    course_id: int,
    import_form: ImportForm,
    status: int = 200,
    sign_in: sign_in_links.SignInLink | None = None,
) -> Any:
    """The roster; a refused import comes back as typed, its errors beside it (`status`); the
    sign-in link just made is shown once (`sign_in`)."""
    as_staff, members = roster.roster(current_user, course_id)
    return render_template(
        "instructor/roster.html",
        staff=as_staff,
        course=as_staff.course,
        members=members,
        member_form=MemberForm(),
        import_form=import_form,
        role_form=RoleForm(),
        group_form=GroupForm(),
        extensions=extensions.listing(current_user, course_id),
        action=ActionForm(),
        sign_in=sign_in,
    ), status


def _link_key() -> str:
    return f"sign-in-link:{current_user.get_id()}"


def _student_key() -> str:
    return f"sign-in-link-for:{(request.view_args or {}).get('user_id')}"


@bp.post("/courses/<int:course_id>/roster/<int:user_id>/sign-in-link")
@limiter.limit(
    setting("GRADER_SIGN_IN_LINK_LIMIT"),
    key_func=_link_key,
    scope="sign-in-link",
    error_message="Too many sign-in links made: wait a while (see Retry-After).",
)
@limiter.limit(
    setting("GRADER_RESET_LIMIT"),
    key_func=_student_key,
    scope="sign-in-link-student",
    error_message="Too many sign-in links for this student: wait a while (see Retry-After).",
)
def sign_in_link(course_id: int, user_id: int) -> Any:
    """A single-use sign-in link for a student of the course (services/courses/sign_in_links):
    e-mailed to them, or shown here once to hand over."""
    if not ActionForm().validate_on_submit():
        return redirect_to("instructor.roster_page", course_id=course_id)
    made = sign_in_links.make(current_user, course_id, user_id, _reset_url)
    if made.link is None:
        flash(f"A sign-in link was e-mailed to {made.email}.", "info")
        return redirect_to("instructor.roster_page", course_id=course_id)
    return _roster_page(course_id, ImportForm(), 201, sign_in=made)


def _reset_url(token: str) -> str:
    return url_for("auth.reset_password", token=token, _external=True)


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
        flash_errors(form)
    return redirect_to("instructor.roster_page", course_id=course_id)


@bp.post("/courses/<int:course_id>/roster/import")
def import_roster(course_id: int) -> Any:
    form = ImportForm()
    if not form.validate_on_submit():
        flash_errors(form)
        return redirect_to("instructor.roster_page", course_id=course_id)
    upload = request.files.get("csv_file")
    text = (
        upload.read().decode("utf-8-sig", errors="replace")
        if upload and upload.filename
        else form.csv_text.data or ""
    )
    try:
        result = roster.import_students(current_user, course_id, text, url=_invite_url)
    except Invalid as error:
        form.csv_text.errors = [str(error)]
        return _roster_page(course_id, form, 422)
    if result.errors:  # nothing imported: the list back in its box, the bad rows beside it
        form.csv_text.data = text
        form.csv_text.errors = [
            "Nothing was imported; fix these rows and import again: " + "; ".join(result.errors)
        ]
        return _roster_page(course_id, form, 422)
    flash(f"Imported: {result.summary}.", "info")
    return redirect_to("instructor.roster_page", course_id=course_id)


def _invite_url(token: str) -> str:
    return url_for("auth.invite", token=token, _external=True)


@bp.post("/courses/<int:course_id>/roster/invites.csv")
def invite_links(course_id: int) -> Any:
    """Every pending invite link of the course, one a person, to hand out."""
    if not ActionForm().validate_on_submit():
        return redirect_to("instructor.roster_page", course_id=course_id)
    return csv_response(
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
    return redirect_to("instructor.roster_page", course_id=course_id)


@bp.post("/courses/<int:course_id>/roster/<int:user_id>/remove")
def remove_member(course_id: int, user_id: int) -> Any:
    if ActionForm().validate_on_submit():
        email = roster.remove_member(current_user, course_id, user_id)
        flash(
            f"{email} removed; their attempts are kept (a service administrator can erase "
            "the account).",
            "info",
        )
    return redirect_to("instructor.roster_page", course_id=course_id)


@bp.post("/courses/<int:course_id>/join-code")
def regenerate_join_code(course_id: int) -> Any:
    if ActionForm().validate_on_submit():
        code = roster.regenerate_join_code(current_user, course_id)
        flash(f"New join code: {code}. The old one no longer works.", "info")
    return redirect_to("instructor.course", course_id=course_id)


@bp.post("/courses/<int:course_id>/join-code/expire")
def expire_join_code(course_id: int) -> Any:
    form = ExpireForm()
    staff(current_user, course_id, change=True)  # the form may end here, before the service
    if not form.validate_on_submit():
        flash_errors(form)
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
    return redirect_to("instructor.course", course_id=course_id)
