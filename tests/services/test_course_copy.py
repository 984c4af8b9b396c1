"""The next term: a course copied field by field (the fields read from the models, so a new
column is either copied or named here as not copied), its dates shifted; no students, attempts,
uploads or LMS links; one assignment copied into another course the same instructor teaches;
the CLI and the dashboard page."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import (
    ENGINE_KIND,
    Assignment,
    Attempt,
    Course,
    Exercise,
    LtiResourceLink,
    Membership,
    Slot,
    Submission,
)
from grader.services.courses import copying
from tests.app_support import csrf_from, upload_row

# What a copy does not take from the original, written out again here: a column added to the
# models is compared below unless it is named here (and in the service's NOT_COPIED).
NOT_COPIED = {
    Course: {
        "id",
        "name",
        "join_code",
        "join_code_expires_at",
        "created_at",
        "archived_at",
        "purged_at",
    },
    Assignment: {"id", "course_id", "created_at", "scores_sent_at"},
    Slot: {"id", "assignment_id"},
}
DUE = dt.datetime(2027, 9, 14, 23, 59)
TREE = {"tree": [[3, 12, 8], [2, 4, 6], [14, 5, 2]], "players": ["max", "min"]}


def full_course(app: Any, factory: Any) -> dict[str, int]:
    """A course with every kind of content: preset assignments, a custom tree, an imported
    tree, an engine slot, dates on assignments and slots, the integrity setting; and what is
    not copied: a student, an attempt, an upload, an LMS link."""
    from grader.gametree import KINDS, Conventions, Tree
    from grader.services.trees import attempts, exercises

    factory.user("teacher@example.com", "instructor")
    factory.user("student@example.com")
    course_id, _ = factory.course("Search, fall", "teacher@example.com")
    factory.member(course_id, "student@example.com")
    first = factory.assignment(
        course_id,
        "standard",
        due_at=DUE,
        release_at=dt.datetime(2026, 1, 5, 8, 0),
        late_percent_per_day=10.0,
        score_policy="last",
    )
    second = factory.assignment(course_id, "intro", due_at=DUE + dt.timedelta(days=14))
    with app.app_context():
        course = db.session.get(Course, course_id)
        course.integrity_ta = True
        extra = Assignment(course_id=course_id, title="Trees of our own", due_at=None)
        db.session.add(extra)
        db.session.flush()
        db.session.add_all(
            [
                Slot(
                    assignment_id=extra.id,
                    index=0,
                    title="Custom",
                    kind="prune",
                    params={},
                    conventions={"order": "left-to-right"},
                    tree=TREE,
                    attempts_allowed=3,
                    practice_allowed=True,
                    replay_allowed=True,
                    due_at=DUE + dt.timedelta(days=3, hours=2),
                ),
                Slot(
                    assignment_id=extra.id,
                    index=1,
                    title="Imported (AIMA 5.2)",
                    kind="minimax",
                    params={"source": "aima"},
                    conventions={},
                    tree=TREE,
                ),
                Slot(
                    assignment_id=extra.id,
                    index=2,
                    title="Engine",
                    kind=ENGINE_KIND,
                    params={"suite": "quick"},
                    conventions={},
                    due_at=DUE + dt.timedelta(days=30),
                ),
            ]
        )
        db.session.commit()
        from grader.services import accounts

        student = accounts.user_by_email("student@example.com")
        exercise = exercises.slot_exercise(student, first, 0)
        key = KINDS[exercise.kind].key(
            Tree.from_nested(exercise.tree), Conventions.from_dict(exercise.conventions)
        )
        attempts.submit(student, exercise.id, key)
        engine_slot = db.session.scalar(sa.select(Slot.id).where(Slot.kind == ENGINE_KIND))
        upload_row(student.id, engine_slot, size=10)
        db.session.commit()
    return {"course_id": course_id, "first": first, "second": second}


def compare(original: Any, copy: Any, model: type, offset: dt.timedelta) -> None:
    for column in model.__table__.columns:
        if column.name in NOT_COPIED[model]:
            continue
        before, after = getattr(original, column.key), getattr(copy, column.key)
        if isinstance(column.type, sa.DateTime) and before is not None:
            before = before + offset
        assert after == before, f"{model.__name__}.{column.name}: {after!r} != {before!r}"


def test_the_not_copied_columns_are_the_services(app):
    from grader.services.courses import copying

    assert {m: set(c) for m, c in copying.NOT_COPIED.items()} == NOT_COPIED
    for model, names in NOT_COPIED.items():
        assert names <= {c.name for c in model.__table__.columns}


def test_a_course_is_copied_field_by_field_with_its_dates_shifted(app, factory):
    from grader.services.courses import copying

    made = full_course(app, factory)
    with app.app_context():
        copied = copying.copy_course(None, made["course_id"], "Search, spring", shift_days=112)
        offset = dt.timedelta(days=112)
        assert copied.offset == offset and copied.assignments == 3
        original = db.session.get(Course, made["course_id"])
        new = db.session.get(Course, copied.course.id)
        assert new.name == "Search, spring" and new.join_code != original.join_code
        compare(original, new, Course, offset)
        assert len(new.assignments) == len(original.assignments) == 3
        for before, after in zip(original.assignments, new.assignments, strict=True):
            compare(before, after, Assignment, offset)
            assert len(after.slots) == len(before.slots) > 0
            for old_slot, new_slot in zip(before.slots, after.slots, strict=True):
                compare(old_slot, new_slot, Slot, offset)
        assert new.assignments[0].due_at == DUE + offset
        # The instructors teach it; no student, attempt, upload or LMS link came along.
        roles = (
            db.session.execute(sa.select(Membership.role).where(Membership.course_id == new.id))
            .scalars()
            .all()
        )
        assert roles == ["instructor"]
        new_slots = [s.id for a in new.assignments for s in a.slots]
        uploads = sa.select(sa.func.count(Submission.id)).where(Submission.slot_id.in_(new_slots))
        assert db.session.scalar(uploads) == 0
        answered = (
            sa.select(sa.func.count(Attempt.id))
            .join(Exercise, Attempt.exercise_id == Exercise.id)
            .where(Exercise.slot_id.in_(new_slots))
        )
        assert db.session.scalar(answered) == 0
        old_slots = [s.id for a in original.assignments for s in a.slots]
        assert db.session.scalar(answered.where(Exercise.slot_id.in_(old_slots))) is not None
        assert (
            db.session.scalar(
                sa.select(sa.func.count(LtiResourceLink.id)).where(
                    LtiResourceLink.assignment_id.in_([a.id for a in new.assignments])
                )
            )
            == 0
        )


def test_the_first_due_date_can_be_mapped_to_a_chosen_date(app, factory):
    from grader.services.courses import copying

    made = full_course(app, factory)
    target = dt.datetime(2028, 1, 25, 17, 0)
    with app.app_context():
        copied = copying.copy_course(None, made["course_id"], "Next", first_due_at=target)
        assert copying.first_due(copied.course) == target
        assert copied.offset == target - DUE


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({}, "give either a number of days"),
        ({"shift_days": 1, "first_due_at": DUE}, "give either a number of days"),
        ({"shift_days": 99_999}, "at most 3660 days"),
    ],
)
def test_an_unclear_shift_is_refused(app, factory, args, words):
    from grader.services import Invalid
    from grader.services.courses import copying

    made = full_course(app, factory)
    with app.app_context():
        before = db.session.scalar(sa.select(sa.func.count(Course.id)))
        with pytest.raises(Invalid, match=words):
            copying.copy_course(None, made["course_id"], "Next", **args)
        assert db.session.scalar(sa.select(sa.func.count(Course.id))) == before


def test_the_cli_copies_a_course(app, factory, runner):
    made = full_course(app, factory)
    result = runner.invoke(
        args=[
            "course",
            "copy",
            str(made["course_id"]),
            "--name",
            "Search, spring",
            "--shift-days",
            "112",
        ]
    )
    assert result.exit_code == 0, result.output
    assert "dates moved by +112 days" in result.output
    assert "deep linking" in result.output
    mapped = runner.invoke(
        args=[
            "course",
            "copy",
            "Search, fall",
            "--name",
            "Search, summer",
            "--first-due",
            "2028-06-07 12:00",
        ]
    )
    assert mapped.exit_code == 0, mapped.output
    with app.app_context():
        summer = db.session.scalar(sa.select(Course).where(Course.name == "Search, summer"))
        from grader.services.courses import copying

        assert copying.first_due(summer) == dt.datetime(2028, 6, 7, 12, 0)
    both = runner.invoke(
        args=[
            "course",
            "copy",
            "Search, fall",
            "--name",
            "X",
            "--shift-days",
            "1",
            "--first-due",
            "2028-06-07 12:00",
        ]
    )
    assert both.exit_code != 0 and "give either" in both.output


def test_the_page_copies_a_course_and_one_assignment(app, factory, client, auth):
    made = full_course(app, factory)
    other, _ = factory.course("Games", "teacher@example.com")
    auth.login("teacher@example.com")
    page = client.get(f"/instructor/courses/{made['course_id']}/copy")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "place the links again by deep linking" in html
    done = client.post(
        f"/instructor/courses/{made['course_id']}/copy",
        data={
            "csrf_token": csrf_from(html),
            "course-name": "Search, spring",
            "course-how": "first_due",
            "course-first_due": "2028-01-25T17:00",
        },
    )
    assert done.status_code == 302, done.get_data(as_text=True)
    with app.app_context():
        spring = db.session.scalar(sa.select(Course).where(Course.name == "Search, spring"))
        assert spring.assignments[0].due_at == dt.datetime(2028, 1, 25, 17, 0)
    one = client.post(
        f"/instructor/courses/{made['course_id']}/copy-assignment",
        data={
            "csrf_token": csrf_from(html),
            "one-assignment": str(made["second"]),
            "one-target": str(other),
            "one-shift_days": "0",
        },
    )
    assert one.status_code == 302, one.get_data(as_text=True)
    with app.app_context():
        [copied] = db.session.get(Course, other).assignments
        original = db.session.get(Assignment, made["second"])
        compare(original, copied, Assignment, dt.timedelta(0))


def test_only_an_instructor_of_both_courses_copies(app, factory, client, auth):
    made = full_course(app, factory)
    factory.user("other@example.com", "instructor")
    elsewhere, _ = factory.course("Not theirs", "other@example.com")
    factory.user("ta@example.com")
    factory.member(made["course_id"], "ta@example.com", "ta")
    auth.login("ta@example.com")
    assert client.get(f"/instructor/courses/{made['course_id']}/copy").status_code == 403
    auth.logout()
    auth.login("teacher@example.com")
    html = client.get(f"/instructor/courses/{made['course_id']}/copy").get_data(as_text=True)
    refused = client.post(
        f"/instructor/courses/{made['course_id']}/copy-assignment",
        data={
            "csrf_token": csrf_from(html),
            "one-assignment": str(made["second"]),
            "one-target": str(elsewhere),
            "one-shift_days": "0",
        },
    )
    assert refused.status_code == 200  # the page again, with the words
    assert "Not a valid choice" in refused.get_data(as_text=True)
    with app.app_context():
        assert db.session.get(Course, elsewhere).assignments == []


def test_a_first_due_date_is_read_in_the_course_time_zone(app, factory, client, auth, runner):
    """The CLI and the page read the chosen first due date as the course's other dates are
    typed: in its zone (New York, EDT in June, EST in January), unless it carries an offset."""
    made = full_course(app, factory)
    with app.app_context():
        db.session.get(Course, made["course_id"]).timezone = "America/New_York"
        db.session.commit()
    for name, typed, stored in [
        ("Summer", "2028-06-07 08:00", dt.datetime(2028, 6, 7, 12, 0)),
        ("Summer, offset", "2028-06-07 08:00+00:00", dt.datetime(2028, 6, 7, 8, 0)),
    ]:
        result = runner.invoke(
            args=["course", "copy", str(made["course_id"]), "--name", name, "--first-due", typed]
        )
        assert result.exit_code == 0, result.output
        with app.app_context():
            copied = db.session.scalar(sa.select(Course).where(Course.name == name))
            assert copying.first_due(copied) == stored
    auth.login("teacher@example.com")
    page = client.get(f"/instructor/courses/{made['course_id']}/copy")
    html = page.get_data(as_text=True)
    assert "America/New_York" in html
    done = client.post(
        f"/instructor/courses/{made['course_id']}/copy",
        data={
            "csrf_token": csrf_from(html),
            "course-name": "Spring",
            "course-how": "first_due",
            "course-first_due": "2028-01-25T17:00",
        },
    )
    assert done.status_code == 302, done.get_data(as_text=True)
    with app.app_context():
        spring = db.session.scalar(sa.select(Course).where(Course.name == "Spring"))
        assert copying.first_due(spring) == dt.datetime(2028, 1, 25, 22, 0)
