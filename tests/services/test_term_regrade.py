"""A term regraded with a diff, a choice and a record (issue 54): a course of 30 students, each
with an engine upload (its result stored as the worker stores one) and 3 attempts on a prune
slot (graded by the real attempt path), 90 attempts in all. A planted suite fix (one test's
points changed in the slot's suite file) and a planted change of the prune kind's rule make a
known third of the students gain and a third lose on each slot. The regrade runs as the worker
runs it (the one runner of leased jobs), previews exactly those students, and each choice does
what it says: keep-higher lowers nobody, replace lowers the planted ones; the LMS marks and the
students' notes follow; a regrade on the same versions changes nothing."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from grader import data
from grader.extensions import db
from grader.gametree import KINDS
from grader.models import (
    AuditEntry,
    LtiContext,
    LtiPassback,
    LtiRegistration,
    LtiResourceLink,
    ScoreNote,
    Slot,
    Submission,
    TermRegrade,
)
from grader.services import Conflict, Forbidden
from grader.services.engines import leases, submissions
from grader.services.teaching import scores, term_regrade
from tests.instructor_support import add_textbook_slot, textbook_key, user
from tests.jobs.engine_support import engine_bytes

TEACHER, TA = "teacher@example.com", "ta@example.com"
STUDENTS = [f"s{i:02d}@example.com" for i in range(30)]
WRONG_UP = {"pruned": [], "value": 3}  # the planted rule raises it
MOVEGEN_FAILED = "Move generation: start"  # a 1-point test
PERFT = "Perft 4: start"


def _group(i: int, shift: int = 0) -> str:
    return ("same", "up", "down")[(i + shift) % 3]


@dataclasses.dataclass
class Term:
    course_id: int
    assignment_id: int
    engine_slot: int
    prune_slot: int
    suite_file: Path
    ids: dict[str, int]


def _suite_tests(suite_file: Path) -> list[Any]:
    from grader.harness import load_suite

    return list(load_suite(suite_file).tests)


def _stored_rich(suite_file: Path, group: str) -> dict[str, Any]:
    """A run's tests as the worker stores them: "same" passes every test, "up" fails perft,
    "down" fails one movegen test."""
    tests = []
    for test in _suite_tests(suite_file):
        failed = (group == "up" and test.name == PERFT) or (
            group == "down" and test.name == MOVEGEN_FAILED
        )
        tests.append(
            {
                "name": test.name,
                "kind": test.kind,
                "verdict": "WA" if failed else "passed",
                "score": 0.0 if failed else test.points,
                "max_score": test.points,
                "output": "",
                "extra": {},
            }
        )
    return {"tests": tests}


@pytest.fixture
def term(app, factory, tmp_path) -> Term:
    from grader.services.teaching import editor

    factory.user(TEACHER, "instructor")
    factory.user(TA)
    course_id, _ = factory.course("Search 201", TEACHER)
    factory.member(course_id, TA, "ta")
    for email in STUDENTS:
        factory.user(email)
        factory.member(course_id, email)
    suite_file = tmp_path / "suite" / "course.json"
    suite_file.parent.mkdir()
    definition = json.loads((data.suite_dir() / "quick.json").read_text())
    definition["positions"] = str(data.suite_dir() / "positions.json")
    suite_file.write_text(json.dumps(definition))
    assert PERFT in {t.name for t in _suite_tests(suite_file)}
    with app.app_context():
        teacher = user(TEACHER)
        assignment = editor.create_assignment(
            teacher, course_id, editor.AssignmentInput(title="Homework 3", score_policy="best")
        )
        engine = submissions.add_engine_slot(assignment.id, suite=str(suite_file))
        engine_slot = engine.id
        add_textbook_slot(teacher, assignment.id, "Textbook tree")
        prune_slot = db.session.scalar(
            sa.select(Slot.id).where(Slot.assignment_id == assignment.id, Slot.kind == "prune")
        )
        ids = {email: user(email).id for email in [TEACHER, TA, *STUDENTS]}
        # The assignment placed in an LMS: every changed score of its slots is marked to send.
        registration = LtiRegistration(
            issuer="https://lms.example.edu",
            client_id="grader",
            auth_login_url="https://lms.example.edu/auth",
            auth_token_url="https://lms.example.edu/token",
            key_set_url="https://lms.example.edu/jwks",
        )
        db.session.add(registration)
        db.session.flush()
        context = LtiContext(
            registration_id=registration.id,
            context_id="ctx",
            course_id=course_id,
            deployment_id="d1",
        )
        db.session.add(context)
        db.session.flush()
        db.session.add(
            LtiResourceLink(
                context_id=context.id, resource_link_id="hw3", assignment_id=assignment.id
            )
        )
        db.session.commit()
        index = engine.index
        room = Term(course_id, assignment.id, engine_slot, prune_slot, suite_file, ids)
        # 30 uploads through the real intake, each result stored as the worker stores it.
        for i, email in enumerate(STUDENTS):
            upload = submissions.upload(
                user(email), assignment.id, index, engine_bytes("correct"), "engine.py"
            )
            assert leases.claim_submission(upload.id, "w") is not None
            rich = _stored_rich(suite_file, _group(i))
            total = sum(t["score"] for t in rich["tests"])
            most = sum(t["max_score"] for t in rich["tests"])
            assert leases.write_result(
                upload.id,
                "w",
                score=total,
                max_score=most,
                gradescope={"score": total, "tests": rich["tests"]},
                rich=rich,
                suite_version=_version(suite_file),
            )
        # 90 attempts through the real attempt path: 3 a student.
        from grader.services.trees import attempts, exercises

        key = textbook_key()
        for i, email in enumerate(STUDENTS):
            student = user(email)
            exercise = exercises.slot_exercise(student, assignment.id, 1)
            group = _group(i, 1)
            reply = key if group == "same" else WRONG_UP if group == "up" else {**key, "value": 4}
            for _ in range(3):
                attempts.submit(student, exercise.id, reply)
        db.session.remove()
    return room


def _version(suite_file: Path) -> str:
    from grader.harness import load_suite

    return load_suite(suite_file).version


def _plant_suite_fix(term: Term) -> None:
    """The suite's perft test was worth 3 points; the fix makes it 1."""
    definition = json.loads(term.suite_file.read_text())
    for group in definition["groups"]:
        if group["kind"] == "perft":
            group["points"] = 1
    term.suite_file.write_text(json.dumps(definition))


def _plant_rule_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """The prune kind's rule corrected: an answer that prunes nothing gets a quarter more, one
    with the wrong value a quarter less (its rule's version raised, as a real change does)."""
    kind = KINDS["prune"]
    original = type(kind).grade

    def grade(self: Any, tree: Any, conventions: Any, answer: Any) -> Any:
        graded = original(self, tree, conventions, answer)
        if answer.get("pruned") == []:
            return dataclasses.replace(
                graded,
                score=min(1.0, graded.score + 0.25),
                parts={**graded.parts, "pruned": graded.parts.get("pruned", 0) + 0.25},
            )
        if answer.get("value") == 4:
            return dataclasses.replace(
                graded,
                score=max(0.0, graded.score - 0.25),
                parts={**graded.parts, "value": 0.0},
            )
        return graded

    monkeypatch.setattr(type(kind), "grade", grade)
    monkeypatch.setattr(type(kind), "rule_version", "2")


def _slot_scores(app: Any, term: Term) -> dict[tuple[int, int], float]:
    with app.app_context():
        graded: dict[tuple[int, int], list[Any]] = {}
        for attempt in scores.counted_attempts(term.course_id):
            graded.setdefault((attempt.user_id, attempt.slot_id), []).append(attempt)
        db.session.remove()
    return {key: scores.policy_score(rows, "best") or 0.0 for key, rows in graded.items()}


def _run(app: Any, term: Term, **scope: Any) -> TermRegrade:
    from grader.jobs import run_term_regrade

    with app.app_context():
        regrade = term_regrade.start(
            user(TEACHER), term.course_id, reason="the suite's perft test was overweighted", **scope
        )
        assert regrade.status == "queued"
        assert run_term_regrade(regrade.id, "test-worker") == "done"
        db.session.remove()
        return db.session.get_one(TermRegrade, regrade.id)


def _expected(term: Term) -> dict[tuple[int, int], str]:
    moved: dict[tuple[int, int], str] = {}
    for i, email in enumerate(STUDENTS):
        uid = term.ids[email]
        if _group(i) != "same":
            moved[uid, term.engine_slot] = _group(i)
        if _group(i, 1) != "same":
            moved[uid, term.prune_slot] = _group(i, 1)
    return moved


def _planted(app, term, monkeypatch) -> tuple[TermRegrade, dict[tuple[int, int], float]]:
    before = _slot_scores(app, term)
    assert len(before) == 60  # 30 students, two slots
    _plant_suite_fix(term)
    _plant_rule_change(monkeypatch)
    regrade = _run(app, term)
    assert _slot_scores(app, term) == before  # the preview applied nothing
    return regrade, before


def test_the_preview_lists_exactly_the_students_whose_points_change(app, term, monkeypatch):
    regrade, before = _planted(app, term, monkeypatch)
    result = regrade.result
    assert result is not None
    moved = {(r["user_id"], r["slot_id"]): r for r in result["students"]}
    expected = _expected(term)
    assert set(moved) == set(expected)
    assert len(moved) == 40  # 20 students on each slot
    for key, row in moved.items():
        assert row["old"] == pytest.approx(before[key])
        assert (row["new"] > row["old"]) == (expected[key] == "up")
        assert row["changes"], row
    upload_row = next(r for k, r in moved.items() if k[1] == term.engine_slot)
    assert any(PERFT in change for change in upload_row["changes"])
    attempt_row = next(r for k, r in moved.items() if k[1] == term.prune_slot)
    assert any(c.startswith(("pruned", "value")) for c in attempt_row["changes"])
    assert result["examined"] == 120 and result["current"] == 0  # 30 uploads, 90 attempts
    assert sum(result["histogram"]["counts"]) == 40
    assert not result["rerun"]


def test_keep_higher_lowers_no_score_and_tells_the_raised(app, term, monkeypatch):
    regrade, before = _planted(app, term, monkeypatch)
    with app.app_context():
        db.session.execute(sa.delete(LtiPassback))
        db.session.commit()
        counts = term_regrade.apply(user(TEACHER), regrade.id, "keep_higher")
        db.session.remove()
    after = _slot_scores(app, term)
    assert all(after[key] >= before[key] - 1e-9 for key in before)
    expected = _expected(term)
    raised = {key for key, group in expected.items() if group == "up"}
    assert {key for key in before if after[key] > before[key] + 1e-9} == raised
    assert counts["kept"] == 10 + 30  # 10 uploads and 30 attempts would have gone down
    with app.app_context():
        marked = set(db.session.execute(sa.select(LtiPassback.user_id, LtiPassback.slot_id)))
        noted = set(db.session.execute(sa.select(ScoreNote.user_id, ScoreNote.slot_id)))
        entry = db.session.scalars(sa.select(AuditEntry).order_by(AuditEntry.id.desc())).first()
        assert entry is not None and entry.changes["choice"] == "keep the higher score"
    assert marked == raised and noted == raised


def test_replace_lowers_the_planted_ones_and_marks_and_tells_them(app, term, monkeypatch):
    regrade, before = _planted(app, term, monkeypatch)
    with app.app_context():
        db.session.execute(sa.delete(LtiPassback))
        db.session.commit()
        with pytest.raises(Forbidden):
            term_regrade.apply(user(TA), regrade.id, "replace")
        term_regrade.apply(user(TEACHER), regrade.id, "replace")
        with pytest.raises(Conflict, match="applied already"):
            term_regrade.apply(user(TEACHER), regrade.id, "discard")
        db.session.remove()
    after = _slot_scores(app, term)
    expected = _expected(term)
    lowered = {key for key, group in expected.items() if group == "down"}
    assert {key for key in before if after[key] < before[key] - 1e-9} == lowered
    with app.app_context():
        marked = set(db.session.execute(sa.select(LtiPassback.user_id, LtiPassback.slot_id)))
        notes = {(n.user_id, n.slot_id): n.text for n in db.session.scalars(sa.select(ScoreNote))}
        stamped = db.session.scalars(sa.select(Submission.suite_version)).all()
        db.session.remove()
    assert marked == set(expected) == set(notes)
    some_down = next(key for key in lowered if key[1] == term.engine_slot)
    words = notes[some_down]
    assert "because the suite's perft test was overweighted" in words
    assert f"went from {before[some_down] * 100:.4g}% to {after[some_down] * 100:.4g}%" in words
    assert PERFT in words
    assert set(stamped) == {_version(term.suite_file)}  # every upload now says its suite
    # A regrade on the same grader and suite versions changes nothing.
    again = _run(app, term)
    assert again.result is not None
    assert again.result["examined"] == 0 and again.result["students"] == []
    assert again.result["current"] == 120


def test_discard_applies_nothing(app, term, monkeypatch):
    regrade, before = _planted(app, term, monkeypatch)
    with app.app_context():
        db.session.execute(sa.delete(LtiPassback))
        db.session.commit()
        term_regrade.apply(user(TEACHER), regrade.id, "discard")
        assert db.session.scalar(sa.select(sa.func.count()).select_from(LtiPassback)) == 0
        assert db.session.scalar(sa.select(sa.func.count()).select_from(ScoreNote)) == 0
        db.session.remove()
    assert _slot_scores(app, term) == before


def test_a_regrade_on_the_same_versions_looks_at_nothing_and_unknown_ones_change_nothing(app, term):
    assert _run(app, term).result["examined"] == 0  # graded by the versions that grade now
    with app.app_context():  # scores stored before versions were recorded: unknown
        db.session.execute(sa.update(Submission).values(grader_version=None, suite_version=None))
        db.session.commit()
    regrade = _run(app, term, assignment_id=term.assignment_id)
    assert regrade.result["examined"] == 30
    assert regrade.result["students"] == [] and len(regrade.result["same"]["submission"]) == 30
