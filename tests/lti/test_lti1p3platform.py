"""The whole loop against an LMS no one here wrote: `lti1p3platform` 0.1.8 (PyPI, a test
dependency), served on loopback (tests/lti/lti1p3platform_support.py adds the Flask adapter and
the gradebook the package leaves to its user). An instructor's deep linking into a blank LMS
course (the assignment made from a preset and placed in one submit), a student's launch of the
placed link, an attempt, and the score at the LMS's AGS line item through its token endpoint."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests

from grader import jobs
from tests.app_support import csrf_from
from tests.lti.lti1p3platform_support import INSTRUCTOR, LEARNER, LMS, Pending, ServedLMS
from tests.lti.lti_platform import form_fields
from tests.lti.test_lms_setup import answer_first_slot, assignments, preset_slots

TOOL = "http://localhost"


@pytest.fixture
def lms(app: Any, client: Any) -> Iterator[LMS]:
    from grader.services import lti

    served = ServedLMS(LMS(tool=TOOL, tool_jwks=client.get("/lti/jwks").get_json()))
    lms = served.lms
    with app.app_context():  # the administrator registers the LMS
        lti.register(
            None,
            issuer=lms.issuer,
            client_id=lms.client_id,
            auth_login_url=f"{lms.base}/auth",
            auth_token_url=f"{lms.base}/token",
            key_set_url=f"{lms.base}/jwks",
            deployment_ids=[lms.deployment_id],
        )
    jobs.queue(app).immediate = True  # each job runs once committed, in place of a worker
    try:
        yield lms
    finally:
        served.close()


def _tool_path(url: str) -> str:
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}" == TOOL, url
    return parts.path + ("?" + parts.query if parts.query else "")


def launch(lms: LMS, client: Any, pending: Pending) -> Any:
    """The browser's part: the LMS's start page, the tool's login, the LMS's auth endpoint and
    its auto-posted form; the tool's answer to that POST."""
    start = requests.get(lms.start(pending), allow_redirects=False, timeout=10)
    assert start.status_code == 302, start.text
    login = client.get(_tool_path(start.headers["Location"]))  # the OIDC login initiation
    assert login.status_code == 302, login.get_data(as_text=True)
    auth = requests.get(login.headers["Location"], timeout=10)
    assert auth.status_code == 200, auth.text
    fields = form_fields(auth.text)
    assert set(fields) == {"id_token", "state"}
    return client.post("/lti/launch", data=fields)


def test_the_whole_loop_against_lti1p3platform(lms, app):
    teacher = app.test_client()
    picked = launch(lms, teacher, Pending("teacher", [INSTRUCTOR], deep_linking=True))
    assert picked.status_code == 302, picked.get_data(as_text=True)
    url = picked.headers["Location"]
    html = teacher.get(url).get_data(as_text=True)
    assert "Set up this course from a preset" in html
    due = (dt.datetime.now(dt.UTC) + dt.timedelta(days=3)).strftime("%Y-%m-%dT%H:%M")
    reply = teacher.post(
        url + "/new",
        data={"csrf_token": csrf_from(html), "preset": "intro", "title": "Week 1", "due_at": due},
    )
    assert reply.status_code == 200
    fields = form_fields(reply.get_data(as_text=True))
    # The LMS checks the tool's signed reply with the package (its signature by the tool's
    # key, its message type, its content item types) and makes the line item it asks for.
    answer = requests.post(f"{lms.base}/deep_link_return", data=fields, timeout=10)
    assert answer.status_code == 200, answer.text
    [(assignment_id, title, preset, _)] = assignments(app)
    assert (title, preset) == ("Week 1", "intro")
    [item] = lms.placed
    assert item["type"] == "ltiResourceLink" and item["url"] == f"{TOOL}/lti/launch"
    assert item["custom"] == {"assignment_id": str(assignment_id), "slot": ""}
    [lineitem] = lms.lineitems.values()
    assert lineitem["scoreMaximum"] == len(preset_slots(app, "intro"))

    student = app.test_client()
    opened = launch(
        lms,
        student,
        Pending("alice", [LEARNER], resource_link=item["_resource_link_id"], custom=item["custom"]),
    )
    assert opened.headers["Location"].endswith(f"/assignments/{assignment_id}")
    assert answer_first_slot(app, "alice", assignment_id) == 1.0
    [score] = lms.scores[lineitem["id"]]
    assert score["userId"] == "alice" and score["scoreGiven"] == 1.0
    assert score["scoreMaximum"] == len(preset_slots(app, "intro"))
    assert score["gradingProgress"] == "FullyGraded"
    assert lms.tokens_issued >= 1  # through the package's token endpoint


def test_the_lms_refuses_a_reply_another_key_signed(lms, app):
    """The package's check is real: the same reply, the tool's keys replaced, is refused."""
    from tests.lti.lti_platform import new_key, public_jwk

    teacher = app.test_client()
    url = launch(lms, teacher, Pending("teacher", [INSTRUCTOR], deep_linking=True)).headers[
        "Location"
    ]
    html = teacher.get(url).get_data(as_text=True)
    reply = teacher.post(
        url + "/new", data={"csrf_token": csrf_from(html), "preset": "intro", "title": "W"}
    )
    fields = form_fields(reply.get_data(as_text=True))
    kid = lms.tool_jwks["keys"][0]["kid"]
    lms.tool_jwks = {"keys": [public_jwk(new_key(), kid)]}
    refused = requests.post(f"{lms.base}/deep_link_return", data=fields, timeout=10)
    assert refused.status_code == 400 and lms.placed == []
    assert "Signature verification failed" in refused.text
