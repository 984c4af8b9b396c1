"""The dashboard's pages render for the course's staff, with what each part must show."""

from __future__ import annotations

import pytest
from instructor_support import (
    ALICE,
    TEACHER,
    answer,
    csrf_from,
    make_room,
    textbook_key,
)


@pytest.fixture
def room(app, factory):
    return make_room(app, factory)


@pytest.fixture
def teacher(auth, room):
    auth.login(TEACHER)
    return room


def _post(client, url, page, data, **kw):
    token = csrf_from(client.get(page).get_data(as_text=True))
    return client.post(url, data={"csrf_token": token, **data}, **kw)


def test_every_page_renders_for_the_instructor(client, app, teacher):
    room = teacher
    answer(app, ALICE, room.assignment_id, 0, {"pruned": [], "value": 3})
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    c, a = room.course_id, room.assignment_id
    for url in ["/instructor/", f"/instructor/courses/{c}", f"/instructor/courses/{c}/roster",
                f"/instructor/courses/{c}/assignments/new", f"/instructor/assignments/{a}",
                f"/instructor/assignments/{a}/slots/new", f"/instructor/assignments/{a}/slots/0",
                f"/instructor/courses/{c}/gradebook", f"/instructor/courses/{c}/statistics",
                f"/instructor/courses/{c}/misconceptions", f"/instructor/courses/{c}/audit",
                f"/instructor/courses/{c}/students/{room.ids[ALICE]}"]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert "Traceback" not in response.get_data(as_text=True)
