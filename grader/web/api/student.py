"""The students' side of the API: the caller, exercises, attempts, assignments; and the no-op."""

from __future__ import annotations

from flask import Response, g, url_for

from grader import models
from grader.models import SLOT_KINDS
from grader.services.courses import courses, deadlines, zones
from grader.services.data import export
from grader.services.trees import attempts, exercises, practice
from grader.web.api import bp, responses, schemas, spec


def _exercise(exercise: models.Exercise) -> schemas.Exercise:
    data = exercises.to_api(exercise)
    urls = {
        "self": url_for("api.get_exercise", exercise_id=exercise.id),
        "attempts": url_for("api.submit_attempt", exercise_id=exercise.id),
        "list_attempts": url_for("api.list_attempts", exercise_id=exercise.id),
        "page": url_for("pages.exercise", exercise_id=exercise.id),
    }
    if data["practice_allowed"] and data["assignment_id"] is not None:
        urls["new_variant"] = url_for(
            "api.new_variant", assignment_id=data["assignment_id"], index=data["slot_index"]
        )
    return schemas.Exercise(**data, urls=urls)


def _slot_urls(assignment: models.Assignment, index: int, kind: str) -> dict[str, str]:
    """An exercise slot's exercise, or an engine slot's upload (an engine slot has no exercise)."""
    urls = {"page": url_for("pages.slot", assignment_id=assignment.id, index=index)}
    if SLOT_KINDS[kind].has_exercise:
        urls["exercise"] = url_for("api.slot_exercise", assignment_id=assignment.id, index=index)
    else:
        urls["upload"] = url_for("api.upload_engine")
    return urls


def _assignment(assignment: models.Assignment) -> schemas.Assignment:
    zone = assignment.course.timezone
    user_id = g.user.id
    return schemas.Assignment(
        id=assignment.id,
        title=assignment.title,
        course_id=assignment.course_id,
        course=assignment.course.name,
        preset=assignment.preset,
        timezone=zone,
        due_at=zones.iso(deadlines.assignment_deadline(user_id, assignment).due_at, zone),
        slots=[
            schemas.Slot(
                index=s.index,
                title=s.title,
                kind=s.kind,
                attempts_allowed=deadlines.attempts_for(user_id, s),
                practice_allowed=s.practice_allowed,
                replay_allowed=s.replay_allowed,
                due_at=zones.iso(deadlines.due_for(user_id, s), zone),
                urls=_slot_urls(assignment, s.index, s.kind),
            )
            for s in assignment.slots
        ],
    )


@bp.get("/ping")
@spec.validate(resp=responses(schemas.Status, public=True), tags=["service"], security={})
def ping() -> schemas.Status:
    """No-op (the load benchmark's ceiling)"""
    return schemas.Status(status="ok")


@bp.get("/me/export")
@spec.validate(resp=responses(), tags=["accounts"])
def api_me_export() -> Response:
    """Everything the service holds about the caller

    A ZIP of JSON files (account, memberships, API tokens, invites, exercises with their trees,
    attempts with their scores and words, engine uploads with their results, paper exam sheets,
    LTI identities) and the uploads' original bytes under uploads/; README.txt says what each
    file holds."""
    body, name = export.download(g.user, g.user.id)
    return Response(
        body,
        mimetype="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@bp.get("/me")
@spec.validate(resp=responses(schemas.Me), tags=["accounts"])
def me() -> schemas.Me:
    """The caller and their courses"""
    return schemas.Me(
        id=g.user.id,
        email=g.user.email,
        role=g.user.role,
        courses=[
            schemas.CourseRef(id=m.course.id, name=m.course.name, role=m.role)
            for m in courses.memberships(g.user)
        ],
    )


@bp.post("/exercises")
@spec.validate(
    resp=responses(schemas.Exercise, 201, body=True, also=(409, 422, 429)), tags=["exercises"]
)
def create_exercise(json: schemas.CreateExercise) -> tuple[schemas.Exercise, int]:
    """Create a practice exercise (no solution)

    Give `params` to generate a tree, or `tree` (nested lists), or `leaves` with `branching`
    and `depth` (comma-separated values, as the Delphi visualizer takes them). A request the
    schema allows but no exercise can be made from is a 422 that says why."""
    return _exercise(exercises.create_practice(g.user, **json.model_dump(exclude_unset=True))), 201


@bp.get("/exercises/<int:exercise_id>")
@spec.validate(resp=responses(schemas.Exercise), tags=["exercises"])
def get_exercise(exercise_id: int) -> schemas.Exercise:
    """An exercise (never its solution)"""
    return _exercise(exercises.get_exercise(g.user, exercise_id))


@bp.post("/exercises/<int:exercise_id>/attempts")
@spec.validate(
    resp=responses(schemas.Attempt, 201, body=True, also=(409, 422, 429)), tags=["attempts"]
)
def submit_attempt(exercise_id: int, json: schemas.SubmitAttempt) -> tuple[schemas.Attempt, int]:
    """Submit an answer

    Graded and stored before the response is sent. An answer in another kind's shape, or one
    naming nodes the tree does not have, is a 422 whose `kind` names the exercise's kind; it
    uses no attempt. The solution is included once the exercise's rules allow it: its key (and
    best-order's searches of this answer); the reference search to replay, the same for every
    attempt, is in GET /api/attempts/{attempt_id}."""
    submitted = attempts.submit(g.user, exercise_id, json.answer.model_dump(exclude_unset=True))
    shown = attempts.to_api(
        submitted.attempt, submitted.solution, viewer_id=g.user.id, gate=submitted.gate
    )
    return schemas.Attempt(**shown), 201


@bp.get("/exercises/<int:exercise_id>/aim")
@spec.validate(resp=responses(schemas.Aim), tags=["exercises"])
def exercise_aim(exercise_id: int) -> schemas.Aim:
    """What a weak-spots tree was made to expose

    Once its owner has answered it; null before, and for every other exercise (the exercise
    page shows it after an answer)."""
    return schemas.Aim(aim=practice.practice_aim(g.user, exercise_id))


@bp.get("/attempts")
@spec.validate(resp=responses(schemas.AttemptList), tags=["attempts"])
def list_attempts(query: schemas.AttemptQuery) -> schemas.AttemptList:
    """Attempts the caller may see, newest first

    A student's own attempts; an instructor's own and those of the courses they teach."""
    found = attempts.list_attempts(g.user, **query.model_dump())
    return schemas.AttemptList(
        attempts=[schemas.Attempt(**attempts.to_api(a, viewer_id=g.user.id)) for a in found]
    )


@bp.get("/attempts/<int:attempt_id>")
@spec.validate(resp=responses(schemas.Attempt), tags=["attempts"])
def get_attempt(attempt_id: int) -> schemas.Attempt:
    """One attempt, with the solution when it may be shown"""
    attempt = attempts.get_attempt(g.user, attempt_id)
    return schemas.Attempt(
        **attempts.to_api(
            attempt,
            attempts.visible_solution(attempt.exercise, attempt.answer),
            viewer_id=g.user.id,
        )
    )


@bp.get("/assignments")
@spec.validate(resp=responses(schemas.AssignmentList), tags=["assignments"])
def list_assignments() -> schemas.AssignmentList:
    """Assignments of the caller's courses"""
    return schemas.AssignmentList(
        assignments=[_assignment(a) for a in courses.assignments_for(g.user)]
    )


@bp.get("/assignments/<int:assignment_id>")
@spec.validate(resp=responses(schemas.Assignment), tags=["assignments"])
def get_assignment(assignment_id: int) -> schemas.Assignment:
    """An assignment and its slots"""
    return _assignment(courses.get_assignment(g.user, assignment_id))


@bp.get("/assignments/<int:assignment_id>/slots/<int:index>/exercise")
@spec.validate(resp=responses(schemas.Exercise, also=(409,)), tags=["assignments"])
def slot_exercise(assignment_id: int, index: int) -> schemas.Exercise:
    """The caller's graded variant of a slot (made on first request)"""
    return _exercise(exercises.slot_exercise(g.user, assignment_id, index))


@bp.post("/assignments/<int:assignment_id>/slots/<int:index>/variants")
@spec.validate(resp=responses(schemas.Exercise, 201, also=(409, 429)), tags=["assignments"])
def new_variant(assignment_id: int, index: int) -> tuple[schemas.Exercise, int]:
    """A new practice variant of a slot, where allowed"""
    return _exercise(exercises.new_variant(g.user, assignment_id, index)), 201
