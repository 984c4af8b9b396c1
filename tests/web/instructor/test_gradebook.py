"""The dashboard's pages render for the course's staff, with what each part must show: the gradebook,
a student's drill-down, the statistics and misconceptions, the audit log."""

from __future__ import annotations

import csv
import io
import re

from tests.instructor_support import ALICE, BOB, TEACHER, answer, textbook_key
from tests.web.instructor.pages_support import post_form


def test_the_drill_down_says_how_each_attempt_was_scored(client, app, teacher):
    # AIMA's tree: I and J (C's last two leaves) pruned, root 3; nothing marked is 2 errors.
    answer(app, ALICE, teacher.assignment_id, 0, {"pruned": [], "value": 3})
    html = client.get(
        f"/instructor/courses/{teacher.course_id}/students/{teacher.ids[ALICE]}"
    ).get_data(as_text=True)
    said = re.findall(r'data-role="scoring">(.*?)</li>', html, re.S)
    assert len(said) == 1
    assert "How attempt 1 was scored:</span> 2 errors: 2 missing marks at I and J" in said[0]
    assert "Score 0.50, by the rule: no error 1, 1 error 0.80" in said[0]


def test_gradebook_page_csv_and_json(client, app, teacher):
    answer(app, ALICE, teacher.assignment_id, 0, textbook_key())
    html = client.get(f"/instructor/courses/{teacher.course_id}/gradebook").get_data(as_text=True)
    assert f'data-email="{ALICE}"' in html and "1.00" in html
    # A column per exercise under its assignment, and the assignment's sum.
    assert html.count('<th scope="col" class="num item"') == 2 and "1. Textbook tree" in html
    for url in (
        f"/instructor/courses/{teacher.course_id}/gradebook.csv",
        f"/api/courses/{teacher.course_id}/gradebook.csv",
    ):
        response = client.get(url)
        assert response.mimetype == "text/csv"
        assert response.headers["Content-Disposition"].startswith("attachment; filename=")
        rows = {r["email"]: r for r in csv.DictReader(io.StringIO(response.get_data(as_text=True)))}
        assert rows[ALICE]["Homework 1: 1. Textbook tree (/1)"] == "1.00"
        assert rows[BOB]["total (/2)"] == "0.00"
    data = client.get(f"/api/courses/{teacher.course_id}/gradebook").get_json()
    assert data["assignments"][0]["score_policy"] == "best"
    assert {s["email"] for s in data["students"]} == {ALICE, BOB}


def test_statistics_and_misconception_pages_have_accessible_charts(client, app, teacher):
    answer(app, ALICE, teacher.assignment_id, 0, {"pruned": [], "value": 3})
    answer(app, BOB, teacher.assignment_id, 0, textbook_key())
    stats = client.get(f"/instructor/courses/{teacher.course_id}/statistics").get_data(as_text=True)
    assert 'role="img"' in stats and "<title" in stats and "Score as a table" in stats
    assert 'data-role="discrimination">1.00' in stats
    page = client.get(f"/instructor/courses/{teacher.course_id}/misconceptions").get_data(
        as_text=True
    )
    assert "Wrong answers by misconception, whole course" in page
    # Plain names in the charts and tables, the codes on hover.
    assert "No pruning: 1" in page and "per week" in page and 'title="no-pruning"' in page
    assert "Scores on Homework 1: 1. Textbook tree" in stats
    data = client.get(f"/api/courses/{teacher.course_id}/misconceptions").get_json()
    assert data["total"] == {"no-pruning": 1}
    statistics = client.get(f"/api/courses/{teacher.course_id}/statistics").get_json()
    assert statistics["assignments"][0]["slots"][0]["share_perfect"] == 0.5


def test_regrade_button_and_audit_log(client, app, teacher):
    answer(app, ALICE, teacher.assignment_id, 0, textbook_key())
    page = f"/instructor/assignments/{teacher.assignment_id}/slots/0"
    response = post_form(client, f"{page}/regrade", page, {}, follow_redirects=True)
    html = response.get_data(as_text=True)
    assert "Regraded 1 attempts: 0 changed" in html and "no score went down" in html
    entries = client.get(f"/api/courses/{teacher.course_id}/audit").get_json()["entries"]
    assert entries[0]["by"] == TEACHER and entries[0]["changes"] == {"reason": "manual regrade"}
    # The old address, deprecated, gives the same entries under its old name.
    old = client.get(f"/api/courses/{teacher.course_id}/regrades").get_json()["regrades"]
    assert old == entries
