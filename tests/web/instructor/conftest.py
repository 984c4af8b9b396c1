"""The dashboard's tests: its instructor signed in, in the course of the shared `room` fixture."""

from __future__ import annotations

import pytest

from tests.instructor_support import TEACHER


@pytest.fixture
def teacher(auth, room):
    auth.login(TEACHER)
    return room
