"""The staff's side of the API: a course's gradebook, statistics, misconceptions, audit log,
term regrades (asked, their preview, the choice), and the preview of a slot's parameters. Thin views over the services the staff's pages use."""

from __future__ import annotations

from flask import Response, g

from grader.models import DONE, iso_utc
from grader.models import TermRegrade as TermRegradeRow
from grader.services.courses import audit_log
from grader.services.teaching import (
    editor,
    gradebook,
    regrade_choice,
    regrade_preview,
    stats,
    term_regrade,
)
from grader.web.api import bp, download, responses, schemas, spec


@bp.get("/courses/<int:course_id>/gradebook")
@spec.validate(resp=responses(schemas.Gradebook), tags=["instructor"])
def api_gradebook(course_id: int) -> schemas.Gradebook:
    """The course's gradebook (instructors and TAs)

    Students by assignments: each assignment's points under its score policy (best or last
    attempt) after the late penalty, each slot's score, and the total."""
    return schemas.Gradebook(**gradebook.gradebook(g.user, course_id)[1].to_dict())


@bp.get("/courses/<int:course_id>/gradebook.csv")
@spec.validate(resp=responses(), tags=["instructor"])
def api_gradebook_csv(course_id: int) -> Response:
    """The gradebook as CSV

    One row per student: email, name, one column per assignment, total."""
    text, name = gradebook.gradebook_csv(g.user, course_id)
    return download(text, name, "text/csv")


@bp.get("/courses/<int:course_id>/statistics")
@spec.validate(resp=responses(schemas.Statistics), tags=["instructor"])
def api_statistics(course_id: int) -> schemas.Statistics:
    """Item statistics per slot"""
    _, by_assignment = stats.statistics(g.user, course_id)
    return schemas.Statistics(
        assignments=[
            schemas.AssignmentStatistics(id=a.id, title=a.title, slots=[s.to_dict() for s in slots])
            for a, slots in by_assignment
        ]
    )


@bp.get("/courses/<int:course_id>/misconceptions")
@spec.validate(resp=responses(schemas.Misconceptions), tags=["instructor"])
def api_misconceptions(course_id: int) -> schemas.Misconceptions:
    """Wrong answers by misconception code

    Per slot, per assignment and per ISO week."""
    _, _, counts = stats.misconceptions(g.user, course_id)
    return schemas.Misconceptions(**counts.to_dict())


def _audit_entries(course_id: int) -> list[schemas.AuditEntry]:
    return [
        schemas.AuditEntry(
            id=entry.id,
            at=entry.created_at.isoformat() + "Z",
            by=entry.actor.email if entry.actor else None,
            what=entry.what,
            changes=entry.changes,
            allow_lower=entry.allow_lower,
            attempts_total=entry.attempts_total,
            attempts_changed=entry.attempts_changed,
            details=entry.details,
        )
        for entry in audit_log.entries(g.user, course_id)
    ]


@bp.get("/courses/<int:course_id>/audit")
@spec.validate(resp=responses(schemas.AuditLog), tags=["instructor"])
def api_audit_log(course_id: int) -> schemas.AuditLog:
    """The course's audit log

    Every regrade, extension and change of the slip days' budget, newest first, with each
    score it changed."""
    return schemas.AuditLog(entries=_audit_entries(course_id))


@bp.get("/courses/<int:course_id>/regrades")
@spec.validate(resp=responses(schemas.DeprecatedRegrades), tags=["instructor"], deprecated=True)
def api_regrades(course_id: int) -> schemas.DeprecatedRegrades:
    """The course's audit log, under its old name (deprecated)

    The same entries as `GET /api/courses/{course_id}/audit`, as `regrades`; kept for the
    clients written against it, to be removed in a later release."""
    return schemas.DeprecatedRegrades(regrades=_audit_entries(course_id))


def _term_regrade(regrade: TermRegradeRow) -> schemas.TermRegrade:
    result = regrade.result if regrade.status == DONE else None
    return schemas.TermRegrade(
        id=regrade.id,
        course_id=regrade.course_id,
        assignment_id=regrade.assignment_id,
        slot_id=regrade.slot_id,
        scope=term_regrade.scope_words(regrade),
        reason=regrade.reason,
        status=regrade.status,
        error=regrade.error,
        created_at=iso_utc(regrade.created_at) or "",
        choice=regrade.choice,
        chosen_at=iso_utc(regrade.chosen_at),
        progress=None if result is not None else regrade_preview.progress_words(regrade.progress),
        **(
            {}
            if result is None
            else {k: result[k] for k in ("examined", "current", "rerun", "students", "histogram")}
            | {"sandbox": result.get("sandbox", [])}
        ),
    )


@bp.get("/courses/<int:course_id>/term-regrades")
@spec.validate(resp=responses(schemas.TermRegrades), tags=["instructor"])
def api_term_regrades(course_id: int) -> schemas.TermRegrades:
    """The course's term regrades, newest first, each with its preview once computed"""
    return schemas.TermRegrades(
        regrades=[_term_regrade(r) for r in term_regrade.listed(g.user, course_id)]
    )


@bp.post("/courses/<int:course_id>/term-regrades")
@spec.validate(resp=responses(schemas.TermRegrade, 202, body=True), tags=["instructor"])
def api_start_term_regrade(
    course_id: int, json: schemas.TermRegradeRequest
) -> tuple[schemas.TermRegrade, int]:
    """Start a regrade of the course, an assignment or a slot (instructors)

    Queued at low priority; a worker computes its preview, applying nothing. Every stored
    score an older grader, suite or kind rule gave is scored again; scores the versions of now
    gave are left alone. A regrade of the course still queued or running is given back
    instead of a new one."""
    regrade = term_regrade.start(
        g.user,
        course_id,
        assignment_id=json.assignment_id,
        index=json.slot_index if json.assignment_id is not None else None,
        reason=json.reason,
    )
    return _term_regrade(regrade), 202


@bp.get("/term-regrades/<int:regrade_id>")
@spec.validate(resp=responses(schemas.TermRegrade), tags=["instructor"])
def api_term_regrade(regrade_id: int) -> schemas.TermRegrade:
    """A term regrade and its preview

    Per student whose score changes, the old and new score and the tests or answer parts that
    changed, and a histogram of the changes."""
    return _term_regrade(term_regrade.get(g.user, regrade_id))


@bp.post("/term-regrades/<int:regrade_id>/apply")
@spec.validate(
    resp=responses(schemas.TermRegradeApplied, body=True, also=(409,)), tags=["instructor"]
)
def api_apply_term_regrade(
    regrade_id: int, json: schemas.TermRegradeChoice
) -> schemas.TermRegradeApplied:
    """Apply a computed preview: replace, keep the higher, or discard (instructors)

    Once: writes the audit log, marks each changed score for the LMS and leaves each student
    whose score changed a note of what changed and why. 409 before the preview is computed or
    once a choice was made."""
    return schemas.TermRegradeApplied(**regrade_choice.apply(g.user, regrade_id, json.choice))


@bp.post("/courses/<int:course_id>/preview")
@spec.validate(resp=responses(schemas.Preview, body=True, also=(422,)), tags=["instructor"])
def api_preview(course_id: int, json: schemas.PreviewRequest) -> schemas.Preview:
    """Preview a slot's parameters

    A sample variant with its key and search, and per misconception the share of sample trees
    (made without the discriminating constraint) that tell it apart. Parameters the schema
    allows but no tree meets, or a tree too large, are a 422 that says why."""
    data = json.model_dump(exclude_unset=True)
    tree = None
    if json.tree is not None:
        tree = editor.build_tree("nested", nested=data["tree"], players=data.get("players"))
    spec_input = editor.SlotInput(
        kind=json.kind,
        conventions=data.get("conventions") or {},
        params=data.get("params") or {},
        tree=tree,
    )
    return schemas.Preview(**editor.preview(g.user, course_id, spec_input).to_dict())
