"""The instructor's misconception statistics count the classic mistakes named in graded engine
runs, per engine slot."""

from __future__ import annotations

import sqlalchemy as sa

from grader.extensions import db
from grader.models import EngineResult, Submission
from tests.jobs.engine_support import engine_bytes


def _graded(
    app,
    submission_id: int,
    diagnoses: list[str | None],
    candidates: list[list[str]] | None = None,
    explanation: list[str] | None = None,
) -> None:
    """Store a run's result as the worker does, its tests carrying these diagnoses (and, as
    runs store them now, each test's candidates and the run's explanation)."""
    tests = [
        {
            "name": f"t{i}",
            "verdict": "WA" if code else "passed",
            "extra": ({"diagnosis": code} if code else {})
            | ({"candidates": candidates[i]} if candidates and candidates[i] else {}),
        }
        for i, code in enumerate(diagnoses)
    ]
    rich: dict = {"tests": tests}
    if explanation is not None:
        rich["explanation"] = {"codes": explanation}
    with app.app_context():
        db.session.execute(
            sa.update(Submission)
            .where(Submission.id == submission_id)
            .values(status="done", score=1.0, max_score=5.0)
        )
        db.session.add(
            EngineResult(submission_id=submission_id, worker="test", gradescope={}, rich=rich)
        )
        db.session.commit()
        db.session.remove()


def test_engine_runs_count_per_slot_by_named_mistake(app, client, auth, room, upload):
    first = upload(engine_bytes("tie_strict")).get_json()["id"]
    second = upload(engine_bytes("correct")).get_json()["id"]
    third = upload(engine_bytes("no_pruning")).get_json()["id"]
    _graded(app, first, ["tie-strict", "tie-strict", None])
    _graded(app, second, [None, None])
    _graded(app, third, ["no-pruning", "tie-strict"])
    auth.login("teacher@example.com", "correct horse battery")
    data = client.get(f"/api/courses/{room.course_id}/misconceptions").get_json()
    ((slot_id, counts),) = data["by_engine_slot"].items()
    assert counts == {"tie-strict": 2, "no-pruning": 1}  # runs, not tests
    assert data["engine_runs"] == {slot_id: 3}
    page = client.get(f"/instructor/courses/{room.course_id}/misconceptions")
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and 'data-role="engine-misconceptions"' in text
    assert 'title="shallow-cutoffs">Shallow cutoffs</th>' in text  # plain name, code on hover


def test_an_ambiguous_test_counts_the_explanation_not_each_candidate(
    app, client, auth, room, upload
):
    """The tie-rule engine's depth-2 test matches tie-strict and no-pruning; its run is explained
    by tie-strict alone, and only tie-strict is counted (with or without the stored explanation:
    a run stored before explanations were kept is explained from its tests' candidates)."""
    first = upload(engine_bytes("tie_strict")).get_json()["id"]
    second = upload(engine_bytes("tie_strict")).get_json()["id"]
    both, alone = ["no-pruning", "tie-strict"], ["tie-strict"]
    first_named = ["no-pruning", "tie-strict"]  # each test's first candidate, as once stored
    _graded(app, first, first_named, [both, alone], explanation=["tie-strict"])
    _graded(app, second, first_named, [both, alone])
    auth.login("teacher@example.com", "correct horse battery")
    data = client.get(f"/api/courses/{room.course_id}/misconceptions").get_json()
    ((_, counts),) = data["by_engine_slot"].items()
    assert counts == {"tie-strict": 2}
