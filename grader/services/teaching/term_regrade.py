"""A term regraded with a diff, a choice and a record (issue 54).

The staff ask for a regrade of a slot, an assignment or a course (`start`). A worker computes it
at low priority as a leased job (`TERM_REGRADE`, run by services/leases/runner.py) into a
preview, applying nothing: every stored score whose grader, suite or kind rule is not the one
that grades now is scored again (a tree attempt graded again by its kind; an engine upload's
stored tests scored against its suite as it now is, `harness.rescore`), and the preview lists,
per student and slot, the old and new score, the tests or answer parts that changed, and a
histogram of the changes. A score given by the versions that grade now is not looked at: a
regrade on the same grader and suite changes nothing.

The staff then choose (`apply`): replace every changed score, keep the higher of the two, or
discard the preview. Applying writes one entry in the audit log, marks each changed (student,
slot) score for the LMS, and tells each student whose score changed what changed and why, in
words, on their dashboard (`ScoreNote`). A score that changed since the preview is left alone.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from grader.extensions import TERM_REGRADE as TERM_REGRADE_JOB
from grader.extensions import db
from grader.gametree import KINDS, Conventions, UngradableAnswer, grade
from grader.models import (
    DISCARD,
    DONE,
    ENGINE_KIND,
    KEEP_HIGHER,
    QUEUED,
    REGRADE_CHOICES,
    REPLACE,
    RUNNING,
    Assignment,
    Attempt,
    EngineResult,
    Exercise,
    ScoreNote,
    Slot,
    Submission,
    TermRegrade,
    User,
    grader_version,
    utcnow,
)
from grader.services import Conflict, NotFound, leases, outbox
from grader.services.courses import audit_log
from grader.services.courses.staff import staff, staff_for_assignment, staff_for_slot
from grader.services.engines.submissions import LOW, suite_of
from grader.services.leases.runner import JobKind, Progress
from grader.services.teaching import scores
from grader.services.teaching.regrade import UNFIT
from grader.services.transactions import writing
from grader.services.trees.exercises import tree_of

MAX_ATTEMPTS = 2  # claims of one regrade before it fails
EPSILON = 1e-9
# The histogram's bins of a change in a student's score, in percentage points.
BINS = ((-100, -50), (-50, -20), (-20, -5), (-5, 0), (0, 5), (5, 20), (20, 50), (50, 100))
CHOICE_WORDS = {
    REPLACE: "replace every changed score",
    KEEP_HIGHER: "keep the higher score",
    DISCARD: "discard: nothing applied",
}


# -- asking --------------------------------------------------------------------------------


def start(
    user: User,
    course_id: int,
    *,
    assignment_id: int | None = None,
    index: int | None = None,
    reason: str,
) -> TermRegrade:
    """A regrade of the course, one assignment of it, or one slot (instructors only), queued at
    low priority; the course's regrade still queued or running if there is one."""
    if assignment_id is None:
        staff(user, course_id, change=True)
        slot_id = None
    elif index is None:
        _, assignment = staff_for_assignment(user, assignment_id, change=True)
        if assignment.course_id != course_id:
            raise NotFound("no such assignment in this course")
        slot_id = None
    else:
        _, slot = staff_for_slot(user, assignment_id, index, change=True)
        if slot.assignment.course_id != course_id:
            raise NotFound("no such assignment in this course")
        slot_id = slot.id
    with writing() as session:
        pending = session.scalar(
            sa.select(TermRegrade).where(
                TermRegrade.course_id == course_id, TermRegrade.status.in_([QUEUED, RUNNING])
            )
        )
        if pending is not None:
            return pending
        regrade = TermRegrade(
            course_id=course_id,
            assignment_id=assignment_id,
            slot_id=slot_id,
            requested_by_id=user.id,
            reason=reason.strip()[:300] or "the grading changed",
            status=QUEUED,
            progress={"phase": "queued"},
        )
        session.add(regrade)
    TERM_REGRADE.wake(regrade.id)
    return regrade


def get(user: User, regrade_id: int) -> TermRegrade:
    """A regrade of a course `user` teaches (its TAs read it too)."""
    regrade = db.session.get(TermRegrade, regrade_id)
    if regrade is None:
        raise NotFound("no such regrade")
    staff(user, regrade.course_id)
    return regrade


def listed(user: User, course_id: int) -> list[TermRegrade]:
    staff(user, course_id)
    return list(
        db.session.scalars(
            sa.select(TermRegrade)
            .where(TermRegrade.course_id == course_id)
            .order_by(TermRegrade.id.desc())
        )
    )


def scope_words(regrade: TermRegrade) -> str:
    if regrade.slot_id is not None:
        return _slot_words(db.session.get_one(Slot, regrade.slot_id))
    if regrade.assignment_id is not None:
        return f"“{db.session.get_one(Assignment, regrade.assignment_id).title}”"
    return "the whole course"


def _slot_words(slot: Slot) -> str:
    return f"“{slot.assignment.title}”, exercise {slot.index + 1} ({slot.name})"


def _slots(regrade: TermRegrade) -> list[Slot]:
    query = sa.select(Slot).join(Assignment).where(Assignment.course_id == regrade.course_id)
    if regrade.assignment_id is not None:
        query = query.where(Slot.assignment_id == regrade.assignment_id)
    if regrade.slot_id is not None:
        query = query.where(Slot.id == regrade.slot_id)
    return list(db.session.scalars(query.order_by(Slot.assignment_id, Slot.index)))


# -- scoring again, without applying ------------------------------------------------------------


def _suite(slot: Slot) -> Any:
    from grader import harness

    return harness.load_suite(suite_of(slot))


def _rescore_upload(submission: Submission, suite: Any) -> Any:
    from grader import harness

    result = db.session.scalar(
        sa.select(EngineResult).where(EngineResult.submission_id == submission.id)
    )
    return harness.rescore(list((result.rich if result else {}).get("tests", [])), suite)


def _regrade_attempt(attempt: Attempt, exercise: Exercise) -> dict[str, Any]:
    try:
        tree = tree_of(exercise)
        return grade(
            attempt.kind, tree, Conventions.from_dict(attempt.conventions), attempt.answer
        ).to_dict()
    except UngradableAnswer:  # the answer no longer fits (a node that is gone)
        return UNFIT


def _part_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    keys = sorted(set(old) | set(new))
    return [
        f"{key}: {_pct(old.get(key, 0.0))} is now {_pct(new.get(key, 0.0))}"
        for key in keys
        if old.get(key) != new.get(key)
    ]


def _pct(value: Any) -> str:
    return f"{float(value or 0.0) * 100:.4g}%" if isinstance(value, int | float) else str(value)


def _items(slots: list[Slot], progress: Progress | None = None) -> dict[str, Any]:
    """Every stored score of `slots` that other versions gave, scored again: what changes
    (`changed`), what scores the same (`same`), and uploads that need running again."""
    now_grader = grader_version()
    changed: list[dict[str, Any]] = []
    same: dict[str, list[int]] = {"attempt": [], "submission": []}
    rerun: list[int] = []
    examined = current = 0
    versions: dict[str, str] = {}
    for number, slot in enumerate(slots):
        if progress is not None:
            progress({"phase": "scoring", "slots_done": number, "slots_total": len(slots)})
        if slot.kind == ENGINE_KIND:
            suite = _suite(slot)
            versions[str(slot.id)] = suite.version
            uploads = db.session.scalars(
                sa.select(Submission)
                .where(Submission.slot_id == slot.id, Submission.status == DONE)
                .order_by(Submission.id)
            )
            for upload in uploads:
                if (upload.grader_version, upload.suite_version) == (now_grader, suite.version):
                    current += 1
                    continue
                examined += 1
                again = _rescore_upload(upload, suite)
                if again.missing:
                    rerun.append(upload.id)
                    continue
                old = _fraction(upload.score, upload.max_score)
                new = _fraction(again.score, again.max_score)
                if abs(old - new) < EPSILON:
                    same["submission"].append(upload.id)
                    continue
                changed.append(
                    _item("submission", upload.id, upload.owner_id, slot, old, new, again.changes)
                )
            continue
        rule = KINDS[slot.kind].rule_version
        versions[str(slot.id)] = rule
        rows = db.session.execute(
            sa.select(Attempt, Exercise)
            .join(Exercise, Attempt.exercise_id == Exercise.id)
            .where(
                Exercise.slot_id == slot.id,
                Exercise.variant == 0,
                Attempt.user_id == Exercise.owner_id,
            )
            .order_by(Attempt.id)
        )
        for attempt, exercise in rows:
            if (attempt.grader_version, attempt.rule_version) == (now_grader, rule):
                current += 1
                continue
            examined += 1
            graded = _regrade_attempt(attempt, exercise)
            parts = _part_changes(attempt.parts or {}, graded["parts"] or {})
            if abs(graded["score"] - attempt.score) < EPSILON:
                same["attempt"].append(attempt.id)
                continue
            changed.append(
                _item("attempt", attempt.id, attempt.user_id, slot, attempt.score, graded["score"])
                | {"changes": parts or ["the score"]}
            )
    return {
        "grader_version": now_grader,
        "versions": versions,
        "examined": examined,
        "current": current,
        "changed": changed,
        "same": same,
        "rerun": rerun,
    }


def _fraction(score: float | None, max_score: float | None) -> float:
    return round((score or 0.0) / max_score, 6) if max_score else 0.0


def _item(
    kind: str,
    item_id: int,
    user_id: int,
    slot: Slot,
    old: float,
    new: float,
    changes: list[str] | None = None,
) -> dict[str, Any]:
    return {
        "type": kind,
        "id": item_id,
        "user_id": user_id,
        "slot_id": slot.id,
        "old": round(old, 6),
        "new": round(new, 6),
        "changes": changes or [],
    }


def _students(course_id: int, slots: list[Slot], changed: list[dict[str, Any]]) -> list[Any]:
    """Per student and slot with a changed score: the slot's score under its policy before and
    after (after the late penalty, as the gradebook counts it)."""
    new_of = {(c["slot_id"], c["id"]): c["new"] for c in changed}
    touched = {(c["user_id"], c["slot_id"]) for c in changed}
    by_slot = {slot.id: slot for slot in slots}
    counted: dict[tuple[int, int], list[scores.GradedAttempt]] = defaultdict(list)
    for graded in scores.counted_attempts(course_id):
        if (graded.user_id, graded.slot_id) in touched:
            counted[graded.user_id, graded.slot_id].append(graded)
    names = dict(
        db.session.execute(
            sa.select(User.id, User.email).where(User.id.in_({u for u, _ in touched}))
        ).all()
    )
    rows = []
    for (user_id, slot_id), graded in sorted(counted.items()):
        slot = by_slot[slot_id]
        policy = slot.assignment.score_policy
        after = [replace(g, score=new_of.get((slot_id, g.id), g.score)) for g in graded]
        old, new = scores.policy_score(graded, policy), scores.policy_score(after, policy)
        rows.append(
            {
                "user_id": user_id,
                "student": names.get(user_id, f"account {user_id}"),
                "slot_id": slot_id,
                "slot": _slot_words(slot),
                "old": round(old or 0.0, 6),
                "new": round(new or 0.0, 6),
                "changes": sorted(
                    {
                        change
                        for c in changed
                        if (c["user_id"], c["slot_id"]) == (user_id, slot_id)
                        for change in c["changes"]
                    }
                ),
            }
        )
    return rows


def histogram(students: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """How many students' slot scores move by how much (percentage points), one bin each
    side of no change."""
    labels = [f"{low:+d} to {high:+d}" for low, high in BINS]
    counts = [0] * len(BINS)
    for row in students:
        delta = (row["new"] - row["old"]) * 100
        if abs(delta) < EPSILON:
            continue
        for i, (low, high) in enumerate(BINS):
            if (low <= delta < high) if delta < 0 else (low < delta <= high):
                counts[i] += 1
                break
    return {"labels": labels, "counts": counts}


def preview(regrade: TermRegrade, progress: Progress | None = None) -> dict[str, Any]:
    """The regrade computed, nothing applied: what the worker stores as its result."""
    slots = _slots(regrade)
    found = _items(slots, progress)
    students = _students(regrade.course_id, slots, found["changed"])
    return found | {"students": students, "histogram": histogram(students)}


# -- the job ------------------------------------------------------------------------------


class TermRegradeJob(JobKind[int, dict[str, Any]]):
    """A term regrade's preview computed under its lease, at the regrades' low priority."""

    job, noun, model = TERM_REGRADE_JOB, "term regrade", TermRegrade
    priority = LOW
    first_phase = "scoring"

    def claim(self, job_id: int, worker: str) -> int | None:
        with writing() as session:
            if not leases.claim(
                session, TermRegrade, job_id, worker, progress={"phase": "starting"}
            ):
                return None
        return job_id

    def run(self, claimed: int, progress: Progress) -> dict[str, Any]:
        return preview(db.session.get_one(TermRegrade, claimed), progress)

    def give_back(self, job_id: int, worker: str, message: str) -> str | None:
        error = f"the regrade stopped on an error of the grader: {message[:2000]}"
        return leases.give_back(
            TermRegrade,
            job_id,
            worker,
            MAX_ATTEMPTS,
            {"error": error, "progress": {"phase": "retrying"}},
            {"error": error, "progress": {"phase": "failed"}, "finished_at": utcnow()},
        )

    def record(self, job_id: int, worker: str, result: dict[str, Any]) -> bool:
        with writing() as session:
            return leases.finish(
                session,
                TermRegrade,
                job_id,
                worker,
                DONE,
                result=result,
                error=None,
                progress={"phase": "done"},
                finished_at=utcnow(),
            )


TERM_REGRADE = TermRegradeJob()


def sweep() -> list[int]:
    """Regrades whose worker died back to the queue; queued ones to wake again."""
    now = utcnow()
    return leases.sweep(
        TermRegrade,
        MAX_ATTEMPTS,
        now=now,
        failed_values={
            "finished_at": now,
            "progress": {"phase": "failed"},
            "error": f"the worker stopped {MAX_ATTEMPTS} times on this regrade",
        },
        requeued_values={"progress": {"phase": "requeued: the worker stopped"}},
    )


# -- the choice ---------------------------------------------------------------------------------


def apply(user: User, regrade_id: int, choice: str) -> dict[str, int]:
    """The staff's choice on a computed preview (instructors only), once: replace, keep the
    higher, or discard. How many scores it changed, kept, and found changed since."""
    if choice not in REGRADE_CHOICES:
        raise Conflict(f"choose one of {', '.join(REGRADE_CHOICES)}")
    regrade = get(user, regrade_id)
    staff(user, regrade.course_id, change=True)
    with writing() as session:
        regrade = session.get_one(TermRegrade, regrade_id)
        if regrade.status != DONE or regrade.result is None:
            raise Conflict("this regrade has no preview yet")
        if regrade.choice is not None:
            raise Conflict(f"this regrade was applied already ({CHOICE_WORDS[regrade.choice]})")
        now = utcnow()
        regrade.choice, regrade.chosen_by_id, regrade.chosen_at = choice, user.id, now
        counts = {"changed": 0, "kept": 0, "stale": 0}
        details: list[dict[str, Any]] = []
        if choice != DISCARD:
            details = _apply_items(session, regrade, choice == KEEP_HIGHER, counts)
            _stamp_same(session, regrade.result)
            _notify(session, regrade, details)
        audit_log.record(
            session,
            regrade.course_id,
            user.id,
            f"Regrade {regrade.id} of {scope_words(regrade)}",
            {"reason": regrade.reason, "choice": CHOICE_WORDS[choice]},
            details,
            regrade.slot_id,
            allow_lower=choice == REPLACE,
            attempts_total=int(regrade.result.get("examined", 0)),
            attempts_changed=counts["changed"],
            created_at=now,
        )
        outbox.passback_after_commit(
            session, sorted({(d["user_id"], d["slot_id"]) for d in details if not d["kept"]})
        )
    return counts


def _apply_items(
    session: Session, regrade: TermRegrade, keep_higher: bool, counts: dict[str, int]
) -> list[dict[str, Any]]:
    assert regrade.result is not None
    details = []
    suites: dict[int, Any] = {}
    for item in regrade.result["changed"]:
        kept = keep_higher and item["new"] < item["old"] - EPSILON
        if item["type"] == "attempt":
            applied = _apply_attempt(session, item, kept)
        else:
            slot = session.get_one(Slot, item["slot_id"])
            suite = suites.get(slot.id) or suites.setdefault(slot.id, _suite(slot))
            applied = _apply_upload(session, item, kept, suite)
        if applied is None:
            counts["stale"] += 1
            continue
        counts["kept" if kept else "changed"] += 1
        details.append(
            {k: item[k] for k in ("type", "id", "user_id", "slot_id", "old", "new")}
            | {"kept": kept}
        )
    return details


def _apply_attempt(session: Session, item: dict[str, Any], kept: bool) -> bool | None:
    attempt = session.get(Attempt, item["id"])
    if attempt is None or abs(attempt.score - item["old"]) > EPSILON:
        return None  # gone, or changed since the preview
    if kept:
        return False
    graded = _regrade_attempt(attempt, attempt.exercise)
    if abs(graded["score"] - item["new"]) > EPSILON:
        return None  # the grading changed again since the preview
    for name in Attempt.GRADED:
        setattr(attempt, name, graded[name])
    for name, value in Attempt.graded_by(attempt.kind).items():
        setattr(attempt, name, value)
    attempt.regraded_at = utcnow()
    return True


def _apply_upload(session: Session, item: dict[str, Any], kept: bool, suite: Any) -> bool | None:
    upload = session.get(Submission, item["id"])
    if upload is None or abs(_fraction(upload.score, upload.max_score) - item["old"]) > EPSILON:
        return None
    if kept:
        return False
    result = session.scalar(sa.select(EngineResult).where(EngineResult.submission_id == upload.id))
    again = _rescore_upload(upload, suite)
    if (
        result is None
        or again.missing
        or abs(_fraction(again.score, again.max_score) - item["new"]) > EPSILON
    ):
        return None
    upload.score, upload.max_score = again.score, again.max_score
    upload.grader_version, upload.suite_version = grader_version(), suite.version
    by_name = {t["name"]: t for t in again.tests}
    result.rich = {
        **result.rich,
        "tests": again.tests,
        "score": again.score,
        "max_score": again.max_score,
        "suite_version": suite.version,
    }
    gradescope = dict(result.gradescope or {})
    if "tests" in gradescope:
        gradescope["tests"] = [
            t | {"score": by_name[t["name"]]["score"], "max_score": by_name[t["name"]]["max_score"]}
            for t in gradescope["tests"]
            if t.get("name") in by_name
        ]
    gradescope["score"] = again.score
    result.gradescope = gradescope
    return True


def _stamp_same(session: Session, result: dict[str, Any]) -> None:
    """Scores that came out the same are recorded as given by the versions that grade now."""
    same = result.get("same", {})
    for attempt in session.scalars(
        sa.select(Attempt).where(Attempt.id.in_(same.get("attempt", [])))
    ):
        for name, value in Attempt.graded_by(attempt.kind).items():
            setattr(attempt, name, value)
    versions = result.get("versions", {})
    for upload in session.scalars(
        sa.select(Submission).where(Submission.id.in_(same.get("submission", [])))
    ):
        if str(upload.slot_id) in versions:
            upload.grader_version = grader_version()
            upload.suite_version = versions[str(upload.slot_id)]


def _notify(session: Session, regrade: TermRegrade, details: list[dict[str, Any]]) -> None:
    """Each student whose score changed told, on their dashboard, what changed and why: the
    slot's score before and as it now counts, and the tests or answer parts that changed."""
    assert regrade.result is not None
    applied = {(d["user_id"], d["slot_id"]) for d in details if not d["kept"]}
    if not applied:
        return
    session.flush()  # the changed scores, read back as the gradebook counts them
    policies = dict(
        session.execute(
            sa.select(Slot.id, Assignment.score_policy)
            .join(Assignment)
            .where(Slot.id.in_({slot for _, slot in applied}))
        ).all()
    )
    now_counted: dict[tuple[int, int], list[scores.GradedAttempt]] = defaultdict(list)
    for graded in scores.counted_attempts(regrade.course_id):
        if (graded.user_id, graded.slot_id) in applied:
            now_counted[graded.user_id, graded.slot_id].append(graded)
    now = utcnow()
    for row in regrade.result.get("students", []):
        key = (row["user_id"], row["slot_id"])
        if key not in applied:
            continue
        after = scores.policy_score(now_counted[key], policies[row["slot_id"]]) or 0.0
        changes = "; ".join(row["changes"][:5])
        if len(row["changes"]) > 5:
            changes += f"; and {len(row['changes']) - 5} more"
        moved = (
            f"Your score there went from {_pct(row['old'])} to {_pct(after)}."
            if abs(after - row["old"]) > EPSILON
            else f"Your score there stays {_pct(after)}."
        )
        session.add(
            ScoreNote(
                user_id=row["user_id"],
                course_id=regrade.course_id,
                slot_id=row["slot_id"],
                text=f"{row['slot']} was regraded because {regrade.reason}. {moved} "
                f"What changed: {changes}.",
                created_at=now,
            )
        )


def notes(user: User, limit: int = 10) -> list[ScoreNote]:
    """A student's latest notes of changed scores, newest first (their dashboard)."""
    return list(
        db.session.scalars(
            sa.select(ScoreNote)
            .where(ScoreNote.user_id == user.id)
            .order_by(ScoreNote.id.desc())
            .limit(limit)
        )
    )


__all__ = [
    "TERM_REGRADE",
    "apply",
    "get",
    "histogram",
    "listed",
    "notes",
    "preview",
    "start",
    "sweep",
]
