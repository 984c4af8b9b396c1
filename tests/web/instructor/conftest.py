"""The dashboard's tests' course, and its instructor signed in."""

from __future__ import annotations

import pytest

from tests.instructor_support import TEACHER, make_room


@pytest.fixture
def room(app, factory):
    return make_room(app, factory)


@pytest.fixture
def teacher(auth, room):
    auth.login(TEACHER)
    return room
