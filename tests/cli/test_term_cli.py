"""`grader course create --timezone`, `grader course set --timezone`, `grader course extend`, and
dates typed on the command line read in the course's zone."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from grader.extensions import db
from grader.models import Assignment, Course, Extension


def _room(runner, factory):
    factory.user("ana@example.com")
    made = runner.invoke(args=["course", "create", "Games", "--timezone", "America/New_York"])
    assert made.exit_code == 0, made.output
    assert "(America/New_York)" in made.output
    course_id = int(made.output.split()[1])
    factory.member(course_id, "ana@example.com")
    created = runner.invoke(
        args=["assignment", "create", "--course", "Games", "--due", "2026-11-01 23:59"]
    )
    assert created.exit_code == 0, created.output
    return course_id


def test_dates_typed_on_the_cli_are_read_in_the_courses_zone(runner, app, factory):
    _room(runner, factory)
    with app.app_context():
        # 23:59 on the day New York's clocks go back is 23:59 EST.
        assert db.session.scalar(sa.select(Assignment.due_at)) == dt.datetime(2026, 11, 2, 4, 59)
    skipped = runner.invoke(
        args=["assignment", "create", "--course", "Games", "--due", "2026-03-08 02:30"]
    )
    assert skipped.exit_code != 0
    assert "2026-03-08 02:30 does not exist in America/New_York" in skipped.output
    bad = runner.invoke(args=["course", "create", "Other", "--timezone", "Eastern"])
    assert bad.exit_code != 0 and "'Eastern' is not an IANA time zone" in bad.output


def test_course_set_timezone_keeps_every_instant(runner, app, factory):
    _room(runner, factory)
    moved = runner.invoke(args=["course", "set", "Games", "--timezone", "Europe/Berlin"])
    assert moved.exit_code == 0, moved.output
    assert "due Mon 2 Nov 2026, 05:59 CET (Europe/Berlin)" in moved.output
    with app.app_context():
        assert db.session.scalar(sa.select(Course.timezone)) == "Europe/Berlin"
        assert db.session.scalar(sa.select(Assignment.due_at)) == dt.datetime(2026, 11, 2, 4, 59)


def test_course_extend(runner, app, factory):
    _room(runner, factory)
    with app.app_context():
        assignment_id = db.session.scalar(sa.select(Assignment.id))
    args = ["course", "extend", "Games", "ana@example.com", "--assignment", str(assignment_id)]
    done = runner.invoke(args=[*args, "--days", "3", "--attempts", "2"])
    assert done.exit_code == 0, done.output
    assert "due Wed 4 Nov 2026, 23:59 EST (America/New_York), 2 extra attempts" in done.output
    dated = runner.invoke(args=[*args, "--due", "2026-11-10 12:00"])
    assert dated.exit_code == 0 and "due Tue 10 Nov 2026, 12:00 EST" in dated.output
    offset = runner.invoke(args=[*args, "--due", "2026-11-10 12:00+01:00"])
    assert offset.exit_code == 0 and "due Tue 10 Nov 2026, 06:00 EST" in offset.output
    nobody = runner.invoke(
        args=["course", "extend", "Games", "ghost@example.com", *args[4:], "--days", "1"]
    )
    assert nobody.exit_code != 0 and "not a student of this course" in nobody.output
    neither = runner.invoke(args=args)
    assert neither.exit_code != 0 and "--days N or --due DATE" in neither.output
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Extension.id))) == 3
