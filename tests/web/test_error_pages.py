"""Every refusal a page meets is a page with words and a way back: its heading says what it is,
its text why, and a link leads to the page the person came from (or the dashboard). The 413 of a
20 MB upload too, with the limit it passed."""

from __future__ import annotations

import io
import re

import pytest

from tests.app_support import csrf_from
from tests.jobs.engine_support import post_multipart


@pytest.fixture
def signed_in(app, factory, auth):
    from grader.services.engines import submissions

    room = factory.classroom()
    with app.app_context():
        room["engine_slot"] = submissions.add_engine_slot(
            room["assignment_id"], suite="quick"
        ).index
    auth.login()
    return room


def _page_parts(html: str) -> tuple[str, str, str]:
    heading = re.search(r"<h1>(.*?)</h1>", html, re.S).group(1)
    message = re.search(r'<p data-role="error-message">(.*?)</p>', html, re.S).group(1)
    back = re.search(r'<a href="([^"]+)" data-role="back">Go back</a>', html).group(1)
    return re.sub(r"<[^>]+>", "", heading).strip(), message.strip(), back


def test_a_20_mb_upload_gets_a_page_with_the_limit_and_the_way_back(client, signed_in):
    slot = f"/assignments/{signed_in['assignment_id']}/slots/{signed_in['engine_slot']}/engine"
    token = csrf_from(client.get(slot).get_data(as_text=True))
    response = post_multipart(
        client,
        slot,
        {"csrf_token": token, "file": (io.BytesIO(b"#" * (20 << 20)), "engine.py")},
        {"Referer": f"http://localhost{slot}"},
    )
    assert response.status_code == 413
    heading, message, back = _page_parts(response.get_data(as_text=True))
    assert heading == "Too large (error 413)"
    assert re.search(r"takes at most \d+\.\d MB\. Nothing was stored", message), message
    assert "capacity limit" not in message
    assert back == f"http://localhost{slot}"


def test_a_too_long_answer_body_is_a_page_too(client, signed_in):
    # Past the app's own limit (64 kB) on a page's form: the limit in kB.
    response = client.post("/login", data={"email": "x" * 100_000})
    assert response.status_code == 413
    heading, message, back = _page_parts(response.get_data(as_text=True))
    assert heading == "Too large (error 413)"
    assert "at most 65 kB" in message
    assert back == "/dashboard"


def test_the_api_keeps_its_json(client, signed_in):
    response = client.post(
        "/api/exercises/1/attempts", data=b"x" * 100_000, content_type="application/json"
    )
    assert response.status_code == 413
    assert response.is_json


@pytest.mark.parametrize(
    ("path", "status", "heading"),
    [
        ("/exercises/999999", 404, "Not found (error 404)"),
        ("/no/such/page", 404, "Not found (error 404)"),
    ],
)
def test_refusals_have_words_and_a_way_back(client, signed_in, path, status, heading):
    response = client.get(path, headers={"Referer": "http://localhost/practice"})
    assert response.status_code == status
    got, message, back = _page_parts(response.get_data(as_text=True))
    assert got == heading and message
    assert back == "http://localhost/practice"


def test_the_way_back_never_leads_off_the_site(client, signed_in):
    response = client.get("/no/such/page", headers={"Referer": "https://evil.example/x"})
    assert _page_parts(response.get_data(as_text=True))[2] == "/dashboard"


def test_a_wrong_method_and_an_expired_form(client, signed_in):
    response = client.get("/logout")
    assert response.status_code == 405
    heading, message, _back = _page_parts(response.get_data(as_text=True))
    assert heading == "Not done that way (error 405)" and message
    response = client.post("/logout", data={"csrf_token": "stale"})
    assert response.status_code == 400
    heading, message, _back = _page_parts(response.get_data(as_text=True))
    assert heading == "The request was refused (error 400)"
    assert "CSRF" in message
