"""A forgotten password with no mail server has someone who can help (issue 49, finding 9:
`/forgot` sent students to their instructor, who had no way to help). A course's instructor
makes a student of the course a single-use sign-in link from the roster: rate-limited, written
to the audit log, refused for staff accounts and for accounts an LMS made, and for anyone
outside the course. `/forgot` names only the people who can really help."""

from __future__ import annotations

import re

from tests.app_support import PASSWORD, csrf_from
from tests.instructor_support import ALICE, BOB, OUTSIDER, TA, TEACHER, make_room


def _login(client, email: str) -> None:
    token = csrf_from(client.get("/login").get_data(as_text=True))
    client.post("/login", data={"email": email, "password": PASSWORD, "csrf_token": token})


def _make(client, course_id: int, user_id: int):
    page = client.get(f"/instructor/courses/{course_id}/roster")
    token = csrf_from(page.get_data(as_text=True))
    return client.post(
        f"/instructor/courses/{course_id}/roster/{user_id}/sign-in-link",
        data={"csrf_token": token},
    )


def test_an_instructor_makes_a_student_a_single_use_sign_in_link(app, client, factory):
    room = make_room(app, factory)
    _login(client, TEACHER)
    roster = client.get(f"/instructor/courses/{room.course_id}/roster").get_data(as_text=True)
    assert f"/roster/{room.ids[ALICE]}/sign-in-link" in roster
    assert f"/roster/{room.ids[TA]}/sign-in-link" not in roster  # a TA is staff

    made = _make(client, room.course_id, room.ids[ALICE])
    assert made.status_code == 201, made.get_data(as_text=True)
    link = re.search(r'id="sign-in-link">([^<]+)<', made.get_data(as_text=True)).group(1)
    path = link.split("localhost", 1)[1]

    audit = client.get(f"/instructor/courses/{room.course_id}/audit").get_data(as_text=True)
    assert f"Sign-in link made for {ALICE}" in audit

    student = app.test_client()
    page = student.get(path)
    assert page.status_code == 200 and ALICE in page.get_data(as_text=True)
    chosen = student.post(
        path,
        data={
            "password": "a new long password",
            "confirm": "a new long password",
            "csrf_token": csrf_from(page.get_data(as_text=True)),
        },
    )
    assert chosen.status_code == 302
    assert student.get(path).status_code == 404  # single use
    token = csrf_from(student.get("/login").get_data(as_text=True))
    signed_in = student.post(
        "/login", data={"email": ALICE, "password": "a new long password", "csrf_token": token}
    )
    assert signed_in.location.endswith("/dashboard")


def test_sign_in_links_are_refused_for_staff_lms_accounts_and_outsiders(app, client, factory):
    room = make_room(app, factory)
    factory.lms_identity(room.ids[BOB], "lms-bob")
    _login(client, TEACHER)
    assert _make(client, room.course_id, room.ids[TA]).status_code == 403
    assert _make(client, room.course_id, room.ids[TEACHER]).status_code == 403
    lms = _make(client, room.course_id, room.ids[BOB])
    assert lms.status_code == 409 and "LMS" in lms.get_data(as_text=True)
    assert _make(client, room.course_id, room.ids[OUTSIDER]).status_code == 404
    # A TA of the course makes none.
    assistant = app.test_client()
    _login(assistant, TA)
    assert _make(assistant, room.course_id, room.ids[ALICE]).status_code == 403


def test_sign_in_links_are_rate_limited(app, client, factory):
    room = make_room(app, factory)
    app.config["GRADER_SIGN_IN_LINK_LIMIT"] = "2 per hour"
    _login(client, TEACHER)
    made = [_make(client, room.course_id, room.ids[who]).status_code for who in (ALICE, BOB, ALICE)]
    assert made == [201, 201, 429]


def test_forgot_names_only_who_can_help(app, client, factory):
    page = client.get("/forgot").get_data(as_text=True)
    text = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    assert "an instructor of your course" in text and "sign-in link" in text
    assert "operator" in text and "grader user password" in text
    assert "TA" not in text.split()
