"""`grader course add`: the operator adds people by the roster's one rule (services/courses/roster.py's
`add_member`): a student or a staff role only through an invite the account accepts."""

from __future__ import annotations

import re

import sqlalchemy as sa

from grader.extensions import db
from grader.models import Membership, User
from tests.app_support import PASSWORD, csrf_from


def _role(app, email: str) -> str | None:
    with app.app_context():
        found = db.session.scalar(sa.select(Membership.role).join(User).where(User.email == email))
        db.session.remove()
        return found


def _accept(client, email: str, path: str) -> None:
    """Signed in as the account, its link gives the role."""
    client.post(
        "/login",
        data={
            "email": email,
            "password": PASSWORD,
            "csrf_token": csrf_from(client.get("/login").get_data(as_text=True)),
        },
    )
    page = client.get(path)
    assert page.status_code == 200
    client.post(path, data={"csrf_token": csrf_from(page.get_data(as_text=True))})
    client.post(
        "/logout", data={"csrf_token": csrf_from(client.get("/account").get_data(as_text=True))}
    )


def test_a_student_and_a_staff_role_through_their_invites(runner, app, factory, client) -> None:
    factory.user("ta@example.com", password=PASSWORD)
    factory.user("student@example.com", password=PASSWORD)
    course_id, _ = factory.course("Search 101")
    added = runner.invoke(args=["course", "add", str(course_id), "student@example.com"])
    assert added.exit_code == 0, added.output
    assert _role(app, "student@example.com") is None  # a member once the account accepts
    _accept(client, "student@example.com", re.search(r"(/invite/\S+)", added.output).group(1))
    assert _role(app, "student@example.com") == "student"
    invited = runner.invoke(args=["course", "add", "Search 101", "TA@example.com", "--role", "ta"])
    assert invited.exit_code == 0, invited.output
    assert _role(app, "ta@example.com") is None  # no role until the account accepts
    path = re.search(r"(/invite/\S+)", invited.output)
    assert path, invited.output
    # Only the account itself accepts: signed in as the TA, the link gives the role.
    client.post(
        "/login",
        data={
            "email": "ta@example.com",
            "password": PASSWORD,
            "csrf_token": csrf_from(client.get("/login").get_data(as_text=True)),
        },
    )
    page = client.get(path.group(1))
    assert page.status_code == 200
    client.post(path.group(1), data={"csrf_token": csrf_from(page.get_data(as_text=True))})
    assert _role(app, "ta@example.com") == "ta"
    unknown = runner.invoke(args=["course", "add", "999", "student@example.com"])
    assert unknown.exit_code != 0
