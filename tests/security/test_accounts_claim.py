"""Account claim and staff escalation, through the app's test client (a server adds nothing).

The attacks, as they were found: an instructor adds a TA (or imports students); anyone who knows
that e-mail and any course's join code signs up as it and gets its role. Or the attacker signs
up first with an e-mail the instructor will later make a TA. Now a roster entry is claimed only
through its own invite link (single use, expiring), a join code makes a student membership for a
new account only, and a staff role waits for the account to accept its invite."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import Invite, Membership, User
from tests.app_support import PASSWORD, csrf_from

TEACHER, NEW_TA, STUDENT = "teacher@example.com", "new.ta@example.edu", "student@example.com"
ATTACKER_PASSWORD = "attacker chosen pass"


@pytest.fixture
def courses(app, factory) -> dict[str, Any]:
    """The teacher's course, and another course whose join code the attacker has."""
    factory.user(TEACHER, "instructor")
    factory.user(STUDENT)
    mine, code = factory.course("Search 101", TEACHER)
    factory.member(mine, STUDENT)
    _, other_code = factory.course("Open course")
    return {"course_id": mine, "join_code": code, "other_code": other_code}


def _form(client, path: str, data: dict[str, Any], page: str | None = None, **kw: Any) -> Any:
    token = csrf_from(client.get(page or path).get_data(as_text=True))
    return client.post(path, data={**data, "csrf_token": token}, **kw)


def _roster_add(app, client, course_id: int, email: str, role: str) -> None:
    roster = f"/instructor/courses/{course_id}/roster"
    answer = _form(client, roster, {"email": email, "name": "", "role": role}, roster)
    assert answer.status_code == 302


def _invite_links(client, course_id: int) -> dict[str, str]:
    roster = f"/instructor/courses/{course_id}/roster"
    answer = _form(client, f"{roster}/invites.csv", {}, roster)
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    rows = csv.DictReader(io.StringIO(answer.get_data(as_text=True)))
    return {row["email"]: row["link"].split("://", 1)[1].split("/", 1)[1] for row in rows}


def _signup(client, email: str, code: str, password: str = ATTACKER_PASSWORD) -> Any:
    return _form(
        client,
        "/signup",
        {"email": email, "password": password, "confirm": password, "join_code": code},
    )


def _role(email: str, course_id: int) -> str | None:
    return db.session.scalar(
        sa.select(Membership.role)
        .join(User)
        .where(User.email == email, Membership.course_id == course_id)
    )


def test_signing_up_as_a_roster_entry_claims_nothing(app, client, auth, courses):
    auth.login(TEACHER)
    _roster_add(app, client, courses["course_id"], NEW_TA, "ta")
    auth.logout()
    # The attacker knows the e-mail and another course's join code.
    answer = _signup(client, NEW_TA, courses["other_code"])
    assert answer.status_code == 302
    assert auth.login(NEW_TA, ATTACKER_PASSWORD).status_code == 200  # no such login
    assert client.get(f"/instructor/courses/{courses['course_id']}").status_code == 302
    with app.app_context():
        account = db.session.scalar(sa.select(User).where(User.email == NEW_TA))
        assert account.password_hash is None  # still unclaimed
        assert _role(NEW_TA, courses["course_id"]) is None  # no TA role, no membership at all
        assert (
            db.session.scalar(
                sa.select(sa.func.count(Membership.id)).where(Membership.user_id == account.id)
            )
            == 0
        )


def test_signup_answers_alike_for_a_known_and_a_new_email(app, client, courses):
    """Status, redirect and the page after it are the same: sign-up reveals no account."""
    known = _signup(client, STUDENT, courses["other_code"])
    known_page = client.get(known.headers["Location"]).get_data(as_text=True)
    fresh = _signup(client, "fresh@example.com", courses["other_code"])
    fresh_page = client.get(fresh.headers["Location"]).get_data(as_text=True)
    assert (known.status_code, known.headers["Location"]) == (
        fresh.status_code,
        fresh.headers["Location"],
    )

    def strip(html: str) -> str:
        return re.sub(r'value="[^"]*"', "", html)  # the CSRF token differs, nothing else

    assert strip(known_page) == strip(fresh_page)
    with app.app_context():
        # The known account kept its password and got no membership of the other course.
        assert _role(STUDENT, courses["course_id"]) == "student"
        assert (
            len(
                db.session.scalars(
                    sa.select(Membership).join(User).where(User.email == STUDENT)
                ).all()
            )
            == 1
        )


def test_a_join_code_never_gives_an_instructor_account_or_a_role(app, client, auth, courses):
    _signup(client, TEACHER, courses["other_code"])
    assert auth.login(TEACHER, ATTACKER_PASSWORD).status_code == 200
    with app.app_context():
        assert _role(TEACHER, courses["course_id"]) == "instructor"  # untouched


def test_signing_up_first_does_not_collect_a_later_staff_role(app, client, auth, courses):
    # The attacker registers the future TA's address before the instructor adds it.
    _signup(client, NEW_TA, courses["join_code"])
    assert auth.login(NEW_TA, ATTACKER_PASSWORD).status_code == 302
    auth.logout()
    auth.login(TEACHER)
    _roster_add(app, client, courses["course_id"], NEW_TA, "ta")
    links = _invite_links(client, courses["course_id"])
    auth.logout()
    with app.app_context():
        assert _role(NEW_TA, courses["course_id"]) == "student"  # the add gave no role
    # Signed in as the squatted account, without the link: nothing to accept.
    auth.login(NEW_TA, ATTACKER_PASSWORD)
    assert client.get(f"/instructor/courses/{courses['course_id']}").status_code == 403
    assert client.get("/invite/" + "0" * 64).status_code == 404
    # The link (which went to the real owner) cannot be used without that account's password:
    # holding the link alone never takes over an account someone already uses.
    auth.logout()
    page = client.get(links[NEW_TA])
    assert page.status_code == 200 and "log in as" in page.get_data(as_text=True)
    refused = _form(client, links[NEW_TA], {}, "/login")
    assert refused.status_code == 400 and "sign in as that account" in refused.get_data(
        as_text=True
    )
    with app.app_context():
        assert _role(NEW_TA, courses["course_id"]) == "student"


def test_adding_an_existing_account_as_ta_waits_for_its_acceptance(app, client, auth, courses):
    auth.login(TEACHER)
    _roster_add(app, client, courses["course_id"], STUDENT, "ta")
    links = _invite_links(client, courses["course_id"])
    auth.logout()
    with app.app_context():
        assert _role(STUDENT, courses["course_id"]) == "student"
    auth.login(STUDENT)
    assert client.get(f"/instructor/courses/{courses['course_id']}").status_code == 403
    accepted = _form(client, links[STUDENT], {})
    assert accepted.status_code == 302
    assert client.get(f"/instructor/courses/{courses['course_id']}").status_code == 200
    with app.app_context():
        assert _role(STUDENT, courses["course_id"]) == "ta"


def test_an_invite_claims_the_account_once_and_expires(app, client, auth, courses):
    auth.login(TEACHER)
    roster = f"/instructor/courses/{courses['course_id']}/roster"
    imported = _form(
        client,
        f"{roster}/import",
        {"csv_text": "email,name\nada@example.edu,Ada\nbea@example.edu,Bea\n"},
        roster,
        follow_redirects=True,
    )
    assert "2 invite links" in imported.get_data(as_text=True)
    links = _invite_links(client, courses["course_id"])
    assert set(links) == {"ada@example.edu", "bea@example.edu"}  # one per new student
    auth.logout()
    # A weak password is refused with a reason, and the link still works afterwards.
    weak = _form(
        client, links["ada@example.edu"], {"password": "password123", "confirm": "password123"}
    )
    assert weak.status_code == 400 and "too common" in weak.get_data(as_text=True)
    claimed = _form(client, links["ada@example.edu"], {"password": PASSWORD, "confirm": PASSWORD})
    assert claimed.status_code == 302 and client.get("/dashboard").status_code == 200
    auth.logout()
    assert client.get(links["ada@example.edu"]).status_code == 404  # single use
    assert auth.login("ada@example.edu").status_code == 302
    auth.logout()
    # An expired link is refused; the instructor's next download renews it (a new link).
    with app.app_context():
        db.session.execute(
            sa.update(Invite)
            .values(expires_at=dt.datetime(2000, 1, 1))
            .where(Invite.accepted_at.is_(None))
        )
        db.session.commit()
    assert client.get(links["bea@example.edu"]).status_code == 404
    auth.login(TEACHER)
    renewed = _invite_links(client, courses["course_id"])
    auth.logout()
    assert renewed["bea@example.edu"] != links["bea@example.edu"]
    assert client.get(renewed["bea@example.edu"]).status_code == 200
    with app.app_context():
        stored = db.session.scalars(sa.select(Invite.token_hash)).all()
        assert not any(link.rsplit("/", 1)[1] in h for h in stored for link in renewed.values())


def test_removing_a_member_withdraws_the_invite(app, client, auth, courses):
    auth.login(TEACHER)
    _roster_add(app, client, courses["course_id"], "gone@example.edu", "student")
    links = _invite_links(client, courses["course_id"])
    with app.app_context():
        gone = db.session.scalar(sa.select(User.id).where(User.email == "gone@example.edu"))
    roster = f"/instructor/courses/{courses['course_id']}/roster"
    assert _form(client, f"{roster}/{gone}/remove", {}, roster).status_code == 302
    auth.logout()
    assert client.get(links["gone@example.edu"]).status_code == 404


def test_an_instructor_cannot_remove_or_name_people_of_another_course(
    app, client, auth, courses, factory
):
    """Roster names belong to the membership: another course's import renames nobody."""
    factory.user("rival@example.com", "instructor")
    rival_course, _ = factory.course("Rival course", "rival@example.com")
    auth.login(TEACHER)
    roster = f"/instructor/courses/{courses['course_id']}/roster"
    _form(
        client,
        f"{roster}/import",
        {"csv_text": "email,name\nada@example.edu,Ada Lovelace\n"},
        roster,
    )
    auth.logout()
    auth.login("rival@example.com")
    rival_roster = f"/instructor/courses/{rival_course}/roster"
    _form(
        client,
        f"{rival_roster}/import",
        {"csv_text": f"email,name\nada@example.edu,Mallory\n{STUDENT},Mallory\n"},
        rival_roster,
    )
    with app.app_context():
        teacher_id = db.session.scalar(sa.select(User.id).where(User.email == TEACHER))
    # Removing someone who is not in the rival's course is a 404 (no e-mail leaks either).
    assert _form(client, f"{rival_roster}/{teacher_id}/remove", {}, rival_roster).status_code == 404
    auth.logout()
    auth.login(TEACHER)
    page = client.get(roster).get_data(as_text=True)
    assert "Ada Lovelace" in page and "Mallory" not in page
    book = client.get(f"/instructor/courses/{courses['course_id']}/gradebook.csv")
    assert "Mallory" not in book.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalars(sa.select(User.name)).all() == [None] * len(
            db.session.scalars(sa.select(User.id)).all()
        )  # no account was renamed


def test_the_invite_csv_neutralizes_spreadsheet_formulas(client, auth, courses):
    """A name typed into a roster import is not a formula when the links CSV is opened."""
    auth.login(TEACHER)
    roster = f"/instructor/courses/{courses['course_id']}/roster"
    _form(
        client,
        f"{roster}/import",
        {"csv_text": 'email,name\nada@example.edu,"=HYPERLINK(""http://x"")"\n'},
        roster,
    )
    answer = _form(client, f"{roster}/invites.csv", {}, roster)
    rows = {row["email"]: row for row in csv.DictReader(io.StringIO(answer.get_data(as_text=True)))}
    assert rows["ada@example.edu"]["name"] == '\'=HYPERLINK("http://x")'
