"""The staff pages' words (issue 50): counts read "1 instructor", never "1 instructors"."""

from __future__ import annotations

import re

from tests.app_support import csrf_from
from tests.instructor_support import TEACHER


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_counts_of_one_read_in_the_singular(client, teacher):
    page = client.get(f"/instructor/courses/{teacher.course_id}").get_data(as_text=True)
    people = _text(page.split('data-role="people"', 1)[1].split("</p>", 1)[0])
    assert "2 students, 1 TA, 1 instructor." in people
    token = csrf_from(page)
    imported = client.post(
        f"/instructor/courses/{teacher.course_id}/roster/import",
        data={"csrf_token": token, "csv_text": "zed@example.com,Zed\n"},
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "1 invite link" in imported and "1 invite links" not in imported
    assert TEACHER not in people
