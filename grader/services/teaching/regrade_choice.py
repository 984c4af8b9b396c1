"""A term regrade's preview applied by the staff's choice (issue 54): replace every changed
score, keep the higher of the two, or discard the preview. Applying writes one entry in the
audit log, marks each changed (student, slot) score for the LMS (`outbox`), and tells each
student whose score changed what changed and why, in words, on their dashboard (`ScoreNote`).
A score that changed since the preview is left alone; scores that came out the same are
recorded as given by the versions that grade now, so the next regrade does not look at them.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import (
    DISCARD,
    DONE,
    KEEP_HIGHER,
    REGRADE_CHOICES,
    REPLACE,
    Assignment,
    Attempt,
    EngineResult,
    ScoreNote,
    Slot,
    Submission,
    TermRegrade,
    User,
    grader_version,
    utcnow,
)
from grader.services import Conflict, outbox
from grader.services.courses import audit_log, release
from grader.services.courses.staff import staff
from grader.services.teaching import scores
from grader.services.teaching.regrade_preview import (
    EPSILON,
    fraction,
    pct,
    regrade_attempt,
    rescore_upload,
    suite_now,
)
from grader.services.teaching.term_regrade import get, scope_words
from grader.services.transactions import writing

CHOICE_WORDS = {
    REPLACE: "replace every changed score",
    KEEP_HIGHER: "keep the higher score",
    DISCARD: "discard: nothing applied",
}


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
            suite = suites.get(slot.id) or suites.setdefault(slot.id, suite_now(slot))
            ran = regrade.result.get("ran", {}).get(str(item["id"]))
            applied = _apply_upload(session, item, kept, suite, ran)
        if applied is None:
            counts["stale"] += 1
            continue
        counts["kept" if kept else "changed"] += 1
        details.append(  # as the audit log's other regrades write them
            {
                "attempt_id": item["id"] if item["type"] == "attempt" else None,
                "upload_id": item["id"] if item["type"] == "submission" else None,
                **{k: item[k] for k in ("user_id", "slot_id", "old", "new")},
                "kept": kept,
            }
        )
    return details


def _apply_attempt(session: Session, item: dict[str, Any], kept: bool) -> bool | None:
    attempt = session.get(Attempt, item["id"])
    if attempt is None or abs(attempt.score - item["old"]) > EPSILON:
        return None  # gone, or changed since the preview
    if kept:
        return False
    graded = regrade_attempt(attempt, attempt.exercise)
    if abs(graded["score"] - item["new"]) > EPSILON:
        return None  # the grading changed again since the preview
    for name in Attempt.GRADED:
        setattr(attempt, name, graded[name])
    for name, value in Attempt.graded_by(attempt.kind).items():
        setattr(attempt, name, value)
    attempt.regraded_at = utcnow()
    return True


def _apply_upload(
    session: Session,
    item: dict[str, Any],
    kept: bool,
    suite: Any,
    ran: dict[str, Any] | None = None,
) -> bool | None:
    """An upload's changed score applied: its stored tests scored again, with ``ran``, the
    tests the preview ran in the sandbox (their results stored now, with the score)."""
    upload = session.get(Submission, item["id"])
    if upload is None or abs(fraction(upload.score, upload.max_score) - item["old"]) > EPSILON:
        return None
    if kept:
        return False
    result = session.scalar(sa.select(EngineResult).where(EngineResult.submission_id == upload.id))
    again = rescore_upload(upload, suite, (ran or {}).get("tests"))
    if (
        result is None
        or again.missing
        or abs(fraction(again.score, again.max_score) - item["new"]) > EPSILON
    ):
        return None
    _store(upload, result, again, suite, ran)
    return True


def _store(
    upload: Submission,
    result: EngineResult,
    again: Any,
    suite: Any,
    ran: dict[str, Any] | None = None,
) -> None:
    """The upload's tests scored again (``harness.rescore``) written: its score, its results in
    both forms (with the Gradescope entries of the tests ``ran`` in the sandbox), its versions."""
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
        order = {name: number for number, name in enumerate(by_name)}
        tests = [
            t | {"score": by_name[t["name"]]["score"], "max_score": by_name[t["name"]]["max_score"]}
            for t in [*gradescope["tests"], *(ran or {}).get("gradescope", [])]
            if t.get("name") in by_name
        ]
        tests.sort(key=lambda t: order[t["name"]])
        gradescope["tests"] = [t | {"number": str(n)} for n, t in enumerate(tests, 1)]
    gradescope["score"] = again.score
    result.gradescope = gradescope


def _stamp_same(session: Session, result: dict[str, Any]) -> None:
    """Scores that came out the same are recorded as given by the versions that grade now."""
    same = result.get("same", {})
    for attempt in session.scalars(
        sa.select(Attempt).where(Attempt.id.in_(same.get("attempt", [])))
    ):
        for name, value in Attempt.graded_by(attempt.kind).items():
            setattr(attempt, name, value)
    versions = result.get("versions", {})
    ran = result.get("ran", {})
    suites: dict[int, Any] = {}
    for upload in session.scalars(
        sa.select(Submission).where(Submission.id.in_(same.get("submission", [])))
    ):
        if str(upload.slot_id) not in versions:
            continue
        if str(upload.id) in ran:  # the same score with the tests the sandbox ran: kept
            slot = session.get_one(Slot, upload.slot_id)
            suite = suites.get(slot.id) or suites.setdefault(slot.id, suite_now(slot))
            stored = session.scalar(
                sa.select(EngineResult).where(EngineResult.submission_id == upload.id)
            )
            again = rescore_upload(upload, suite, ran[str(upload.id)]["tests"])
            if (
                stored is None
                or again.missing
                or suite.version != versions[str(slot.id)]
                or abs(
                    fraction(upload.score, upload.max_score)
                    - fraction(again.score, again.max_score)
                )
                > EPSILON
            ):
                continue  # the suite or the score changed since the preview: left as it is
            _store(upload, stored, again, suite, ran[str(upload.id)])
            continue
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
            f"Your score there went from {pct(row['old'])} to {pct(after)}."
            if abs(after - row["old"]) > EPSILON
            else f"Your score there stays {pct(after)}."
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
    """A student's latest notes of changed scores, newest first (their dashboard); a note on an
    assignment whose scores are still held from them waits for the release."""
    found = db.session.scalars(
        sa.select(ScoreNote)
        .where(ScoreNote.user_id == user.id)
        .order_by(ScoreNote.id.desc())
        .limit(limit)
    )
    return [
        note
        for note in found
        if note.slot is None
        or release.held_work(user.id, release.Standing(user.id, note.slot.assignment)) is None
    ]


__all__ = ["CHOICE_WORDS", "apply", "notes"]
