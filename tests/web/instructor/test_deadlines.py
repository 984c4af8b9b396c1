"""Staff see, grant, import and remove extensions on an assignment's page and the roster; the
student's pages say their own due date."""

from __future__ import annotations

import datetime as dt

from tests.app_support import csrf_from
from tests.instructor_support import ALICE, BOB, TA, TEACHER, make_room


def test_staff_grant_import_and_remove_extensions_on_the_pages(app, client, auth, factory):
    room = make_room(app, factory, due_at=dt.datetime(2026, 12, 5, 4, 59))
    auth.login(TEACHER)
    page_url = f"/instructor/assignments/{room.assignment_id}"
    page = client.get(page_url).get_data(as_text=True)
    assert 'id="extensions"' in page and "No extension." in page
    token = csrf_from(page)
    granted = client.post(
        f"{page_url}/extensions",
        data={"csrf_token": token, "email": ALICE, "slot": "", "days": "2", "extra_attempts": "1"},
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "Extension granted." in granted
    assert "alice@example.com" in granted.split('id="extensions"')[1]
    bad = client.post(
        f"{page_url}/extensions/import",
        data={"csrf_token": token, "csv_text": "bob@example.com,3\nghost@example.com,2\n"},
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "Nothing was applied" in bad
    assert "line 2: ghost@example.com is not a student of this course" in bad
    assert "bob@example.com" not in bad.split('id="extensions"')[1].split("Grant an extension")[0]
    good = client.post(
        f"{page_url}/extensions/import",
        data={"csrf_token": token, "csv_text": "bob@example.com,3\n"},
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "1 extension granted." in good
    roster = client.get(f"/instructor/courses/{room.course_id}/roster").get_data(as_text=True)
    listed = roster.split('id="extensions"')[1]
    assert "alice@example.com" in listed and "bob@example.com" in listed
    assert "Tue 8 Dec 2026, 04:59 UTC" in listed  # Bob's: 3 days after the class's
    assert "UTC (UTC)" not in listed  # the zone named once
    audit = client.get(f"/instructor/courses/{room.course_id}/audit").get_data(as_text=True)
    assert "Extension for alice@example.com: Homework 1" in audit
    removed = client.post(
        f"/instructor/courses/{room.course_id}/extensions/1/remove",
        data={"csrf_token": token, "back": "assignment"},
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "Removed the extension for alice@example.com on Homework 1." in removed
    assert "alice@example.com" not in removed.split('id="extensions"')[1].split("Grant")[0]
    auth.logout()
    # A TA reads them, and changes none.
    auth.login(TA)
    seen = client.get(page_url).get_data(as_text=True)
    assert "bob@example.com" in seen and "Grant an extension" not in seen
    refused = client.post(
        f"{page_url}/extensions",
        data={"csrf_token": csrf_from(seen), "email": BOB, "days": "9"},
    )
    assert refused.status_code == 403
