"""An extension granted by the course's instructor, for the tests of what reads it."""

from __future__ import annotations

from grader.services.courses import extensions
from tests.instructor_support import TEACHER, user


def grant(app, room, **kw):
    with app.app_context():
        return extensions.grant(
            user(TEACHER),
            room.course_id,
            extensions.ExtensionInput(assignment_id=room.assignment_id, **kw),
        ).id
