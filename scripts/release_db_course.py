"""A term's course on a release's own code: run by `scripts/make_release_db.py` with the Python
of a virtualenv that holds THAT release (never today's), in three phases:

    python release_db_course.py course   students, their tokens, attempts and engine uploads
    python release_db_course.py regrade  the instructor regrades every tree slot
    python release_db_course.py facts    the facts the upgrade must keep, as JSON on stdout

It uses only what the release of 2026-11-22 (54baec5) has: its services for what an operator
does on the command line (accounts, the roster, tokens), its /api through Flask's test client
for what students do. A later release that renamed one of them needs its own copy of this
script, kept beside the database it made (tests/migrations/releases/README.md).
"""

from __future__ import annotations

import io
import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from grader import create_app
from grader.extensions import db

STUDENTS = [f"student{n}@example.com" for n in range(1, 5)]
PASSWORD = "release db password"
# The sample engines of tests/harness/engines each student uploads (one each; the fourth none).
ENGINES = {
    STUDENTS[0]: "correct.py",
    STUDENTS[1]: "wrong_order.py",
    STUDENTS[2]: "crash_at_import.py",
}


def _api(client: Any, method: str, url: str, token: str, **kw: Any) -> Any:
    for _ in range(20):
        response = client.open(
            url, method=method, headers={"Authorization": f"Bearer {token}"}, **kw
        )
        if response.status_code != 429:
            return response
        time.sleep(float(response.headers.get("Retry-After", "1")))
    raise RuntimeError(f"{method} {url}: still 429")


def _answers(exercise: Any) -> list[dict[str, Any]]:
    """A misconception's answer (when one differs from the key), then the key."""
    from grader.gametree import KINDS, VARIANTS, Conventions, Tree

    tree = Tree.from_dict({"tree": exercise.tree, "players": exercise.players})
    conventions = Conventions.from_dict(exercise.conventions or {})
    kind = KINDS[exercise.kind]
    key = kind.key(tree, conventions)
    for variant in VARIANTS.values():
        try:
            wrong = kind.to_answer(kind.project(variant.run(tree, conventions), variant))
        except Exception:  # a misconception this kind or tree does not take
            continue
        if wrong != key:
            return [wrong, key]
    return [key]


def course(engines_dir: Path) -> None:
    from grader.models import Course, Exercise
    from grader.services import accounts, roster

    client = current_app_client()
    course = db.session.scalars(sa.select(Course).order_by(Course.id)).first()
    assert course is not None, "run `grader demo` first"
    tokens = {}
    for email in STUDENTS:
        user = accounts.user_by_email(email) or accounts.create_user(email, PASSWORD, "student")
        roster.add_member(None, course.id, email)
        tokens[email] = accounts.issue_token(user.id, "release db")
    _tokens_file().write_text(json.dumps(tokens))
    for n, email in enumerate(STUDENTS):
        token = tokens[email]
        listed = _api(client, "GET", "/api/assignments", token)
        assert listed.status_code == 200, listed.get_data(as_text=True)
        for assignment in listed.get_json()["assignments"]:
            for slot in assignment["slots"]:
                index = slot["index"]
                if "upload" in slot["urls"]:  # an engine slot
                    engine = ENGINES.get(email)
                    if engine is None:
                        continue
                    data = (engines_dir / engine).read_bytes()
                    sent = _api(
                        client,
                        "POST",
                        "/api/engines",
                        token,
                        data={
                            "assignment_id": str(assignment["id"]),
                            "slot_index": str(index),
                            "file": (io.BytesIO(data), "engine.py"),
                        },
                        content_type="multipart/form-data",
                    )
                    assert sent.status_code == 201, sent.get_data(as_text=True)
                    continue
                url = f"/api/assignments/{assignment['id']}/slots/{index}/exercise"
                got = _api(client, "GET", url, token)
                assert got.status_code == 200, got.get_data(as_text=True)
                exercise = db.session.get(Exercise, got.get_json()["id"])
                answers = _answers(exercise)
                if n == len(STUDENTS) - 1:
                    answers = answers[:1]  # the last student stops at a wrong answer
                for answer in answers:
                    done = _api(
                        client,
                        "POST",
                        f"/api/exercises/{exercise.id}/attempts",
                        token,
                        json={"answer": answer},
                    )
                    if done.status_code == 409:  # the slot's attempts are used up
                        break
                    assert done.status_code == 201, done.get_data(as_text=True)
    print(f"{len(STUDENTS)} students answered and uploaded", file=sys.stderr)


def regrade() -> None:
    from grader.models import Assignment, Slot, User
    from grader.services import accounts, submissions
    from grader.services import regrade as service

    instructor = accounts.user_by_email("instructor@example.com")
    assert isinstance(instructor, User)
    for assignment in db.session.scalars(sa.select(Assignment).order_by(Assignment.id)):
        for slot in db.session.scalars(
            sa.select(Slot).where(Slot.assignment_id == assignment.id).order_by(Slot.index)
        ):
            if not submissions.is_engine_slot(slot):
                service.regrade_slot(instructor, assignment.id, slot.index, reason="release db")
    print("regraded every tree slot", file=sys.stderr)


def facts(database: Path) -> None:
    from grader.models import Attempt, Course, User
    from grader.services import gradebook as book

    raw = sqlite3.connect(database)
    tables = [
        name
        for (name,) in raw.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name"
        )
    ]
    rows = {name: raw.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in tables}
    revision = raw.execute("SELECT version_num FROM alembic_version").fetchone()[0]
    raw.close()
    gradebooks = {}
    for found in db.session.scalars(sa.select(Course).order_by(Course.id)):
        built = book.build(found.id).to_dict()
        gradebooks[str(found.id)] = {
            str(student["user_id"]): {
                "total": student["total"],
                "assignments": student["assignments"],
                "slots": student["slots"],
            }
            for student in built["students"]
        }
    client = current_app_client()
    tokens = json.loads(_tokens_file().read_text())
    served = []
    for attempt in db.session.scalars(sa.select(Attempt).order_by(Attempt.id)):
        owner = db.session.get_one(User, attempt.user_id)
        got = _api(client, "GET", f"/api/attempts/{attempt.id}", tokens[owner.email])
        assert got.status_code == 200, got.get_data(as_text=True)
        served.append({"id": attempt.id, "user": owner.email, "score": got.get_json()["score"]})
    json.dump(
        {"revision": revision, "rows": rows, "gradebooks": gradebooks, "attempts": served},
        sys.stdout,
        indent=1,
        sort_keys=True,
    )


def _tokens_file() -> Path:
    """The students' tokens, kept in the instance folder between the phases."""
    from flask import current_app

    return Path(current_app.instance_path) / "release_db_tokens.json"


def current_app_client() -> Any:
    from flask import current_app

    return current_app.test_client()


def main() -> None:
    phase = sys.argv[1]
    app = create_app()
    with app.app_context():
        if phase == "course":
            course(Path(sys.argv[2]))
        elif phase == "regrade":
            regrade()
        elif phase == "facts":
            facts(Path(sys.argv[2]))
        else:
            raise SystemExit(f"unknown phase {phase!r}")


if __name__ == "__main__":
    main()
