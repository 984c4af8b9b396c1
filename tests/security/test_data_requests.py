"""Export and erasure asked wrongly: an unknown account, an account erased already, another
person's data asked by someone who is neither its owner nor an administrator. Each is a clear
refusal that changes nothing (the database's rows are counted before and after)."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
import sqlalchemy as sa

from tests.instructor_support import ALICE, BOB, TEACHER, user
from tests.privacy_support import full_room


def _rows(app) -> dict[str, int]:
    from grader.extensions import db
    from grader.models import Base

    with app.app_context():
        return {
            t.name: db.session.scalar(sa.select(sa.func.count()).select_from(t))
            for t in Base.metadata.sorted_tables
        }


@pytest.fixture
def room(app, factory):
    made = full_room(app, factory)
    factory.user("root@example.com")
    with app.app_context():
        from grader.services import accounts

        accounts.set_admin(accounts.user_by_email("root@example.com").id, True)
    return made


def test_an_unknown_account_is_refused_by_the_page_the_service_and_the_command(
    app, client, auth, runner, room
):
    from grader.services import NotFound
    from grader.services.data import erasure, export

    before = _rows(app)
    with app.app_context(), pytest.raises(NotFound, match="no account has the id 999"):
        erasure.erase(None, 999)
    with app.app_context(), pytest.raises(NotFound, match="no account has the id 999"):
        export.export(None, 999)
    auth.login("root@example.com")
    assert client.get("/admin/accounts/999/export").status_code == 404
    response = client.post(
        "/admin/accounts/999/erase", data={"email": "x@example.com", "csrf_token": auth.csrf()}
    )
    assert response.status_code == 404 and b"no account has the id 999" in response.data
    for args in (
        ["user", "erase", "nobody@example.com", "--yes"],
        ["user", "export", "nobody@example.com", "out.zip"],
    ):
        result = runner.invoke(args=args)
        assert result.exit_code != 0 and "no user nobody@example.com" in result.output
    assert _rows(app) == before


def test_a_second_erasure_is_refused(app, client, auth, runner, room):
    from grader.services import Conflict
    from grader.services.data import erasure

    assert runner.invoke(args=["user", "erase", ALICE, "--yes"]).exit_code == 0
    before = _rows(app)
    with (
        app.app_context(),
        pytest.raises(Conflict, match=f"account {room.ids[ALICE]} was erased on"),
    ):
        erasure.erase(None, room.ids[ALICE])
    again = runner.invoke(args=["user", "erase", ALICE, "--yes"])
    assert again.exit_code != 0 and f"no user {ALICE}" in again.output
    auth.login("root@example.com")
    response = client.post(
        f"/admin/accounts/{room.ids[ALICE]}/erase",
        data={"email": f"erased-account-{room.ids[ALICE]}", "csrf_token": auth.csrf()},
    )
    assert response.status_code == 409 and b"was erased on" in response.data
    assert client.get(f"/admin/accounts/{room.ids[ALICE]}/export").status_code == 409
    assert _rows(app) == before


def test_a_wrong_confirmation_erases_nothing(app, client, auth, room):
    before = _rows(app)
    auth.login("root@example.com")
    response = client.post(
        f"/admin/accounts/{room.ids[ALICE]}/erase",
        data={"email": BOB, "csrf_token": auth.csrf()},
    )
    assert (
        response.status_code == 400
        and b"not the account&#39;s: nothing was erased" in response.data
    )
    assert _rows(app) == before
    with app.app_context():
        assert user(ALICE).erased_at is None


def test_another_persons_export_or_erasure_is_refused(app, client, auth, factory, room):
    from grader.services import Forbidden
    from grader.services.data import erasure, export

    before = _rows(app)
    with app.app_context():
        bob = user(BOB)
        with pytest.raises(Forbidden, match="only the account's owner or an administrator"):
            export.export(bob, room.ids[ALICE])
        with pytest.raises(Forbidden, match="only an administrator"):
            erasure.erase(user(TEACHER), room.ids[ALICE])
    for email in (BOB, TEACHER):  # a classmate; the course's own instructor
        auth.login(email)
        assert client.get(f"/admin/accounts/{room.ids[ALICE]}/export").status_code == 403
        response = client.post(
            f"/admin/accounts/{room.ids[ALICE]}/erase",
            data={"email": ALICE, "csrf_token": auth.csrf()},
        )
        assert response.status_code == 403
        # The API's export is the caller's own: never another's, whatever is asked.
        own = client.get(f"/api/me/export?user_id={room.ids[ALICE]}")
        assert own.status_code == 200
        own.direct_passthrough = False
        with zipfile.ZipFile(io.BytesIO(own.get_data())) as archive:
            assert json.loads(archive.read("account.json"))["email"] == email
        auth.logout()
    assert _rows(app) == before
    with app.app_context():
        assert user(ALICE).erased_at is None


def test_an_administrator_cannot_erase_their_own_account_from_the_page(app, client, auth, room):
    from grader.services import accounts

    before = _rows(app)
    auth.login("root@example.com")
    with app.app_context():
        root = accounts.user_by_email("root@example.com").id
    response = client.post(
        f"/admin/accounts/{root}/erase",
        data={"email": "root@example.com", "csrf_token": auth.csrf()},
    )
    assert b"cannot erase your own account here" in response.data
    assert _rows(app) == before
