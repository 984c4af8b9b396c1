"""The pages of a person's data: the account page's download and erasure request, the
administrators' accounts page (requests, finding, the confirmation step, the log, the purges to
come), the roster's words on removal, and GET /api/me/export in the OpenAPI document."""

from __future__ import annotations

import io
import json
import zipfile

from tests.app_support import bearer
from tests.instructor_support import ALICE, BOB, TEACHER
from tests.privacy_support import ENGINE_INDEX, full_room


def _admin(app, factory, email="root@example.com"):
    from grader.services import accounts

    factory.user(email)
    with app.app_context():
        accounts.set_admin(accounts.user_by_email(email).id, True)


def test_the_account_page_downloads_the_data_and_asks_for_erasure(app, client, auth, factory):
    room = full_room(app, factory)
    auth.login(ALICE)
    page = client.get("/account").get_data(as_text=True)
    assert "<title>Account · Alpha-Beta Grader</title>" in page
    assert page.count('id="your-data"') == 1
    assert "Download my data (ZIP)" in page and "its attempts are kept without a name" in page
    download = client.get("/account/export")
    assert download.status_code == 200 and download.mimetype == "application/zip"
    download.direct_passthrough = False
    data = download.get_data()
    download.close()  # as the WSGI server does: the temporary file goes
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert json.loads(archive.read("account.json"))["id"] == room.ids[ALICE]
    unticked = client.post("/account/erasure", data={"csrf_token": auth.csrf()})
    assert unticked.status_code == 302
    asked = client.post(
        "/account/erasure",
        data={"ask_erasure": "y", "csrf_token": auth.csrf()},
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "Your request went to the service&#39;s administrators" in asked
    assert "You asked for the erasure of your account on" in asked
    again = client.post(
        "/account/erasure",
        data={"ask_erasure": "y", "csrf_token": auth.csrf()},
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "already; an administrator will act on it" in again


def _listing(room):
    return (
        f"/instructor/courses/{room.course_id}/roster",
        f"/instructor/courses/{room.course_id}/gradebook",
        f"/instructor/courses/{room.course_id}/gradebook.csv",
        f"/instructor/assignments/{room.assignment_id}/answers-matching",
        f"/instructor/assignments/{room.assignment_id}/slots/{ENGINE_INDEX}/similarity",
        f"/api/courses/{room.course_id}/gradebook",
    )


def test_an_administrator_erases_an_asking_account_after_confirming(app, client, auth, factory):
    room = full_room(app, factory)
    auth.login(TEACHER)
    for url in _listing(room):  # every page that lists her, before
        assert ALICE in client.get(url).get_data(as_text=True), url
    auth.logout()
    auth.login(ALICE)
    client.post("/account/erasure", data={"ask_erasure": "y", "csrf_token": auth.csrf()})
    auth.logout()
    _admin(app, factory)
    auth.login("root@example.com")
    page = client.get("/admin/accounts").get_data(as_text=True)
    assert ALICE in page and "GRADER_ERASURE_ATTEMPTS=anonymize" in page
    found = client.get("/admin/accounts?q=bob").get_data(as_text=True)
    assert BOB in found and ALICE not in found.split("Find an account")[1].split("Archived")[0]
    confirm = client.get(f"/admin/accounts/{room.ids[ALICE]}/erase").get_data(as_text=True)
    assert "It cannot be undone." in confirm and "Search 101" in confirm
    done = client.post(
        f"/admin/accounts/{room.ids[ALICE]}/erase",
        data={"email": ALICE, "csrf_token": auth.csrf()},
        follow_redirects=True,
    ).get_data(as_text=True)
    assert f"Account {room.ids[ALICE]} erased: 1 attempt kept without a name" in done
    assert f"#{room.ids[ALICE]}" in done and ALICE not in done  # the log: a number, no address
    assert "No pending request." in done
    auth.logout()
    auth.login(TEACHER)
    for url in _listing(room):
        response = client.get(url)
        text = response.get_data(as_text=True)
        assert response.status_code == 200 and ALICE not in text, url
        assert f"erased-account-{room.ids[ALICE]}" not in text, url
    assert BOB in client.get(f"/instructor/courses/{room.course_id}/roster").get_data(as_text=True)


def test_the_purges_to_come_are_listed(app, client, auth, factory):
    from grader.services.data import retention

    room = full_room(app, factory)
    with app.app_context():
        retention.archive(None, room.course_id)
    _admin(app, factory)
    auth.login("root@example.com")
    page = client.get("/admin/accounts").get_data(as_text=True)
    section = page.split("Archived courses: purges to come")[1].split("Erasures done")[0]
    assert "Search 101" in section and " UTC" in section


def test_the_roster_says_removal_keeps_the_attempts_and_how_to_erase(app, client, auth, factory):
    room = full_room(app, factory)
    auth.login(TEACHER)
    page = client.get(f"/instructor/courses/{room.course_id}/roster").get_data(as_text=True)
    assert "keeps their\nattempts and uploads" in page and "grader user erase EMAIL" in page


def test_the_api_export_is_documented_and_returns_the_callers_zip(app, client, factory):
    room = full_room(app, factory)
    token = factory.token(ALICE)
    response = client.get("/api/me/export", headers=bearer(token))
    assert response.status_code == 200 and response.mimetype == "application/zip"
    with zipfile.ZipFile(io.BytesIO(response.get_data())) as archive:
        assert json.loads(archive.read("account.json"))["id"] == room.ids[ALICE]
    operation = client.get("/api/openapi.json").get_json()["paths"]["/api/me/export"]["get"]
    assert operation["responses"]["200"]["content"] == {
        "application/zip": {"schema": {"type": "string", "format": "binary"}}
    }


def test_archiving_tells_the_purge_in_the_courses_zone(app, client, auth, factory):
    """The message after archiving dates the purge as the course's page does: in the course's
    zone, named (a course in Asia/Kolkata reads IST), never a bare UTC date."""
    import datetime as dt
    from zoneinfo import ZoneInfo

    from grader.extensions import db
    from grader.models import Course

    room = full_room(app, factory)
    with app.app_context():
        db.session.get(Course, room.course_id).timezone = "Asia/Kolkata"
        db.session.commit()
    auth.login(TEACHER)
    course = f"/instructor/courses/{room.course_id}"
    done = client.post(
        f"{course}/archive", data={"csrf_token": auth.csrf()}, follow_redirects=True
    ).get_data(as_text=True)
    with app.app_context():
        archived = db.session.get(Course, room.course_id).archived_at
    purge = (archived + dt.timedelta(days=app.config["GRADER_RETENTION_DAYS"])).replace(
        tzinfo=dt.UTC
    )
    there = purge.astimezone(ZoneInfo("Asia/Kolkata"))
    flash = done.split('class="flash info"', 1)[1].split("</p>", 1)[0]
    assert f"data is purged on {there:%a} {there.day} {there:%b %Y, %H:%M} IST" in flash, flash
    assert "(Asia/Kolkata)." in flash and "UTC" not in flash


def test_an_instructor_archives_the_course_and_its_attempts_are_refused_in_words(
    app, client, auth, factory
):
    from tests.instructor_support import wrong_prune

    room = full_room(app, factory)
    auth.login(TEACHER)
    course = f"/instructor/courses/{room.course_id}"
    assert "Archive the course…" in client.get(course).get_data(as_text=True)
    done = client.post(
        f"{course}/archive", data={"csrf_token": auth.csrf()}, follow_redirects=True
    ).get_data(as_text=True)
    assert "Search 101 is archived: read-only. Its students&#39; data is purged on" in done
    assert "Reopen the course" in done
    auth.logout()
    token = factory.token(ALICE)
    exercise = client.get(
        f"/api/assignments/{room.assignment_id}/slots/0/exercise", headers=bearer(token)
    ).get_json()
    refused = client.post(
        exercise["urls"]["attempts"], json={"answer": wrong_prune()}, headers=bearer(token)
    )
    assert refused.status_code == 409
    assert "archived on" in refused.get_json()["error"]
    assert "read-only and takes no new attempts or uploads" in refused.get_json()["error"]
    auth.login(TEACHER)
    reopened = client.post(
        f"{course}/archive",
        data={"reopen": "yes", "csrf_token": auth.csrf()},
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "Search 101 is open again" in reopened


def test_an_erasure_request_is_mailed_to_the_administrators(app, client, auth, factory):
    from tests.mail_support import smtp_sink

    full_room(app, factory)
    _admin(app, factory)
    _admin(app, factory, "second-admin@example.com")
    with smtp_sink() as smtp:
        app.config.update(
            GRADER_SMTP_HOST="127.0.0.1",
            GRADER_SMTP_PORT=smtp.server_address[1],
            GRADER_SMTP_STARTTLS=False,
        )
        auth.login(ALICE)
        asked = client.post(
            "/account/erasure",
            data={"ask_erasure": "y", "csrf_token": auth.csrf()},
            follow_redirects=True,
        ).get_data(as_text=True)
    assert "(2 e-mailed)" in asked
    assert sorted(to for recipients, _ in smtp.messages for to in recipients) == [
        "root@example.com",
        "second-admin@example.com",
    ]
    body = smtp.messages[0][1].get_content()
    assert "asked for its erasure" in body and "/admin/accounts" in body
    assert ALICE not in body  # the account's number, not its address, travels by mail
