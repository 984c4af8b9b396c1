"""The paper exams' tests' course: an instructor, a TA and five students."""

from __future__ import annotations

from typing import Any

import pytest

from tests.instructor_support import make_room
from tests.services.paper.paper_support import STUDENTS


@pytest.fixture
def room(app: Any, factory: Any) -> Any:
    made = make_room(app, factory)
    for email in STUDENTS:
        factory.user(email)
        factory.member(made.course_id, email)
    return made
