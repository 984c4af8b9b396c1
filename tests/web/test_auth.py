"""Sign-up with a join code, log in and out, password hashing, cookies, CSRF."""

from __future__ import annotations

import sqlalchemy as sa

from grader.extensions import db
from grader.models import Membership, User

PASSWORD = "correct horse battery"


def _token(client, path):
    import re

    html = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html).group(1)


def test_pages_need_a_login(client):
    response = client.get("/dashboard")
    assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_signup_with_join_code_enrolls_the_student(client, app, factory, auth):
    factory.user("teacher@example.com", "instructor")
    course_id, code = factory.course("Search 101", "teacher@example.com")
    response = client.post(
        "/signup",
        data={
            "email": "New@Example.com",
            "password": PASSWORD,
            "confirm": PASSWORD,
            "join_code": code.lower(),
            "csrf_token": _token(client, "/signup"),
        },
    )
    # Sign-up answers the same for a new and a known e-mail, so it signs no one in: log in.
    assert response.status_code == 302 and response.headers["Location"] == "/login"
    assert auth.login("new@example.com").status_code == 302
    assert "Search 101" in client.get("/dashboard").get_data(as_text=True)
    with app.app_context():
        user = db.session.scalar(sa.select(User).where(User.email == "new@example.com"))
        assert user.role == "student"
        assert user.password_hash.startswith("$argon2id$") and PASSWORD not in user.password_hash
        assert (
            db.session.scalar(sa.select(Membership.course_id).where(Membership.user_id == user.id))
            == course_id
        )


def test_signup_with_a_wrong_code_creates_nothing(client, app):
    response = client.post(
        "/signup",
        data={
            "email": "x@example.com",
            "password": PASSWORD,
            "confirm": PASSWORD,
            "join_code": "NOPE",
            "csrf_token": _token(client, "/signup"),
        },
    )
    assert response.status_code == 200
    assert "no course has this join code" in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(User.id))) == 0


def test_login_logout(client, auth, factory):
    factory.user("student@example.com")
    response = auth.login()
    assert response.status_code == 302
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert client.get("/dashboard").status_code == 200
    auth.logout()
    assert client.get("/dashboard").status_code == 302


def test_wrong_password(client, auth, factory):
    factory.user("student@example.com")
    response = auth.login(password="not the password")
    assert response.status_code == 200
    assert "Wrong e-mail or password" in response.get_data(as_text=True)
    assert client.get("/dashboard").status_code == 302


def test_login_redirects_only_within_the_site(client, factory):
    factory.user("student@example.com")
    data = {
        "email": "student@example.com",
        "password": PASSWORD,
        "csrf_token": _token(client, "/login"),
    }
    response = client.post("/login?next=https://evil.example/", data=data)
    assert response.headers["Location"] == "/dashboard"


def test_forms_refuse_a_missing_csrf_token(client, factory):
    factory.user("student@example.com")
    response = client.post("/login", data={"email": "student@example.com", "password": PASSWORD})
    assert response.status_code == 400
    assert client.get("/dashboard").status_code == 302


def test_join_another_course(client, auth, factory):
    factory.user("student@example.com")
    _, code = factory.course("Games")
    auth.login()
    client.post("/courses/join", data={"join_code": code, "csrf_token": auth.csrf()})
    assert "Games" in client.get("/dashboard").get_data(as_text=True)
    again = client.post(
        "/courses/join", data={"join_code": code, "csrf_token": auth.csrf()}, follow_redirects=True
    )
    assert "already a member" in again.get_data(as_text=True)


def test_staff_land_on_their_courses_and_students_on_their_dashboard(client, factory):
    factory.user("teacher@example.com", role="instructor")
    data = {
        "email": "teacher@example.com",
        "password": PASSWORD,
        "csrf_token": _token(client, "/login"),
    }
    assert client.post("/login", data=data).headers["Location"] == "/instructor/"
    assert client.get("/").headers["Location"] == "/instructor/"


def test_favicon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    with client.get(response.headers["Location"]) as icon:
        assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"


def test_a_hash_made_at_one_argon2_cost_signs_in_at_another(tmp_path, db_file, monkeypatch):
    """Each hash carries its own cost: lowering or raising the setting keeps every stored
    password working, and new hashes get the new cost."""
    from grader import create_app
    from grader.services import accounts
    from tests.app_support import app_config

    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path / "instance"))
    first = create_app(app_config(db_file, GRADER_ARGON2=accounts_cost(2, 2048)))
    with first.app_context():
        accounts.create_user("old@example.com", PASSWORD)
    second = create_app(app_config(db_file, GRADER_ARGON2=accounts_cost(1, 1024)))
    with second.app_context():
        accounts.create_user("new@example.com", PASSWORD)
        stored = dict(db.session.execute(sa.select(User.email, User.password_hash)).all())
        assert "$m=2048,t=2,p=1$" in stored["old@example.com"]
        assert "$m=1024,t=1,p=1$" in stored["new@example.com"]
        assert accounts.authenticate("old@example.com", PASSWORD) is not None
        assert accounts.authenticate("old@example.com", PASSWORD + "x") is None
    with first.app_context():
        assert accounts.authenticate("new@example.com", PASSWORD) is not None
        assert accounts.authenticate("new@example.com", PASSWORD + "x") is None


def accounts_cost(time_cost: int, memory_kib: int) -> dict[str, int]:
    return {"time_cost": time_cost, "memory_cost": memory_kib, "parallelism": 1}


def test_the_sign_in_fields_say_their_purpose(client):
    """WCAG 1.3.5 (docs/accessibility.md): the e-mail and password of the sign-in form say what
    they hold, so a browser or password manager fills them."""
    import re

    html = client.get("/login").get_data(as_text=True)
    inputs = re.finditer(r'<input[^>]*name="(email|password)"[^>]*>', html)
    fields = {m.group(1): m.group(0) for m in inputs}
    assert 'autocomplete="username"' in fields["email"]
    assert 'autocomplete="current-password"' in fields["password"]
