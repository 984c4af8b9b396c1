"""A term to regrade (issue 54): students with an engine upload each, its result stored as the
worker stores one, and 3 attempts each on a prune slot graded by the real attempt path, the
assignment placed in an LMS; and the planted changes a regrade finds (a suite fix, a corrected
kind rule)."""

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
from grader.models import LtiContext, LtiRegistration, LtiResourceLink, Slot
from grader.services.engines import leases, submissions
from tests.instructor_support import add_textbook_slot, textbook_key, user
from tests.jobs.engine_support import engine_bytes

TEACHER, TA = "teacher@example.com", "ta@example.com"
STUDENTS = [f"s{i:02d}@example.com" for i in range(30)]
WRONG_UP = {"pruned": [], "value": 3}  # the planted rule raises it
MOVEGEN_FAILED = "Move generation: start"  # a 1-point test
PERFT = "Perft 4: start"


def group_of(i: int, shift: int = 0) -> str:
    return ("same", "up", "down")[(i + shift) % 3]


@dataclasses.dataclass
class Term:
    course_id: int
    assignment_id: int
    engine_slot: int
    prune_slot: int
    suite_file: Path
    ids: dict[str, int]


def suite_tests(suite_file: Path) -> list[Any]:
    from grader.harness import load_suite

    return list(load_suite(suite_file).tests)


def stored_rich(suite_file: Path, group: str) -> dict[str, Any]:
    """A run's tests as the worker stores them: "same" passes every test, "up" fails perft,
    "down" fails one movegen test."""
    tests = []
    for test in suite_tests(suite_file):
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


def build_term(app: Any, factory: Any, tmp_path: Path, count: int = 30) -> Term:
    """A course of `count` students, each with an upload (its result stored as the worker
    stores one) and 3 attempts on the textbook prune slot, placed in an LMS."""
    from grader.services.teaching import editor

    factory.user(TEACHER, "instructor")
    factory.user(TA)
    course_id, _ = factory.course("Search 201", TEACHER)
    factory.member(course_id, TA, "ta")
    for email in STUDENTS[:count]:
        factory.user(email)
        factory.member(course_id, email)
    suite_file = tmp_path / "suite" / "course.json"
    suite_file.parent.mkdir()
    definition = json.loads((data.suite_dir() / "quick.json").read_text())
    definition["positions"] = str(data.suite_dir() / "positions.json")
    suite_file.write_text(json.dumps(definition))
    assert PERFT in {t.name for t in suite_tests(suite_file)}
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
        ids = {email: user(email).id for email in [TEACHER, TA, *STUDENTS[:count]]}
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
        for i, email in enumerate(STUDENTS[:count]):
            upload = submissions.upload(
                user(email), assignment.id, index, engine_bytes("correct"), "engine.py"
            )
            assert leases.claim_submission(upload.id, "w") is not None
            rich = stored_rich(suite_file, group_of(i))
            total = sum(t["score"] for t in rich["tests"])
            most = sum(t["max_score"] for t in rich["tests"])
            assert leases.write_result(
                upload.id,
                "w",
                score=total,
                max_score=most,
                gradescope={"score": total, "tests": rich["tests"]},
                rich=rich,
                suite_version=suite_version(suite_file),
            )
        # 90 attempts through the real attempt path: 3 a student.
        from grader.services.trees import attempts, exercises

        key = textbook_key()
        for i, email in enumerate(STUDENTS[:count]):
            student = user(email)
            exercise = exercises.slot_exercise(student, assignment.id, 1)
            group = group_of(i, 1)
            reply = key if group == "same" else WRONG_UP if group == "up" else {**key, "value": 4}
            for _ in range(3):
                attempts.submit(student, exercise.id, reply)
        db.session.remove()
    return room


def suite_version(suite_file: Path) -> str:
    from grader.harness import load_suite

    return load_suite(suite_file).version


def plant_suite_fix(term: Term) -> None:
    """The suite's perft test was worth 3 points; the fix makes it 1."""
    definition = json.loads(term.suite_file.read_text())
    for group in definition["groups"]:
        if group["kind"] == "perft":
            group["points"] = 1
    term.suite_file.write_text(json.dumps(definition))


def plant_rule_change(monkeypatch: pytest.MonkeyPatch) -> None:
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
