"""The dashboard's pages render for the course's staff, with what each part must show: every page, a
course and an assignment made through the forms."""

from __future__ import annotations

import re

from tests.instructor_support import ALICE, answer, textbook_key
from tests.web.instructor.pages_support import post_form


def test_every_page_renders_for_the_instructor(client, app, teacher):
    room = teacher
    answer(app, ALICE, room.assignment_id, 0, {"pruned": [], "value": 3})
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    c, a = room.course_id, room.assignment_id
    for url in [
        "/instructor/",
        f"/instructor/courses/{c}",
        f"/instructor/courses/{c}/roster",
        f"/instructor/courses/{c}/assignments/new",
        f"/instructor/assignments/{a}",
        f"/instructor/assignments/{a}/slots/new",
        f"/instructor/assignments/{a}/slots/0",
        f"/instructor/courses/{c}/gradebook",
        f"/instructor/courses/{c}/statistics",
        f"/instructor/courses/{c}/misconceptions",
        f"/instructor/courses/{c}/audit",
        f"/instructor/courses/{c}/students/{room.ids[ALICE]}",
    ]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert "Traceback" not in response.get_data(as_text=True)


def test_create_course_and_assignment_through_the_forms(client, teacher):
    response = post_form(
        client,
        "/instructor/courses",
        "/instructor/",
        {"name": "Adversarial search"},
        follow_redirects=True,
    )
    html = response.get_data(as_text=True)
    assert "Adversarial search" in html and 'data-role="join-code"' in html
    course_id = int(re.search(r"/instructor/courses/(\d+)/roster", html).group(1))
    page = f"/instructor/courses/{course_id}/assignments/new"
    response = post_form(
        client,
        page,
        page,
        {
            "title": "From a preset",
            "preset": "standard",
            "due_at": "2030-01-31T23:59",
            "late_percent_per_day": "10",
            "score_policy": "last",
        },
        follow_redirects=True,
    )
    html = response.get_data(as_text=True)
    assert "Values returned" in html and "Assignment created" in html
