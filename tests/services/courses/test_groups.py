"""Named groups (services/courses/groups.py): an extension naming a group applies to its members."""

from __future__ import annotations

import datetime as dt

import pytest

from grader.models import utcnow
from grader.services import Conflict
from grader.services.courses import groups
from tests.instructor_support import ALICE, BOB, TEACHER, answer, make_room, textbook_key, user
from tests.services.courses.extension_support import grant


def test_a_group_extension_applies_to_its_members(app, factory):
    due = utcnow() - dt.timedelta(hours=1)
    room = make_room(app, factory, due_at=due)
    with app.app_context():
        assert groups.set_group(user(TEACHER), room.course_id, "accommodations 1.5x", [BOB]) == 1
    grant(app, room, group="accommodations 1.5x", days=3)
    assert answer(app, BOB, room.assignment_id, 0, textbook_key()).days_late == 0
    with pytest.raises(Conflict):
        answer(app, ALICE, room.assignment_id, 0, textbook_key())
