"""With GRADER_STAFF_TOTP=required, a staff account that has not enrolled a second factor can
neither make an API token nor use one (issue 49, finding 8: such an account made a `read` token
and read its students' attempts through the API). Once enrolled, both work."""

from __future__ import annotations

import re

from tests.app_support import bearer, csrf_from
from tests.instructor_support import ALICE, TEACHER, answer, make_room, textbook_key
from tests.security.test_accounts_totp import _enrol, _login


def _make_token(client) -> tuple[int, str]:
    page = client.get("/account").get_data(as_text=True)
    made = client.post(
        "/account/tokens",
        data={"name": "script", "days": "30", "read": "y", "csrf_token": csrf_from(page)},
    )
    found = re.search(r'id="new-token">([^<]+)<', made.get_data(as_text=True))
    return made.status_code, found.group(1) if found else ""


def test_staff_without_a_second_factor_neither_make_nor_use_a_token(app, client, factory):
    room = make_room(app, factory)
    attempt = answer(app, ALICE, room.assignment_id, 0, textbook_key())
    earlier = factory.token(TEACHER, ("read",))  # made before the setting was turned on
    app.config["GRADER_STAFF_TOTP"] = "required"

    read = client.get(f"/api/attempts/{attempt.id}", headers=bearer(earlier))
    assert read.status_code == 403 and "second factor" in read.get_json()["error"]
    assert client.get("/api/me", headers=bearer(earlier)).status_code == 403

    _login(client, TEACHER)
    status, token = _make_token(client)
    assert token == "" and status != 201
    page = client.get("/account").get_data(as_text=True)
    assert "second factor" in page

    _enrol(client)
    status, token = _make_token(client)
    assert status == 201 and token
    assert client.get(f"/api/attempts/{attempt.id}", headers=bearer(token)).status_code == 200
    assert client.get(f"/api/attempts/{attempt.id}", headers=bearer(earlier)).status_code == 200
