"""The roster: members added, imported, invited, given a role or removed; named groups."""

from __future__ import annotations

from typing import Any

from flask import flash, redirect, render_template, request, url_for
from flask_login import current_user

from grader.ratelimits import limiter, setting
from grader.services import plural
from grader.services.courses import extensions, groups, roster, sign_in_links
from grader.services.courses.staff import staff
from grader.web.forms import ActionForm, refuse_bad_rows
from grader.web.instructor.blueprint import bp, csv_response, kept, redirect_to
from grader.web.instructor.deadlines_forms import GroupForm
from grader.web.instructor.roster_forms import ImportForm, MemberForm, RoleForm


@bp.get("/courses/<int:course_id>/roster")
def roster_page(course_id: int) -> Any:
    return _roster_page(course_id)


def _roster_page(
    course_id: int,
    status: int = 200,
    sign_in: sign_in_links.SignInLink | None = None,
    **forms: Any,
) -> Any:
    """The roster; `forms` in place of the empty ones (a refused form, as typed, its errors
    beside its fields, with `status` 422); the sign-in link just made is shown once
    (`sign_in`)."""
    as_staff, members = roster.roster(current_user, course_id)
    return render_template(
        "instructor/roster.html",
        staff=as_staff,
        course=as_staff.course,
        members=members,
        role_form=RoleForm(formdata=None),
        extensions=extensions.listing(current_user, course_id),
        action=ActionForm(),
        sign_in=sign_in,
        **{
            "member_form": MemberForm(formdata=None),
            "import_form": ImportForm(formdata=None),
            "group_form": GroupForm(formdata=None),
            **forms,
        },
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
    return _roster_page(course_id, 201, sign_in=made)


def _reset_url(token: str) -> str:
    return url_for("auth.reset_password", token=token, _external=True)


@bp.post("/courses/<int:course_id>/roster")
def add_member(course_id: int) -> Any:
    staff(current_user, course_id, change=True)
    form = MemberForm()

    def add() -> str:
        return roster.add_member(
            current_user,
            course_id,
            form.email.data or "",
            form.role.data,
            form.name.data,
            url=_invite_url,
        )

    if kept(form, add, lambda what: f"{form.email.data}: {what}.") is None:
        return _roster_page(course_id, 422, member_form=form)
    return redirect_to("instructor.roster_page", course_id=course_id)


@bp.post("/courses/<int:course_id>/roster/import")
def import_roster(course_id: int) -> Any:
    """A CSV of students: all of it imported, or (any bad row) none of it, the list then back
    in its box as typed, each bad row named beside it."""
    staff(current_user, course_id, change=True)
    form = ImportForm()

    def import_students() -> roster.ImportResult:
        upload = request.files.get("csv_file")
        if upload and upload.filename:  # a file's text is the list, shown in the box if refused
            form.csv_text.data = upload.read().decode("utf-8-sig", errors="replace")
        result = roster.import_students(
            current_user, course_id, form.csv_text.data or "", url=_invite_url
        )
        refuse_bad_rows(result.errors, "imported")
        return result

    done = kept(
        form,
        import_students,
        lambda result: f"Imported: {result.summary}.",
        fields={"text": "csv_text"},
    )
    if done is None:
        return _roster_page(course_id, 422, import_form=form)
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


@bp.post("/courses/<int:course_id>/groups")
def set_group(course_id: int) -> Any:
    staff(current_user, course_id, change=True)
    form = GroupForm()
    done = kept(
        form,
        lambda: groups.set_group(
            current_user, course_id, form.name.data or "", (form.emails.data or "").split()
        ),
        lambda count: f"The group {form.name.data} has {plural(count, 'student')}.",
    )
    if done is None:
        return _roster_page(course_id, 422, group_form=form)
    return redirect(url_for("instructor.roster_page", course_id=course_id) + "#extensions")
