"""Server-rendered pages: dashboard, assignments, the exercise page, practice, attempts."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, session, url_for
from flask_login import current_user, login_required
from flask_wtf.csrf import generate_csrf

from grader.models import Exercise
from grader.services import Busy, RateLimited, ServiceError, accounts
from grader.services.courses import calendar, courses, deadlines, header, invites, slip_days, staff
from grader.services.teaching import regrade_choice, scores
from grader.services.trees import attempts, exercises
from grader.web.forms import ActionForm, JoinForm, PracticeForm
from grader.web.slot_pages import slot_url

bp = Blueprint("pages", __name__)
PRACTICE_SETTINGS = "practice_settings"


@bp.before_request
@login_required
def _signed_in() -> None:
    """Every page here needs a signed-in user."""


def landing_url() -> str:
    """Where a signed-in person starts: staff on their courses, students on their dashboard."""
    if staff.may_open_dashboard(current_user):
        return url_for("instructor.home")
    return url_for("pages.dashboard")


@bp.get("/")
def index() -> Any:
    return redirect(landing_url())


@bp.get("/dashboard")
def dashboard() -> Any:
    page = scores.dashboard(current_user)
    return render_template(
        "dashboard.html",
        teaching=page.teaching,
        memberships=page.memberships,
        invitations=page.invitations,
        assignments=page.assignments,
        progress=page.progress,
        score_notes=regrade_choice.notes(current_user),
        dues=deadlines.dues(current_user.id, page.assignments),
        slips=slip_days.slip_standing(current_user.id, page.assignments),
        calendar_url=url_for(
            "site.calendar_feed",
            user_id=current_user.id,
            token=calendar.feed_token(current_user),
            _external=True,
        ),
        join_form=JoinForm(),
        action=ActionForm(),
    )


@bp.post("/calendar/reset")
def reset_calendar() -> Any:
    """A new secret URL for the calendar feed; the old one stops working."""
    if ActionForm().validate_on_submit():
        calendar.reset(current_user)
        flash("Your calendar feed has a new address; the old one no longer works.", "info")
    return redirect(url_for("pages.dashboard") + "#calendar")


@bp.post("/invitations/<int:course_id>/accept")
def accept_invitation(course_id: int) -> Any:
    """The signed-in account accepts its own invitation to a student membership (the same as
    opening its link); a staff role only through its link."""
    if ActionForm().validate_on_submit():
        course = invites.accept_offered(current_user, course_id)
        flash(f"Welcome to {course.name}.", "info")
    return redirect(url_for("pages.dashboard"))


@bp.post("/invitations/<int:course_id>/decline")
def decline_invitation(course_id: int) -> Any:
    if ActionForm().validate_on_submit():
        course = invites.decline(current_user, course_id)
        flash(f"You declined the invitation to {course.name}.", "info")
    return redirect(url_for("pages.dashboard"))


@bp.post("/courses/join")
def join_course() -> Any:
    form = JoinForm()
    if form.validate_on_submit():
        try:
            course = accounts.join_course(current_user.id, form.join_code.data or "")
        except ServiceError as error:
            flash(str(error), "error")
        else:
            flash(f"You joined {course.name}.", "info")
    return redirect(url_for("pages.dashboard"))


@bp.get("/assignments/<int:assignment_id>")
def assignment(assignment_id: int) -> Any:
    assignment = courses.get_assignment(current_user, assignment_id)
    progress = scores.student_slot_states(current_user.id, [assignment])
    dues = deadlines.dues(current_user.id, [assignment])
    slips = slip_days.slip_standing(current_user.id, [assignment])
    return render_template(
        "assignment.html", assignment=assignment, progress=progress, dues=dues, slips=slips
    )


def _exercise_page(exercise: Exercise) -> Any:
    data = exercises.to_api(exercise)
    page = {
        "exercise_id": exercise.id,
        "kind": exercise.kind,
        "exercise_url": url_for("api.get_exercise", exercise_id=exercise.id),
        "attempts_url": url_for("api.submit_attempt", exercise_id=exercise.id),
        "list_attempts_url": url_for("api.list_attempts", exercise_id=exercise.id),
        "attempt_url_template": url_for("api.get_attempt", attempt_id=0)[:-1] + "{id}",
        "csrf_token": generate_csrf(),
        "replay_allowed": data["replay_allowed"],
    }
    is_owner = exercise.owner_id == current_user.id
    return render_template(
        "exercise.html",
        exercise=data,
        page=page,
        variant_form=ActionForm(),
        is_owner=is_owner,
        # One click for another tree: generated practice, or a slot that allows practice.
        another=is_owner
        and (exercise.params is not None if exercise.slot_id is None else data["practice_allowed"]),
        preview=attempts.practice_replay(exercise) if is_owner else None,
        place=exercises.slot_place(exercise),
        # Its owner reports a problem with a course's exercise (a slot's) to its staff.
        report_slot=exercise.slot if is_owner and exercise.slot_id is not None else None,
        page_course_id=exercise.slot.assignment.course_id if exercise.slot is not None else None,
    )


@bp.get("/assignments/<int:assignment_id>/slots/<int:index>")
def slot(assignment_id: int, index: int) -> Any:
    found = courses.get_slot(current_user, assignment_id, index)
    if not found.slot_kind.has_exercise:  # its own page
        return redirect(slot_url(found))
    return _exercise_page(exercises.slot_exercise(current_user, assignment_id, index))


@bp.get("/exercises/<int:exercise_id>")
def exercise(exercise_id: int) -> Any:
    return _exercise_page(exercises.get_exercise(current_user, exercise_id))


@bp.post("/exercises/<int:exercise_id>/another")
def another(exercise_id: int) -> Any:
    if not ActionForm().validate_on_submit():
        return redirect(url_for("pages.exercise", exercise_id=exercise_id))
    created = exercises.another_like(current_user, exercise_id)
    return redirect(url_for("pages.exercise", exercise_id=created.id))


@bp.route("/practice", methods=["GET", "POST"])
def practice() -> Any:
    # The last settings used come back on the next visit (kept in the signed session cookie).
    form = PracticeForm(data=session.get(PRACTICE_SETTINGS) if request.method == "GET" else None)
    if form.validate_on_submit():
        try:
            created = exercises.create_practice(current_user, **form.practice_args())
        except (Busy, RateLimited):
            raise  # the error page, 503 or 429 with Retry-After: the form was not at fault
        except ServiceError as error:
            flash(str(error), "error")
        else:
            session[PRACTICE_SETTINGS] = {
                name: field.data
                for name, field in form._fields.items()
                if name not in ("csrf_token", "nested", "leaves")
            }
            return redirect(url_for("pages.exercise", exercise_id=created.id))
    status = 400 if request.method == "POST" else 200
    return render_template("practice.html", form=form), status


@bp.get("/attempts")
def attempt_list() -> Any:
    return render_template("attempts.html", shown=attempts.shown_attempts(current_user))


@bp.app_context_processor
def _header() -> dict[str, Any]:
    """`page_header(page_course_id)` for base.html: the staff link and the role in the page's
    course, the one its address names (a course's or an assignment's), else the one its view
    found from the object it shows (`page_course_id`: an upload, an exercise, a tournament)."""

    def page_header(page_course_id: int | None = None) -> header.Header | None:
        if not current_user.is_authenticated:
            return None
        args = request.view_args or {}
        course_id, assignment_id = args.get("course_id"), args.get("assignment_id")
        return header.header(
            current_user,
            course_id if isinstance(course_id, int) else page_course_id,
            assignment_id if isinstance(assignment_id, int) else None,
        )

    return {"page_header": page_header, "role_words": header.ROLE_WORDS}
