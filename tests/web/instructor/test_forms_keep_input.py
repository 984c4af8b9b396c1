"""A staff form a check refuses comes back as typed (issue 50): its page again with 422, every
typed value in its fields, the refusal beside the field it is about (that field's accessible
description, the field marked invalid and focused), no flash at the page's top, and nothing
stored. One case a form, each with input its service (or the form's own schema) refuses."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import Course, Extension, GroupMember, Invite, Membership, Slot, User
from tests.app_support import csrf_from
from tests.instructor_support import ALICE, TEACHER, user
from tests.web.instructor.pages_support import elements, field_error

# More rows than an import takes at once (roster.MAX_IMPORT_ROWS), short enough to post.
MANY = "".join(f"s{n}@x.io\n" for n in range(5001))


@dataclass(frozen=True)
class Case:
    page: str  # the page the form is on, under /instructor ({c} the course, {a} the assignment)
    action: str  # where it posts
    data: dict[str, Any]
    field_id: str  # the field the refusal is about
    error: str  # words of the refusal
    typed: dict[str, str] = field(default_factory=dict)  # field id -> the value shown again
    zone: str | None = None  # the course's zone, where the refusal depends on it
    upload: tuple[str, str] | None = None  # a file posted as `csv_file`: (name, text)


CASES = {
    "slip days": Case(
        "/courses/{c}",
        "/courses/{c}/slip-days",
        {"slip_days": "400"},
        "slip_days",
        "between 0 and 366",
        {"slip_days": "400"},
    ),
    "grant an extension": Case(
        "/assignments/{a}",
        "/assignments/{a}/extensions",
        {"email": "ghost@example.com", "group": "", "slot": "1", "extra_attempts": "2"},
        "email",
        "ghost@example.com is not a student of this course",
        {"email": "ghost@example.com", "extra_attempts": "2"},
    ),
    "set a group": Case(
        "/courses/{c}/roster",
        "/courses/{c}/groups",
        {"name": "Extra time", "emails": f"{ALICE}\nghost@example.com"},
        "group-emails",
        "ghost@example.com is not a student of this course",
        {"group-name": "Extra time", "group-emails": f"{ALICE}\nghost@example.com"},
    ),
    "add a member": Case(
        "/courses/{c}/roster",
        "/courses/{c}/roster",
        {"email": "ada at example", "name": "Ada Lovelace", "role": "student"},
        "email",
        "not an e-mail address: 'ada at example'",
        {"email": "ada at example", "name": "Ada Lovelace"},
    ),
    "the join code's expiry": Case(
        "/courses/{c}",
        "/courses/{c}/join-code/expire",
        {"expires_at": "2027-03-14T02:30"},  # skipped: the clocks go forward that night
        "expires_at",
        "2027-03-14 02:30 does not exist in America/Chicago",
        {"expires_at": "2027-03-14T02:30"},
        zone="America/Chicago",
    ),
    "the roster import's own check": Case(
        "/courses/{c}/roster",
        "/courses/{c}/roster/import",
        {"csv_text": ""},
        "csv_text",
        "at most 5000 rows at a time",
        {"csv_text": MANY},  # the file's text, in the box to mend
        upload=("students.csv", MANY),
    ),
    "add an engine slot": Case(
        "/assignments/{a}",
        "/assignments/{a}/slots/engine",
        {"title": "My engine", "suite": "/etc/passwd"},
        "engine-suite",
        "Not a valid choice",
        {"engine-title": "My engine"},
    ),
}


def _stored(course_id: int) -> tuple[Any, ...]:
    """What any of these forms would change."""
    counted = [
        db.session.scalar(sa.select(sa.func.count()).select_from(table))
        for table in (Extension, GroupMember, Invite, Membership, Slot, User)
    ]
    course = db.session.get_one(Course, course_id)
    return (*counted, course.slip_days, course.join_code_expires_at)


def _shown(found: dict[str, Any], field_id: str) -> str:
    tag, attrs, text = found[field_id]
    return "".join(text) if tag == "textarea" else attrs.get("value", "")


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_a_refused_form_comes_back_as_typed_with_its_error_beside_the_field(
    app, client, auth, room, case
):
    if case.zone:
        from grader.services.courses import courses

        with app.app_context():
            courses.set_timezone(room.course_id, case.zone, by=user(TEACHER))
    auth.login(TEACHER)
    page = "/instructor" + case.page.format(c=room.course_id, a=room.assignment_id)
    action = "/instructor" + case.action.format(c=room.course_id, a=room.assignment_id)
    data = {"csrf_token": csrf_from(client.get(page).get_data(as_text=True)), **case.data}
    if case.upload:
        name, text = case.upload
        data["csv_file"] = (io.BytesIO(text.encode()), name)
    with app.app_context():
        before = _stored(room.course_id)

    answer = client.post(action, data=data)

    html = answer.get_data(as_text=True)
    assert answer.status_code == 422, answer.headers.get("Location")
    assert case.error in field_error(html, case.field_id)
    found = elements(html)
    assert "autofocus" in found[case.field_id][1]
    for field_id, value in case.typed.items():
        assert _shown(found, field_id).replace("\r\n", "\n").strip() == value.strip(), field_id
    assert 'class="flash error"' not in html  # beside the field, not at the page's top
    with app.app_context():
        assert _stored(room.course_id) == before
