"""The dashboard's pages render for the course's staff, with what each part must show: the roster
(import, roles, removal, the join code)."""

from __future__ import annotations

import csv
import io

from tests.instructor_support import ALICE, BOB
from tests.web.instructor.pages_support import post_form


def test_roster_page_import_role_remove_and_join_code(client, app, teacher):
    c = teacher.course_id
    roster_page = f"/instructor/courses/{c}/roster"
    response = post_form(
        client,
        f"{roster_page}/import",
        roster_page,
        {
            "csv_text": "",
            "csv_file": (io.BytesIO(b"email,name\nzed@example.com,Zed\n"), "students.csv"),
        },
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    assert "1 invited" in response.get_data(as_text=True)
    response = post_form(
        client,
        f"{roster_page}/{teacher.ids[BOB]}/role",
        roster_page,
        {"role": "ta"},
        follow_redirects=True,
    )
    html = response.get_data(as_text=True)
    assert "the role is given when the account accepts" in html and "invited as TA" in html
    links = post_form(client, f"{roster_page}/invites.csv", roster_page, {})
    rows = {r["email"]: r for r in csv.DictReader(io.StringIO(links.get_data(as_text=True)))}
    assert rows["zed@example.com"]["role"] == "student" and rows[BOB]["role"] == "ta"
    assert "/invite/" in rows[BOB]["link"]
    response = post_form(
        client, f"{roster_page}/{teacher.ids[ALICE]}/remove", roster_page, {}, follow_redirects=True
    )
    assert "attempts are kept" in response.get_data(as_text=True)
    course_page = f"/instructor/courses/{c}"
    response = post_form(client, f"{course_page}/join-code", course_page, {}, follow_redirects=True)
    assert teacher.join_code not in response.get_data(as_text=True)
    # An empty date is refused: the code stays open; closing now needs its confirmation.
    response = post_form(
        client,
        f"{course_page}/join-code/expire",
        course_page,
        {"expires_at": ""},
        follow_redirects=True,
    )
    html = response.get_data(as_text=True)
    assert "Choose the date and time" in html and '<span class="right">open</span>' in html
    assert "Yes, close it now" in html
    response = post_form(
        client,
        f"{course_page}/join-code/expire",
        course_page,
        {"expires_at": "", "now": "yes"},
        follow_redirects=True,
    )
    assert '<span class="wrong">expired</span>' in response.get_data(as_text=True)
    response = post_form(client, f"{course_page}/join-code", course_page, {}, follow_redirects=True)
    response = post_form(
        client,
        f"{course_page}/join-code/expire",
        course_page,
        {"expires_at": "2020-01-01T00:00"},
        follow_redirects=True,
    )
    assert "expired" in response.get_data(as_text=True)
