"""A term regrade's preview (issue 54; `term_regrade` asks for it and runs it as a job): every
stored score of the regrade's slots whose grader, suite or kind rule is not the one that grades
now, scored again without applying anything. A tree attempt is graded again by its kind on the
conventions it was graded with; an engine upload's stored tests are scored against its suite as
it now is (`harness.rescore`: a changed or dropped test's points), and an upload whose suite
gained tests it never ran has those tests run in the sandbox, within this job (at its low
priority, on a grading slot of the worker's machine, one upload after another), their results
kept with the preview alone (`ran`) until the staff choose. The preview holds, per student and
slot, the old and new score (under the assignment's policy, after the late penalty, as the
gradebook counts it), the tests or answer parts that changed, a histogram of the changes, and
each upload run in the sandbox with its old and new points (`sandbox`). A score given by the
versions that grade now is not looked at.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.gametree import KINDS, Conventions, UngradableAnswer, grade
from grader.models import (
    DONE,
    Assignment,
    Attempt,
    EngineResult,
    Exercise,
    Slot,
    Submission,
    TermRegrade,
    User,
    grader_version,
)
from grader.services.engines.submissions import suite_of
from grader.services.leases.runner import Progress
from grader.services.teaching import scores
from grader.services.teaching.regrade import UNFIT
from grader.services.trees.exercises import tree_of

EPSILON = 1e-9
# The histogram's bins of a change in a student's score, in percentage points.
BINS = ((-100, -50), (-50, -20), (-20, -5), (-5, 0), (0, 5), (5, 20), (20, 50), (50, 100))


def slot_words(slot: Slot) -> str:
    return f"“{slot.assignment.title}”, exercise {slot.index + 1} ({slot.name})"


def slots_of(regrade: TermRegrade) -> list[Slot]:
    query = sa.select(Slot).join(Assignment).where(Assignment.course_id == regrade.course_id)
    if regrade.assignment_id is not None:
        query = query.where(Slot.assignment_id == regrade.assignment_id)
    if regrade.slot_id is not None:
        query = query.where(Slot.id == regrade.slot_id)
    return list(db.session.scalars(query.order_by(Slot.assignment_id, Slot.index)))


def suite_now(slot: Slot) -> Any:
    from grader import harness

    return harness.load_suite(suite_of(slot))


def rescore_upload(
    submission: Submission, suite: Any, ran: list[dict[str, Any]] | None = None
) -> Any:
    """The upload's stored tests, with ``ran`` (the tests a regrade ran in the sandbox since),
    scored against ``suite``, in the suite's order."""
    from grader import harness

    result = db.session.scalar(
        sa.select(EngineResult).where(EngineResult.submission_id == submission.id)
    )
    tests = list((result.rich if result else {}).get("tests", [])) + list(ran or [])
    order = {test.name: number for number, test in enumerate(suite.tests)}
    tests.sort(key=lambda test: order.get(test["name"], len(order)))
    return harness.rescore(tests, suite)


def run_missing(submission: Submission, suite: Any, missing: list[str]) -> dict[str, Any]:
    """The tests ``missing`` of ``suite`` run on the upload in the sandbox: ``tests`` as
    results.json's rich form keeps them, ``gradescope`` as its Gradescope form does;
    RuntimeError when the grader could not run them all."""
    from grader import harness
    from grader.services.engines import blobs, leases

    tests = tuple(test for test in suite.tests if test.name in set(missing))
    report = leases.run_suite(
        blobs.local_copy(submission.sha256, submission.stored_path), replace(suite, tests=tests)
    )
    if not report.complete:
        raise RuntimeError(report.error or "a test hit an internal error of the grader")
    return {
        "tests": harness.rich(report)["tests"],
        "gradescope": harness.gradescope(report)["tests"],
    }


def ran_words(test: dict[str, Any]) -> str:
    """A test the suite gained, run in the sandbox by the regrade, in words."""
    points = f"{test['score']:g} of {test['max_score']:g}"
    return f"{test['name']}: new in the suite, run in the sandbox: {test['verdict']}, {points}"


@dataclass
class ToRun:
    """An upload whose suite gained tests it never ran: run in the sandbox after the scoring."""

    upload: Submission
    slot: Slot
    suite: Any
    missing: list[str]


def regrade_attempt(attempt: Attempt, exercise: Exercise) -> dict[str, Any]:
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
        f"{key}: {pct(old.get(key, 0.0))} is now {pct(new.get(key, 0.0))}"
        for key in keys
        if old.get(key) != new.get(key)
    ]


def pct(value: Any) -> str:
    return f"{float(value or 0.0) * 100:.4g}%" if isinstance(value, int | float) else str(value)


def _items(slots: list[Slot], progress: Progress | None = None) -> dict[str, Any]:
    """Every stored score of `slots` that other versions gave, scored again: what changes
    (`changed`), what scores the same (`same`), and the uploads whose suite gained tests, those
    tests run in the sandbox (`ran`, by upload, and `sandbox`, each one's old and new points);
    `rerun` the uploads the sandbox could not score (the grader's error, in `rerun_errors`)."""
    now_grader = grader_version()
    changed: list[dict[str, Any]] = []
    same: dict[str, list[int]] = {"attempt": [], "submission": []}
    rerun: list[int] = []
    to_run: list[ToRun] = []
    examined = current = 0
    versions: dict[str, str] = {}
    for number, slot in enumerate(slots):
        if progress is not None:
            progress({"phase": "scoring", "slots_done": number, "slots_total": len(slots)})
        if not slot.slot_kind.has_exercise:  # an engine slot: its uploads
            suite = suite_now(slot)
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
                again = rescore_upload(upload, suite)
                if again.missing:
                    to_run.append(ToRun(upload, slot, suite, again.missing))
                    continue
                old = fraction(upload.score, upload.max_score)
                new = fraction(again.score, again.max_score)
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
            graded = regrade_attempt(attempt, exercise)
            parts = _part_changes(attempt.parts or {}, graded["parts"] or {})
            if abs(graded["score"] - attempt.score) < EPSILON:
                same["attempt"].append(attempt.id)
                continue
            changed.append(
                _item("attempt", attempt.id, attempt.user_id, slot, attempt.score, graded["score"])
                | {"changes": parts or ["the score"]}
            )
    ran: dict[str, dict[str, Any]] = {}
    sandbox: list[dict[str, Any]] = []
    errors: dict[str, str] = {}
    for number, job in enumerate(to_run):
        if progress is not None:
            progress({"phase": "sandbox", "uploads_done": number, "uploads_total": len(to_run)})
        upload = job.upload
        try:
            ran[str(upload.id)] = run_missing(upload, job.suite, job.missing)
        except Exception as error:  # the grader's fault: listed, the other uploads still run
            rerun.append(upload.id)
            errors[str(upload.id)] = f"{type(error).__name__}: {error}"[:300]
            continue
        tests = ran[str(upload.id)]["tests"]
        again = rescore_upload(upload, job.suite, tests)
        old = fraction(upload.score, upload.max_score)
        new = fraction(again.score, again.max_score)
        item = _item(
            "submission",
            upload.id,
            upload.owner_id,
            job.slot,
            old,
            new,
            again.changes + [ran_words(test) for test in tests],
        )
        sandbox.append(
            item
            | {
                "slot": slot_words(job.slot),
                "old_points": [upload.score or 0.0, upload.max_score or 0.0],
                "new_points": [again.score, again.max_score],
            }
        )
        if abs(old - new) < EPSILON:
            same["submission"].append(upload.id)
        else:
            changed.append(item)
    if progress is not None and to_run:
        progress({"phase": "sandbox", "uploads_done": len(to_run), "uploads_total": len(to_run)})
    return {
        "grader_version": now_grader,
        "versions": versions,
        "examined": examined,
        "current": current,
        "changed": changed,
        "same": same,
        "rerun": rerun,
        "rerun_errors": errors,
        "ran": ran,
        "sandbox": sandbox,
    }


def fraction(score: float | None, max_score: float | None) -> float:
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
    """Per student and slot whose score changes: the slot's score under its policy before and
    after (after the late penalty, as the gradebook counts it)."""
    new_of = {(c["slot_id"], c["id"]): c["new"] for c in changed}
    touched = {(c["user_id"], c["slot_id"]) for c in changed}
    by_slot = {slot.id: slot for slot in slots}
    counted: dict[tuple[int, int], list[scores.GradedAttempt]] = defaultdict(list)
    for one in scores.counted_attempts(course_id):
        if (one.user_id, one.slot_id) in touched:
            counted[one.user_id, one.slot_id].append(one)
    names = {
        row.id: row.name or row.email
        for row in db.session.execute(
            sa.select(User.id, User.name, User.email).where(User.id.in_({u for u, _ in touched}))
        )
    }
    rows = []
    for (user_id, slot_id), graded in sorted(counted.items()):
        slot = by_slot[slot_id]
        policy = slot.assignment.score_policy
        after = [replace(g, score=new_of.get((slot_id, g.id), g.score)) for g in graded]
        old, new = scores.policy_score(graded, policy), scores.policy_score(after, policy)
        if abs((old or 0.0) - (new or 0.0)) < EPSILON:
            continue  # an upload or attempt changed, not the score that counts
        rows.append(
            {
                "user_id": user_id,
                "student": names.get(user_id, f"account {user_id}"),
                "slot_id": slot_id,
                "slot": slot_words(slot),
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
    """How many changed scores (a student's on a slot) move by how much, in percentage points,
    in bins each side of no change."""
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
    slots = slots_of(regrade)
    found = _items(slots, progress)
    students = _students(regrade.course_id, slots, found["changed"])
    _name(found["sandbox"])
    return found | {"students": students, "histogram": histogram(students)}


def _name(rows: list[dict[str, Any]]) -> None:
    """Each row's student by name (or address), as the preview's other rows name them."""
    ids = {row["user_id"] for row in rows}
    names = {
        row.id: row.name or row.email
        for row in db.session.execute(
            sa.select(User.id, User.name, User.email).where(User.id.in_(ids))
        )
    }
    for row in rows:
        row["student"] = names.get(row["user_id"], f"account {row['user_id']}")


def progress_words(progress: dict[str, Any] | None) -> str | None:
    """A running regrade's progress in words, for its page and the API: the exercises scored,
    then the uploads run in the sandbox ("3 of 12 uploads run in the sandbox")."""
    progress = progress or {}
    if progress.get("phase") == "sandbox":
        done, total = progress.get("uploads_done", 0), progress.get("uploads_total", 0)
        return f"{done} of {total} upload{'' if total == 1 else 's'} run in the sandbox"
    if progress.get("phase") == "scoring" and "slots_total" in progress:
        done, total = progress["slots_done"], progress["slots_total"]
        return f"{done} of {total} exercise{'' if total == 1 else 's'} scored"
    return None


__all__ = ["histogram", "preview", "progress_words", "run_missing", "slots_of"]
