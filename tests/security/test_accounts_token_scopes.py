"""API tokens end with every recovery step and carry only their scopes.

A token issued before a password change (account page, `grader user password`), "sign out
everywhere" (account page, `grader user sign-out`) answers 401 afterwards, for reads and writes,
and each path says how many tokens went (the forgot-password link's revocation is in
test_accounts_recovery.py). A `read` token cannot submit, upload or reach a staff operation:
403 with words naming the missing scope, and nothing stored. Its last use is written at most
once a minute."""

from __future__ import annotations

import datetime as dt
import io

import sqlalchemy as sa

from grader.extensions import db
from grader.models import ApiToken, Exercise, Submission
from tests.app_support import PASSWORD, attempt_count, bearer

STUDENT, TEACHER = "student@example.com", "teacher@example.com"
NEW_PASSWORD = "a brand new passphrase"


def _read(client, token: str) -> int:
    return client.get("/api/me", headers=bearer(token)).status_code


def _write(client, token: str) -> int:
    return client.post("/api/exercises", json={"kind": "prune"}, headers=bearer(token)).status_code


def _works(client, token: str) -> None:
    assert _read(client, token) == 200
    assert _write(client, token) == 201


def _refused(client, token: str) -> None:
    assert _read(client, token) == 401
    assert _write(client, token) == 401


def test_a_password_change_on_the_account_page_revokes_every_token(client, auth, factory):
    factory.user(STUDENT)
    token = factory.token(STUDENT)
    _works(client, token)
    auth.login()
    answer = client.post(
        "/account/password",
        data={
            "current": PASSWORD,
            "password": NEW_PASSWORD,
            "confirm": NEW_PASSWORD,
            "csrf_token": auth.csrf(),
        },
        follow_redirects=True,
    )
    _refused(client, token)
    assert "1 API token was revoked" in answer.get_data(as_text=True)


def test_sign_out_everywhere_revokes_every_token(client, auth, factory):
    factory.user(STUDENT)
    tokens = [factory.token(STUDENT), factory.token(STUDENT)]
    for token in tokens:
        assert _read(client, token) == 200
    auth.login()
    answer = client.post(
        "/account/sign-out-everywhere", data={"csrf_token": auth.csrf()}, follow_redirects=True
    )
    for token in tokens:
        _refused(client, token)
    assert "2 API tokens were revoked" in answer.get_data(as_text=True)


def test_the_cli_sign_out_revokes_every_token(client, runner, factory):
    factory.user(STUDENT)
    token = factory.token(STUDENT)
    _works(client, token)
    done = runner.invoke(args=["user", "sign-out", STUDENT])
    _refused(client, token)
    assert done.exit_code == 0 and "1 API token was revoked" in done.output


def test_the_cli_password_revokes_every_token(client, runner, factory):
    factory.user(STUDENT)
    token = factory.token(STUDENT)
    _works(client, token)
    done = runner.invoke(args=["user", "password", STUDENT, "--password", NEW_PASSWORD])
    _refused(client, token)
    assert done.exit_code == 0 and "1 API token was revoked" in done.output


def test_signing_out_of_one_browser_keeps_the_tokens(client, auth, factory):
    factory.user(STUDENT)
    token = factory.token(STUDENT)
    auth.login()
    auth.logout()
    assert _read(client, token) == 200


def test_a_read_token_cannot_submit_upload_or_reach_staff_operations(client, app, factory):
    room = factory.classroom()
    student = factory.token(STUDENT, ("read",))
    teacher = factory.token(TEACHER, ("read",))
    assert client.get("/api/assignments", headers=bearer(student)).status_code == 200
    refused = client.post("/api/exercises", json={"kind": "prune"}, headers=bearer(student))
    assert refused.status_code == 403
    assert "'submit' scope" in refused.get_json()["error"]
    exercise_id = client.get(
        f"/api/assignments/{room['assignment_id']}/slots/0/exercise", headers=bearer(student)
    ).get_json()["id"]
    with app.app_context():
        exercises = db.session.scalar(sa.select(sa.func.count(Exercise.id)))
    answer = client.post(
        f"/api/exercises/{exercise_id}/attempts",
        json={"answer": {"kind": "prune", "pruned": []}},
        headers=bearer(student),
    )
    assert answer.status_code == 403 and "'submit' scope" in answer.get_json()["error"]
    upload = client.post(
        "/api/engines",
        data={
            "assignment_id": str(room["assignment_id"]),
            "slot_index": "0",
            "file": (io.BytesIO(b"def choose_move(state): pass\n"), "engine.py"),
        },
        headers=bearer(student),
    )
    assert upload.status_code == 403 and "'submit' scope" in upload.get_json()["error"]
    for path in (
        f"/api/courses/{room['course_id']}/gradebook",
        f"/api/courses/{room['course_id']}/gradebook.csv",
        f"/api/courses/{room['course_id']}/statistics",
        f"/api/courses/{room['course_id']}/audit",
        f"/api/courses/{room['course_id']}/regrades",
    ):
        staff = client.get(path, headers=bearer(teacher))
        assert staff.status_code == 403, path
        assert "'staff' scope" in staff.get_json()["error"]
    with app.app_context():
        assert attempt_count() == 0
        assert db.session.scalar(sa.select(sa.func.count(Submission.id))) == 0
        assert db.session.scalar(sa.select(sa.func.count(Exercise.id))) == exercises
    # The same operations with the scope they name.
    full = factory.token(TEACHER, ("read", "staff"))
    gradebook = f"/api/courses/{room['course_id']}/gradebook"
    assert client.get(gradebook, headers=bearer(full)).status_code == 200
    submitter = factory.token(STUDENT, ("read", "submit"))
    assert _write(client, submitter) == 201


def test_a_new_token_has_only_read_unless_more_is_ticked(client, app, auth, factory):
    factory.user(STUDENT)
    auth.login()
    made = client.post(
        "/account/tokens",
        data={"name": "script", "days": "30", "read": "y", "csrf_token": auth.csrf()},
    )
    assert made.status_code == 201
    with app.app_context():
        assert db.session.scalar(sa.select(ApiToken.scopes)) == "read"
    nothing = client.post(
        "/account/tokens",
        data={"name": "none", "days": "30", "csrf_token": auth.csrf()},
        follow_redirects=True,
    )
    assert "needs at least one scope" in nothing.get_data(as_text=True)


def test_the_account_page_lists_scopes_last_use_and_expiry(client, app, auth, factory):
    factory.user(STUDENT)
    token = factory.token(STUDENT, ("read", "submit"))
    auth.login()
    page = client.get("/account").get_data(as_text=True)
    assert "<td>read, submit</td>" in page and "<td>never</td>" in page
    assert _read(client, token) == 200
    page = client.get("/account").get_data(as_text=True)
    with app.app_context():
        used = db.session.scalar(sa.select(ApiToken.last_used_at))
        expires = db.session.scalar(sa.select(ApiToken.expires_at))
    from grader.services.courses import zones

    # In the server's zone (GRADER_TIMEZONE, UTC here), as every time a person reads.
    for moment in (used, expires):
        assert f">{zones.words(moment, 'UTC')}</time></td>" in page


def test_last_use_is_written_at_most_once_a_minute(client, app, factory):
    factory.user(STUDENT)
    token = factory.token(STUDENT)
    assert _read(client, token) == 200
    with app.app_context():
        first = db.session.scalar(sa.select(ApiToken.last_used_at))
    assert first is not None
    for _ in range(5):
        assert _read(client, token) == 200
    with app.app_context():
        assert db.session.scalar(sa.select(ApiToken.last_used_at)) == first  # no new write
        older = first - dt.timedelta(seconds=61)
        db.session.execute(sa.update(ApiToken).values(last_used_at=older))
        db.session.commit()
    assert _read(client, token) == 200
    with app.app_context():
        assert db.session.scalar(sa.select(ApiToken.last_used_at)) > older


def test_every_operation_declares_its_scope_in_the_document(client):
    from grader.web.api.scopes import NEEDED

    document = client.get("/api/openapi.json").get_json()
    operations = {
        operation["operationId"]: operation
        for item in document["paths"].values()
        for operation in item.values()
    }
    public = {name for name, op in operations.items() if op.get("security") == []}
    assert public == {"openapi", "ping"}
    assert set(NEEDED) == set(operations) - public
    for name, scope in NEEDED.items():
        assert operations[name]["security"] == [{"bearer": [scope]}, {"session": []}], name
    assert "`read`" in document["components"]["securitySchemes"]["bearer"]["description"]


def test_a_token_made_before_scopes_keeps_its_row_and_what_it_could_do(tmp_path, monkeypatch):
    """Migration e36c2f9a7b14 keeps every token and user row; a token made before it holds all
    three scopes (today's clients keep working until it expires or is revoked)."""
    import hashlib
    import sqlite3

    from flask_migrate import upgrade

    from grader import create_app
    from tests.app_support import app_config

    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path / "instance"))
    path = tmp_path / "old.sqlite3"
    app = create_app(app_config(path))
    with app.app_context():
        upgrade(directory=app.config["GRADER_MIGRATIONS_DIR"], revision="7a4c2e9d1b05")
        db.engine.dispose()
    token = "abg_" + "k" * 43
    connection = sqlite3.connect(path)  # the rows of the release before scopes
    connection.execute(
        "INSERT INTO user (id, email, role, session_version, is_admin, created_at) "
        "VALUES (1, 'old@example.com', 'student', 0, 0, '2026-01-01 00:00:00')"
    )
    connection.execute(
        "INSERT INTO api_token (id, user_id, name, token_hash, created_at, expires_at) "
        "VALUES (7, 1, 'ci', ?, '2026-01-01 00:00:00', '2999-01-01 00:00:00')",
        (hashlib.sha256(token.encode()).hexdigest(),),
    )
    connection.commit()
    connection.close()
    with app.app_context():
        upgrade(directory=app.config["GRADER_MIGRATIONS_DIR"])
        kept = db.session.get(ApiToken, 7)
        assert kept is not None and kept.name == "ci" and kept.scopes == "read submit staff"
        user = db.session.get(ApiToken, 7).user
        assert user.totp_secret is None and user.email == "old@example.com"
        db.session.remove()
    client = app.test_client()
    assert _read(client, token) == 200
    assert _write(client, token) == 201
    with app.app_context():
        db.engine.dispose()
