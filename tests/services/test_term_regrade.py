"""A term regraded with a diff, a choice and a record (issue 54): a course of 30 students, each
with an engine upload (its result stored as the worker stores one) and 3 attempts on a prune
slot (graded by the real attempt path), 90 attempts in all. A planted suite fix (one test's
points changed in the slot's suite file) and a planted change of the prune kind's rule make a
known third of the students gain and a third lose on each slot. The regrade runs as the worker
runs it (the one runner of leased jobs), previews exactly those students, and each choice does
what it says: keep-higher lowers nobody, replace lowers the planted ones; the LMS marks and the
students' notes follow; a regrade on the same versions changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import AuditEntry, LtiPassback, ScoreNote, Submission, TermRegrade
from grader.services import Conflict, Forbidden
from grader.services.teaching import regrade_choice, scores, term_regrade
from tests.instructor_support import user
from tests.services.term_regrade_support import (
    PERFT,
    STUDENTS,
    TA,
    TEACHER,
    Term,
    build_term,
    group_of,
    plant_rule_change,
    plant_suite_fix,
    suite_version,
)


@pytest.fixture
def term(app, factory, tmp_path) -> Term:
    return build_term(app, factory, tmp_path)


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
        if group_of(i) != "same":
            moved[uid, term.engine_slot] = group_of(i)
        if group_of(i, 1) != "same":
            moved[uid, term.prune_slot] = group_of(i, 1)
    return moved


def _planted(app, term, monkeypatch) -> tuple[TermRegrade, dict[tuple[int, int], float]]:
    before = _slot_scores(app, term)
    assert len(before) == 60  # 30 students, two slots
    plant_suite_fix(term)
    plant_rule_change(monkeypatch)
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
        counts = regrade_choice.apply(user(TEACHER), regrade.id, "keep_higher")
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
            regrade_choice.apply(user(TA), regrade.id, "replace")
        regrade_choice.apply(user(TEACHER), regrade.id, "replace")
        with pytest.raises(Conflict, match="applied already"):
            regrade_choice.apply(user(TEACHER), regrade.id, "discard")
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
    assert set(stamped) == {suite_version(term.suite_file)}  # every upload now says its suite
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
        regrade_choice.apply(user(TEACHER), regrade.id, "discard")
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


def test_a_test_the_suite_gained_is_run_and_an_upload_it_cannot_run_is_listed_apart(
    app, factory, tmp_path
):
    # Two uploads of the correct engine; a move generation test planted in the suite. The
    # regrade runs it in the sandbox on the upload it can read, and lists apart, with the
    # grader's error, the one whose stored bytes are gone; nothing is stored on either.
    import json

    term = build_term(app, factory, tmp_path, 2)
    definition = json.loads(term.suite_file.read_text())
    definition["groups"].append(
        {"kind": "movegen", "points": 1, "cpu": 1, "wall": 2, "positions": ["crowded-king"]}
    )
    term.suite_file.write_text(json.dumps(definition))
    with app.app_context():
        good, gone = db.session.scalars(sa.select(Submission).order_by(Submission.id)).all()
        gone.sha256 = "0" * 64  # its bytes cannot be found any more
        db.session.commit()
        ids, before = (good.id, gone.id), {s.id: (s.score, s.max_score) for s in (good, gone)}
        db.session.remove()
    regrade = _run(app, term, assignment_id=term.assignment_id)
    result = regrade.result
    assert result["rerun"] == [ids[1]] and "MissingBlob" in result["rerun_errors"][str(ids[1])]
    (ran,) = result["sandbox"]
    score, most = before[ids[0]]
    assert ran["id"] == ids[0] and ran["new_points"] == [score + 1, most + 1]
    assert ran["changes"] == [
        "Move generation: crowded-king: new in the suite, run in the sandbox: passed, 1 of 1"
    ]
    assert [t["name"] for t in result["ran"][str(ids[0])]["tests"]] == [
        "Move generation: crowded-king"
    ]
    with app.app_context():
        assert {
            s.id: (s.score, s.max_score) for s in db.session.scalars(sa.select(Submission))
        } == before
        db.session.remove()
