"""No roster action hands an instructor a way into an account that already exists.

The attack, as it was found: the instructor of course B adds `prof.lms@uni.edu`, an account an
LMS launch made (no password; its owner teaches another course), to course B as a student. The
page answers "added, invite link to hand out"; the instructor downloads the links (`POST
.../roster/invites.csv`), opens that one and chooses a password: they are now signed in as that
person. The same for an account another instructor added whose owner had not claimed it yet.
Now only the invite made with a new account claims it, only while nobody has had a way into it;
every other link is accepted signed in as its account; and the roster answers alike for an
address with an account and one without."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import LtiRegistration, Membership, User
from tests.app_support import PASSWORD, csrf_from
from tests.lti.lti_platform import INSTRUCTOR as LMS_INSTRUCTOR
from tests.lti.lti_support import bench

PROF = "prof.lms@uni.edu"
TEACHER_B, TEACHER_A = "teacher.b@example.com", "teacher.a@example.com"
ATTACKER_PASSWORD = "attacker chosen pass"


def _form(client, path: str, data: dict[str, Any], page: str | None = None, **kw: Any) -> Any:
    token = csrf_from(client.get(page or path).get_data(as_text=True))
    return client.post(path, data={**data, "csrf_token": token}, **kw)


def _roster(course_id: int) -> str:
    return f"/instructor/courses/{course_id}/roster"


def _add(client, course_id: int, email: str, role: str = "student") -> str:
    """The roster's add as the page does it; the words it answers with."""
    page = _form(
        client,
        _roster(course_id),
        {"email": email, "name": "", "role": role},
        follow_redirects=True,
    )
    assert page.status_code == 200
    found = re.search(re.escape(email) + r": ([^<]*)\.</", page.get_data(as_text=True))
    assert found, page.get_data(as_text=True)
    return found.group(1)


def _links(client, course_id: int) -> list[dict[str, str]]:
    answer = _form(client, f"{_roster(course_id)}/invites.csv", {}, _roster(course_id))
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    return list(csv.DictReader(io.StringIO(answer.get_data(as_text=True))))


def _path(link: str) -> str:
    return "/" + link.split("://", 1)[1].split("/", 1)[1]


def _choose_password(client, path: str, password: str = ATTACKER_PASSWORD) -> Any:
    """What the attacker does with the link: open it, and post a password as a claim does (with
    the session's CSRF token from the login page where the invite's page shows no form)."""
    page = client.get(path)
    assert page.status_code == 200
    form = page.text if "csrf_token" in page.text else client.get("/login").text
    return client.post(
        path, data={"password": password, "confirm": password, "csrf_token": csrf_from(form)}
    )


def _account(app, email: str) -> User:
    with app.app_context():
        found = db.session.scalar(sa.select(User).where(User.email == email))
        db.session.expunge_all()
        return found


def _courses_of(app, email: str) -> dict[int, str]:
    with app.app_context():
        return dict(
            db.session.execute(
                sa.select(Membership.course_id, Membership.role)
                .join(User)
                .where(User.email == email)
            ).all()
        )


@pytest.fixture
def lms_prof(app, client, factory) -> Any:
    """`prof.lms@uni.edu`: an account a real LMS launch made (the platform's e-mail trusted), the
    instructor of the LMS's course here; and instructor B with a course of their own."""
    env_iter = bench(app, client)
    env = next(env_iter)
    with app.app_context():
        db.session.execute(sa.update(LtiRegistration).values(trust_emails=True))
        db.session.commit()
    member = env.member("prof", [LMS_INSTRUCTOR], name="Prof LMS", email=PROF)
    launched = env.launch(app.test_client(), member)
    assert launched.status_code == 302, launched.get_data(as_text=True)
    lms_course = next(iter(_courses_of(app, PROF)))
    assert _courses_of(app, PROF) == {lms_course: "instructor"}
    assert _account(app, PROF).password_hash is None
    factory.user(TEACHER_B, "instructor")
    course_b, _ = factory.course("Course B", TEACHER_B)
    yield {"lms_course": lms_course, "course_b": course_b}
    next(env_iter, None)


def test_an_lms_made_account_is_not_taken_over_through_a_roster_link(app, client, auth, lms_prof):
    """The issue's steps: add, download the invites, open the link, choose a password."""
    course_b = lms_prof["course_b"]
    auth.login(TEACHER_B)
    _add(client, course_b, PROF)
    rows = [row for row in _links(client, course_b) if row["email"] == PROF]
    auth.logout()
    assert len(rows) == 1  # a link, as for anyone invited: the CSV tells nothing
    attacker = app.test_client()
    page = attacker.get(_path(rows[0]["link"])).get_data(as_text=True)
    assert 'name="password"' not in page and "log in as" in page
    refused = _choose_password(attacker, _path(rows[0]["link"]))
    assert refused.status_code == 400
    assert "sign in as that account" in refused.get_data(as_text=True)
    assert attacker.get("/dashboard").status_code == 302  # signed in as nobody
    assert attacker.get(f"/instructor/courses/{lms_prof['lms_course']}").status_code == 302
    assert _account(app, PROF).password_hash is None
    assert auth.login(PROF, ATTACKER_PASSWORD).status_code == 200  # no such login
    # Course B got no member either: its owner has not accepted.
    assert _courses_of(app, PROF) == {lms_prof["lms_course"]: "instructor"}


def test_an_lms_made_account_is_not_taken_over_as_staff_or_by_the_operator(
    app, client, auth, runner, lms_prof
):
    """The class, not the example: a staff-role add, a CSV import and `grader course add` each
    give a link (tried at once, as the attacker would) that sets no password."""
    from grader.services.courses import invites

    course_b = lms_prof["course_b"]

    def csv_link() -> str:
        auth.login(TEACHER_B)
        (row,) = [r for r in _links(client, course_b) if r["email"] == PROF]
        auth.logout()
        return _path(row["link"])

    def cli_link() -> str:
        printed = runner.invoke(args=["course", "add", str(course_b), PROF])
        assert printed.exit_code == 0, printed.output
        return re.search(r"(/invite/\S+)", printed.output).group(1)

    def attack(path: str) -> None:
        refused = _choose_password(app.test_client(), path)
        assert refused.status_code == 400, path
        assert _account(app, PROF).password_hash is None
        with app.app_context():
            assert not invites.is_claim(invites.by_token(path.rsplit("/", 1)[1]))

    auth.login(TEACHER_B)
    _add(client, course_b, PROF, "ta")
    auth.logout()
    attack(csv_link())
    auth.login(TEACHER_B)
    _form(
        client, f"{_roster(course_b)}/import", {"csv_text": f"email\n{PROF}\n"}, _roster(course_b)
    )
    auth.logout()
    attack(csv_link())
    attack(cli_link())
    assert _courses_of(app, PROF) == {lms_prof["lms_course"]: "instructor"}


def test_an_unclaimed_account_another_instructor_added_is_not_taken_over(
    app, client, auth, factory
):
    """Instructor A added ada (a new address: an account without a password, her claim link with
    A); before she claims it, instructor B adds her and uses B's own link."""
    factory.user(TEACHER_A, "instructor")
    factory.user(TEACHER_B, "instructor")
    course_a, _ = factory.course("Course A", TEACHER_A)
    course_b, _ = factory.course("Course B", TEACHER_B)
    ada = "ada@uni.edu"
    auth.login(TEACHER_A)
    _add(client, course_a, ada)
    (a_link,) = [_path(r["link"]) for r in _links(client, course_a) if r["email"] == ada]
    auth.logout()
    auth.login(TEACHER_B)
    _add(client, course_b, ada)
    (b_link,) = [_path(r["link"]) for r in _links(client, course_b) if r["email"] == ada]
    auth.logout()
    attacker = app.test_client()
    refused = _choose_password(attacker, b_link)
    assert refused.status_code == 400 and attacker.get("/dashboard").status_code == 302
    assert _account(app, ada).password_hash is None
    # Ada claims her account with the link made with it; B's invite then waits for her.
    ada_client = app.test_client()
    assert _choose_password(ada_client, a_link, PASSWORD).status_code == 302
    assert _courses_of(app, ada) == {course_a: "student"}
    page = ada_client.get(b_link)
    assert 'name="password"' not in page.get_data(as_text=True)
    accepted = ada_client.post(b_link, data={"csrf_token": csrf_from(page.text)})
    assert accepted.status_code == 302
    assert _courses_of(app, ada) == {course_a: "student", course_b: "student"}


def test_a_claim_link_stops_claiming_once_there_is_a_way_into_the_account(
    app, client, auth, factory
):
    """A new account's own link claims it only while nobody has had a way in: not after the
    operator set a password, nor after an API token was issued for it."""
    from grader.services import accounts

    factory.user(TEACHER_A, "instructor")
    course_a, _ = factory.course("Course A", TEACHER_A)
    auth.login(TEACHER_A)
    _add(client, course_a, "one@uni.edu")
    _add(client, course_a, "two@uni.edu")
    links = {r["email"]: _path(r["link"]) for r in _links(client, course_a)}
    auth.logout()
    with app.app_context():
        accounts.set_password(accounts.user_by_email("one@uni.edu").id, PASSWORD)
        accounts.issue_token(accounts.user_by_email("two@uni.edu").id)
    for email in ("two@uni.edu", "one@uni.edu"):
        before = _account(app, email).password_hash
        assert _choose_password(app.test_client(), links[email]).status_code == 400, email
        assert _account(app, email).password_hash == before
    assert _courses_of(app, "one@uni.edu") == _courses_of(app, "two@uni.edu") == {}
    # The account with a password accepts its invite the ordinary way, signed in.
    auth.login("one@uni.edu")
    page = client.get(links["one@uni.edu"])
    accepted = client.post(links["one@uni.edu"], data={"csrf_token": csrf_from(page.text)})
    assert accepted.status_code == 302
    assert _courses_of(app, "one@uni.edu") == {course_a: "student"}


def test_the_roster_answers_alike_for_an_address_with_an_account_and_without(
    app, client, auth, factory
):
    """The words, the roster's rows, the invite CSV and an import's summary are the same for an
    address that had an account (with a password, or an unclaimed one) and for a new one."""
    factory.user(TEACHER_A, "instructor")
    factory.user("known@uni.edu")
    course_a, _ = factory.course("Course A", TEACHER_A)
    course_b, _ = factory.course("Course B", TEACHER_A)
    auth.login(TEACHER_A)
    _add(client, course_b, "made.elsewhere@uni.edu")  # an unclaimed account from another course
    people = ("known@uni.edu", "made.elsewhere@uni.edu", "fresh@uni.edu")
    assert {_add(client, course_a, email) for email in people} == {
        "invited, invite link to hand out (roster: download invite links)"
    }
    rows = {r["email"]: r for r in _links(client, course_a)}
    assert set(rows) == set(people)
    shapes = {
        (tuple(r), r["name"], r["role"], _path(r["link"]).split("/")[1], len(r["link"]))
        for r in rows.values()
    }
    assert len(shapes) == 1
    page = client.get(_roster(course_a)).get_data(as_text=True)
    cells = {
        email: re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.split(email, 1)[1]))[:60]
        for email in people
    }
    assert len({re.sub(r"until .*", "", cell) for cell in cells.values()}) == 1
    assert all("invite pending" in cell for cell in cells.values())
    summaries = set()
    for email in ("known@uni.edu", "brand.new@uni.edu"):
        course, _ = factory.course(f"Import {email}", TEACHER_A)
        imported = _form(
            client,
            f"{_roster(course)}/import",
            {"csv_text": f"email\n{email}\n"},
            _roster(course),
            follow_redirects=True,
        )
        summaries.add(re.search(r"Imported: ([^<]*)", imported.get_data(as_text=True)).group(1))
    assert summaries == {"1 invited, 0 roles changed, 0 already enrolled; 1 invite link."}


def test_the_upgrade_keeps_claiming_only_for_the_account_the_roster_made(
    app, client, auth, runner, factory
):
    """Invites handed out before the upgrade: a password-less account's first pending invite
    (the roster made the account) still claims it; another course's later invite to it, and
    any invite to an account an LMS made, no longer do. Every row is kept."""
    from grader.models import Invite
    from grader.services.courses import invites

    factory.user(TEACHER_A, "instructor")
    factory.user(TEACHER_B, "instructor")
    course_a, _ = factory.course("Course A", TEACHER_A)
    course_b, _ = factory.course("Course B", TEACHER_B)
    with app.app_context():
        lms = User(email=PROF, role="student")  # as a launch makes it: no password
        db.session.add(lms)
        db.session.commit()
        lms_id = lms.id
    factory.lms_identity(lms_id, "prof")
    for teacher, course in ((TEACHER_A, course_a), (TEACHER_B, course_b)):
        auth.login(teacher)
        _add(client, course, "ada@uni.edu")
        _add(client, course, PROF)
        auth.logout()
    with app.app_context():
        ada = db.session.scalar(sa.select(User.id).where(User.email == "ada@uni.edu"))
        # Before the upgrade the roster made the membership with its name at once.
        db.session.add(Membership(user_id=ada, course_id=course_a, name="Ada L"))
        db.session.commit()
        before = db.session.execute(sa.select(Invite.id, Invite.token_hash)).all()
        db.engine.dispose()
    assert runner.invoke(args=["db", "downgrade", "7a4c2e9d1b05"]).exit_code == 0
    result = runner.invoke(args=["db", "upgrade"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        db.session.remove()
        assert db.session.execute(sa.select(Invite.id, Invite.token_hash)).all() == before
        claimable = dict(db.session.execute(sa.select(User.email, User.claimable)).all())
        assert claimable == {TEACHER_A: False, TEACHER_B: False, PROF: False, "ada@uni.edu": True}
        found = {
            (i.user.email, i.course_id): (invites.is_claim(i), i.name)
            for i in db.session.scalars(sa.select(Invite))
        }
        assert found == {
            ("ada@uni.edu", course_a): (True, "Ada L"),
            ("ada@uni.edu", course_b): (False, None),
            (PROF, course_a): (False, None),
            (PROF, course_b): (False, None),
        }


def test_an_existing_account_accepts_or_declines_on_its_own_dashboard(app, client, auth, factory):
    """The person told accepts a student membership signed in as themselves, on their dashboard
    too; nobody else can accept or decline it for them."""
    factory.user(TEACHER_A, "instructor")
    factory.user("known@uni.edu")
    factory.user("other@uni.edu")
    course_a, _ = factory.course("Course A", TEACHER_A)
    course_b, _ = factory.course("Course B", TEACHER_A)
    auth.login(TEACHER_A)
    _add(client, course_a, "known@uni.edu")
    _add(client, course_b, "known@uni.edu")
    b_link = next(_path(r["link"]) for r in _links(client, course_b))
    auth.logout()
    auth.login("other@uni.edu")
    assert 'data-role="invitations"' not in client.get("/dashboard").get_data(as_text=True)
    for verb in ("accept", "decline"):
        assert _form(client, f"/invitations/{course_a}/{verb}", {}, "/dashboard").status_code == 404
    assert _courses_of(app, "other@uni.edu") == {}
    auth.logout()
    auth.login("known@uni.edu")
    page = client.get("/dashboard").get_data(as_text=True)
    listed = page.split('data-role="invitations"', 1)[1].split("</ul>", 1)[0]
    assert "Course A invites you as a student" in listed and "Course B" in listed
    accepted = _form(client, f"/invitations/{course_a}/accept", {}, "/dashboard")
    assert accepted.status_code == 302
    declined = _form(client, f"/invitations/{course_b}/decline", {}, "/dashboard")
    assert declined.status_code == 302
    assert _courses_of(app, "known@uni.edu") == {course_a: "student"}
    assert 'data-role="invitations"' not in client.get("/dashboard").get_data(as_text=True)
    assert client.get(b_link).status_code == 404  # the declined link is withdrawn


def test_a_squatter_of_a_future_tas_address_collects_no_role_from_the_dashboard(
    app, client, auth, factory
):
    """Sign-up checks no address, so being signed in to an account proves the account, not the
    mailbox: a staff role is accepted only with its link (which went to the address), never
    from the dashboard."""
    factory.user(TEACHER_A, "instructor")
    course_a, code = factory.course("Course A", TEACHER_A)
    squatted = "future.ta@uni.edu"
    _form(
        client,
        "/signup",
        {"email": squatted, "password": PASSWORD, "confirm": PASSWORD, "join_code": code},
    )
    auth.login(TEACHER_A)
    _add(client, course_a, squatted, "ta")
    auth.logout()
    auth.login(squatted)
    assert 'data-role="invitations"' not in client.get("/dashboard").get_data(as_text=True)
    for verb in ("accept", "decline"):
        assert _form(client, f"/invitations/{course_a}/{verb}", {}, "/dashboard").status_code == 404
    assert _courses_of(app, squatted) == {course_a: "student"}
    assert client.get(f"/instructor/courses/{course_a}").status_code == 403


def test_a_sign_in_or_an_lms_identity_ends_a_claim_link_too(app, client, auth, factory):
    """The other ways into an account: any sign-in (Flask-Login's login_user, which every way in
    goes through) turns `claimable` off for good; an LMS identity attached to the account makes
    the link claim nothing while it is there."""
    from flask_login import login_user

    factory.user(TEACHER_A, "instructor")
    course_a, _ = factory.course("Course A", TEACHER_A)
    auth.login(TEACHER_A)
    for email in ("signed.in@uni.edu", "lms.linked@uni.edu", "untouched@uni.edu"):
        _add(client, course_a, email)
    links = {r["email"]: _path(r["link"]) for r in _links(client, course_a)}
    auth.logout()
    with app.test_request_context():
        login_user(db.session.scalar(sa.select(User).where(User.email == "signed.in@uni.edu")))
        linked = db.session.scalar(sa.select(User.id).where(User.email == "lms.linked@uni.edu"))
        db.session.commit()
    factory.lms_identity(linked, "s")
    assert _account(app, "signed.in@uni.edu").claimable is False
    assert _account(app, "lms.linked@uni.edu").claimable is True  # the check at use refuses it
    for email in ("signed.in@uni.edu", "lms.linked@uni.edu"):
        assert _choose_password(app.test_client(), links[email]).status_code == 400, email
        assert _account(app, email).password_hash is None
    claimed = _choose_password(app.test_client(), links["untouched@uni.edu"], PASSWORD)
    assert claimed.status_code == 302
    assert _account(app, "untouched@uni.edu").claimable is False
