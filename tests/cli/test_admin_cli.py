"""`grader user|course|assignment|demo|gradebook|db`, through Flask's runner and as a real process."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys

import sqlalchemy as sa

from grader.extensions import db
from grader.models import ApiToken, Assignment, Course, Membership
from tests.instructor_support import ALICE, answer, make_room, textbook_key


def test_user_create_and_token(runner, app, client):
    result = runner.invoke(args=["user", "create", "Prof@Example.com", "--role", "instructor"])
    assert result.exit_code == 0, result.output
    assert "created instructor prof@example.com" in result.output
    assert "password: " in result.output
    token = runner.invoke(args=["user", "token", "create", "prof@example.com"]).output.strip()
    assert client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    with app.app_context():
        stored = db.session.scalar(sa.select(ApiToken.token_hash))
        assert stored and token not in stored
    again = runner.invoke(args=["user", "create", "prof@example.com"])
    assert again.exit_code != 0 and "already has an account" in again.output
    assert runner.invoke(args=["user", "token", "create", "nobody@example.com"]).exit_code != 0


def test_an_assignment_without_title_or_preset_is_refused(runner, factory):
    """`--preset "" --title ""` is told what is missing (it once failed on None's title)."""
    factory.course("Games")
    result = runner.invoke(
        args=["assignment", "create", "--course", "Games", "--preset", "", "--title", ""]
    )
    assert result.exit_code != 0 and isinstance(result.exception, SystemExit)
    assert "needs a title or a preset" in result.output


def test_course_and_assignment_from_preset(runner, app):
    runner.invoke(
        args=[
            "user",
            "create",
            "prof@example.com",
            "--role",
            "instructor",
            "--password",
            "long enough password",
        ]
    )
    result = runner.invoke(args=["course", "create", "Games", "--instructor", "prof@example.com"])
    assert result.exit_code == 0 and "join code" in result.output
    result = runner.invoke(
        args=[
            "assignment",
            "create",
            "--course",
            "Games",
            "--preset",
            "cs188-strict-ties",
            "--due",
            "2030-01-31",
        ]
    )
    assert result.exit_code == 0, result.output
    bad = runner.invoke(args=["assignment", "create", "--course", "Games", "--preset", "nope"])
    assert bad.exit_code != 0 and "no preset" in bad.output
    with app.app_context():
        assignment = db.session.scalar(sa.select(Assignment))
        assert assignment.preset == "cs188-strict-ties" and assignment.due_at.year == 2030
        assert {s.conventions["ties"] for s in assignment.slots} == {"explore"}
        assert db.session.scalar(sa.select(Membership.role)) == "instructor"


def test_every_preset_loads_and_generates(runner, app):
    from grader.services.courses.courses import load_preset, preset_names
    from grader.services.trees import exercises

    listed = runner.invoke(args=["assignment", "presets"])
    assert listed.exit_code == 0, listed.output
    with app.app_context():
        names = preset_names()
        assert {"intro", "standard", "challenge", "cs188-strict-ties"} <= set(names)
        for name in names:
            for spec in load_preset(name).slots:
                exercises._generated(
                    spec.params,
                    "any-seed",
                    spec.kind,
                    exercises.Conventions.from_dict(spec.conventions),
                )


def test_demo_is_idempotent(runner, app):
    first = runner.invoke(args=["demo"])
    assert first.exit_code == 0, first.output
    assert "login: instructor@example.com / " in first.output
    second = runner.invoke(args=["demo"])
    assert second.output == first.output
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Course.id))) == 1
        assert db.session.scalar(sa.select(sa.func.count(Assignment.id))) == 1
        assert db.session.scalar(sa.select(sa.func.count(Membership.id))) == 2


def test_grader_db_upgrade_as_a_process(tmp_path):
    """`grader db upgrade` brings an empty file to the latest schema."""
    env = {
        **os.environ,
        "GRADER_DATABASE_URL": f"sqlite:///{tmp_path / 'fresh.db'}",
        "GRADER_INSTANCE_PATH": str(tmp_path / "instance"),
    }
    grader = os.path.join(os.path.dirname(sys.executable), "grader")
    done = subprocess.run(
        [grader, "db", "upgrade"], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'fresh.db'}")
    with engine.connect() as conn:
        tables = set(sa.inspect(conn).get_table_names())
    engine.dispose()
    assert {
        "user",
        "course",
        "membership",
        "assignment",
        "slot",
        "exercise",
        "attempt",
        "alembic_version",
    } <= tables
    tree = subprocess.run(
        [grader, "tree", "--help"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert tree.returncode == 0


def test_gradebook_cli(app, runner, factory):
    room = make_room(app, factory)
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    result = runner.invoke(args=["gradebook", str(room.course_id), "--csv"])
    assert result.exit_code == 0, result.output
    rows = {r["email"]: r for r in csv.DictReader(io.StringIO(result.output))}
    assert rows[ALICE]["total (/2)"] == "1.00"
    as_json = runner.invoke(args=["gradebook", "Search 101"])
    assert '"max_total": 2' in as_json.output
    assert runner.invoke(args=["gradebook", "999"]).exit_code != 0
