"""The JSON API under /api: the same services the pages use. Bearer token or session (+CSRF)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, g, jsonify, request, url_for
from flask_login import current_user

from grader.extensions import csrf
from grader.models import ENGINE_KIND, iso_utc
from grader.models import Assignment as AssignmentModel
from grader.models import Exercise as ExerciseModel
from grader.services import accounts, attempts, courses, exercises
from grader.web import schemas
from grader.web.openapi import Api, error_response

bp = Blueprint("api", __name__, url_prefix="/api")
api = Api(bp, title="Alpha-Beta Grader API", version="1")
csrf.exempt(bp)  # checked below for session requests only; Bearer requests carry no cookie risk

_SAFE = {"GET", "HEAD", "OPTIONS"}


@bp.before_request
def authenticate() -> Any:
    """`g.user` from `Authorization: Bearer TOKEN`, else from the session (with CSRF on writes)."""
    if api.is_public(request.endpoint):
        return None
    header = request.headers.get("Authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        user = accounts.user_for_token(token.strip()) if scheme.lower() == "bearer" else None
        if user is None:
            return error_response(401, "the API token is not valid")
        g.user = user
        return None
    if not current_user.is_authenticated:
        return error_response(401, "sign in, or send Authorization: Bearer TOKEN")
    if request.method not in _SAFE:
        csrf.protect()
    g.user = current_user._get_current_object()
    return None


def _exercise(exercise: ExerciseModel) -> schemas.Exercise:
    data = exercises.describe(exercise)
    urls = {
        "self": url_for("api.get_exercise", exercise_id=exercise.id),
        "attempts": url_for("api.submit_attempt", exercise_id=exercise.id),
        "list_attempts": url_for("api.list_attempts", exercise_id=exercise.id),
        "page": url_for("pages.exercise", exercise_id=exercise.id),
    }
    if data["practice_allowed"] and data["assignment_id"] is not None:
        urls["new_variant"] = url_for("api.new_variant", assignment_id=data["assignment_id"],
                                      index=data["slot_index"])
    return schemas.Exercise(**data, urls=urls)


def _slot_urls(assignment: AssignmentModel, index: int, kind: str) -> dict[str, str]:
    """An exercise slot's exercise, or an engine slot's upload (an engine slot has no exercise)."""
    urls = {"page": url_for("pages.slot", assignment_id=assignment.id, index=index)}
    if kind == ENGINE_KIND:
        urls["upload"] = url_for("api.upload_engine")
    else:
        urls["exercise"] = url_for("api.slot_exercise", assignment_id=assignment.id, index=index)
    return urls


def _assignment(assignment: AssignmentModel) -> schemas.Assignment:
    return schemas.Assignment(
        id=assignment.id, title=assignment.title, course_id=assignment.course_id,
        course=assignment.course.name, preset=assignment.preset, due_at=iso_utc(assignment.due_at),
        slots=[schemas.Slot(
            index=s.index, title=s.title, kind=s.kind, attempts_allowed=s.attempts_allowed,
            practice_allowed=s.practice_allowed, replay_allowed=s.replay_allowed,
            due_at=iso_utc(s.effective_due_at),
            urls=_slot_urls(assignment, s.index, s.kind))
            for s in assignment.slots])


@api.route("GET", "/ping", summary="No-op (the load benchmark's ceiling)", tag="service",
           response=schemas.Status, public=True)
def ping() -> schemas.Status:
    return schemas.Status(status="ok")


@api.route("GET", "/openapi.json", summary="This document", tag="service", public=True)
def openapi() -> Any:
    return jsonify(api.spec(current_app))


@api.route("GET", "/me", summary="The caller and their courses", tag="accounts",
           response=schemas.Me)
def me() -> schemas.Me:
    return schemas.Me(id=g.user.id, email=g.user.email, role=g.user.role, courses=[
        schemas.CourseRef(id=m.course.id, name=m.course.name, role=m.role)
        for m in courses.memberships(g.user)])


@api.route("POST", "/exercises", summary="Create a practice exercise (no solution)",
           tag="exercises", body=schemas.CreateExercise, response=schemas.Exercise, status=201,
           errors=("429",))
def create_exercise(body: schemas.CreateExercise) -> schemas.Exercise:
    """Give `params` to generate a tree, or `tree` (nested lists), or `leaves` with `branching`
    and `depth` (comma-separated values, as the Delphi visualizer takes them)."""
    return _exercise(exercises.create_practice(g.user, **body.model_dump()))


@api.route("GET", "/exercises/<int:exercise_id>", summary="An exercise (never its solution)",
           tag="exercises", response=schemas.Exercise)
def get_exercise(exercise_id: int) -> schemas.Exercise:
    return _exercise(exercises.get_exercise(g.user, exercise_id))


@api.route("POST", "/exercises/<int:exercise_id>/attempts", summary="Submit an answer",
           tag="attempts", body=schemas.SubmitAttempt, response=schemas.Attempt, status=201,
           errors=("409", "429"))
def submit_attempt(exercise_id: int, body: schemas.SubmitAttempt) -> schemas.Attempt:
    """Graded and stored before the response is sent. An ungradable answer is a 400 and uses
    no attempt. The solution is included once the exercise's rules allow it."""
    submitted = attempts.submit(g.user, exercise_id, body.answer)
    return schemas.Attempt(**attempts.describe(submitted.attempt, submitted.solution))


@api.route("GET", "/attempts", summary="Attempts the caller may see, newest first",
           tag="attempts", query=schemas.AttemptQuery, response=schemas.AttemptList)
def list_attempts(query: schemas.AttemptQuery) -> schemas.AttemptList:
    """A student's own attempts; an instructor's own and those of the courses they teach."""
    found = attempts.list_attempts(g.user, **query.model_dump())
    return schemas.AttemptList(attempts=[
        schemas.Attempt(**attempts.describe(a)) for a in found])


@api.route("GET", "/attempts/<int:attempt_id>", summary="One attempt, with the solution when "
           "it may be shown", tag="attempts", response=schemas.Attempt)
def get_attempt(attempt_id: int) -> schemas.Attempt:
    attempt = attempts.get_attempt(g.user, attempt_id)
    return schemas.Attempt(**attempts.describe(
        attempt, attempts.visible_solution(attempt.exercise, attempt.answer)))


@api.route("GET", "/assignments", summary="Assignments of the caller's courses",
           tag="assignments", response=schemas.AssignmentList)
def list_assignments() -> schemas.AssignmentList:
    return schemas.AssignmentList(
        assignments=[_assignment(a) for a in courses.assignments_for(g.user)])


@api.route("GET", "/assignments/<int:assignment_id>", summary="An assignment and its slots",
           tag="assignments", response=schemas.Assignment)
def get_assignment(assignment_id: int) -> schemas.Assignment:
    return _assignment(courses.get_assignment(g.user, assignment_id))


@api.route("GET", "/assignments/<int:assignment_id>/slots/<int:index>/exercise",
           summary="The caller's graded variant of a slot (made on first request)",
           tag="assignments", response=schemas.Exercise)
def slot_exercise(assignment_id: int, index: int) -> schemas.Exercise:
    return _exercise(exercises.slot_exercise(g.user, assignment_id, index))


@api.route("POST", "/assignments/<int:assignment_id>/slots/<int:index>/variants",
           summary="A new practice variant of a slot, where allowed", tag="assignments",
           response=schemas.Exercise, status=201)
def new_variant(assignment_id: int, index: int) -> schemas.Exercise:
    return _exercise(exercises.new_variant(g.user, assignment_id, index))
