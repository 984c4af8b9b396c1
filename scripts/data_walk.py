"""A data walk: the rooms (modules of `grader`) one request passes through, in order.

    python scripts/data_walk.py [--rooms]

Runs two requests on a fresh app (a migrated SQLite file in a temporary folder, the test
client): a student's answer to a slot's exercise (POST /api/exercises/ID/attempts) and an engine
upload (POST /api/engines). While each runs, the room is the module of the innermost `grader`
frame on the stack (library frames in between are passed through; the cores and the harness
count as one room each); the walk is the sequence of rooms, a room written once while the
request stays in it. It prints, per request, the rooms
visited and the returns to a room already left (every step into a room the walk has been in
before), and with --rooms the walk itself.
"""

from __future__ import annotations

import io
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

PASSWORD = "correct horse battery"
# The pure cores and the harness are one room each: their insides are one algorithm.
LIBRARIES = ("grader.gametree", "grader.checkers", "grader.harness")


def room_of(module: str) -> str:
    return next((lib for lib in LIBRARIES if module.startswith(lib + ".")), module)


def walk(run: Callable[[], Any]) -> tuple[list[str], Any]:
    """The rooms `run()` passes through, in order, and what it returns."""
    stack: list[str] = []
    rooms: list[str] = []

    def profile(frame: FrameType, event: str, arg: object) -> None:
        module = frame.f_globals.get("__name__", "")
        if not (module == "grader" or module.startswith("grader.")) or event not in (
            "call",
            "return",
        ):
            return
        if event == "call":
            stack.append(room_of(module))
        elif stack:
            stack.pop()
        here = stack[-1] if stack else None
        if here is not None and (not rooms or rooms[-1] != here):
            rooms.append(here)

    sys.setprofile(profile)
    try:
        result = run()
    finally:
        sys.setprofile(None)
    return rooms, result


def summary(name: str, rooms: list[str], show: bool) -> None:
    seen: set[str] = set()
    returns = 0
    for room in rooms:
        returns += room in seen
        seen.add(room)
    print(f"{name}: {len(seen)} rooms visited, {returns} returns to a room already left")
    if show:
        print("   " + " > ".join(r.removeprefix("grader.") for r in rooms))


def main() -> None:
    from flask_migrate import upgrade

    import grader
    from grader import create_app
    from grader.extensions import db
    from grader.services import accounts
    from grader.services.courses import courses, invites, roster
    from grader.services.engines import submissions

    show = "--rooms" in sys.argv
    engine = Path(grader.__file__).parents[1] / "tests" / "harness" / "engines" / "correct.py"
    with tempfile.TemporaryDirectory() as folder:
        import os

        os.environ["GRADER_INSTANCE_PATH"] = str(Path(folder) / "instance")
        app = create_app(
            {
                "TESTING": True,
                "SECRET_KEY": "walk",
                "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/walk.sqlite3",
                "GRADER_ARGON2": {"time_cost": 1, "memory_cost": 1024, "parallelism": 1},
            }
        )
        with app.app_context():
            upgrade(directory=app.config["GRADER_MIGRATIONS_DIR"])
            accounts.create_user("teacher@example.com", PASSWORD, "instructor")
            student = accounts.create_user("student@example.com", PASSWORD, "student")
            course = courses.create_course("Walk", "teacher@example.com")
            roster.add_member(None, course.id, "student@example.com", "student")
            invites.accept_as(student, course.id)  # a member once the account accepts
            assignment = courses.create_assignment(course.id, "standard")
            engine_slot = submissions.add_engine_slot(assignment.id, suite="quick")
            token = accounts.issue_token(student.id, scopes=accounts.SCOPES)
            assignment_id, engine_index = assignment.id, engine_slot.index
        client = app.test_client()
        headers = {"Authorization": f"Bearer {token}"}
        exercise = client.get(
            f"/api/assignments/{assignment_id}/slots/0/exercise", headers=headers
        ).get_json()
        answer = {"pruned": [], "value": 0}
        rooms, response = walk(
            lambda: client.post(
                f"/api/exercises/{exercise['id']}/attempts",
                json={"answer": answer},
                headers=headers,
            )
        )
        assert response.status_code == 201, response.get_json()
        summary("a submitted answer (POST /api/exercises/ID/attempts)", rooms, show)

        from werkzeug.datastructures import FileStorage
        from werkzeug.test import stream_encode_multipart

        form = {
            "assignment_id": str(assignment_id),
            "slot_index": str(engine_index),
            "file": FileStorage(io.BytesIO(engine.read_bytes()), "engine.py"),
        }
        stream, _, boundary = stream_encode_multipart(form, use_tempfile=False)
        rooms, response = walk(
            lambda: client.post(
                "/api/engines",
                data=stream.getvalue(),
                headers=headers,
                content_type=f"multipart/form-data; boundary={boundary}",
            )
        )
        assert response.status_code == 201, response.get_json()
        summary("an engine upload (POST /api/engines)", rooms, show)
        with app.app_context():
            db.engine.dispose()


if __name__ == "__main__":
    main()
