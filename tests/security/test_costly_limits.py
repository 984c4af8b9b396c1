"""Costly work per account (issue 10): past `GRADER_COSTLY_LIMIT` an account's costly requests
are a 429 with Retry-After before any of the work, with nothing stored; cheap requests and other
accounts go on. Status codes and headers only, never wall time."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import Attempt, Exercise

COSTLY = {"kind": "prune", "params": {"depth": 4, "branching": "4-4", "min_cutoffs": 3}}
CHEAP = {"kind": "prune", "params": {"depth": 2, "branching": "2-3", "min_cutoffs": 1}}


@pytest.fixture
def limited(app):
    app.config["GRADER_COSTLY_LIMIT"] = "2 per minute"
    return app


def bearer(factory, email: str) -> dict[str, str]:
    factory.user(email)
    return {"Authorization": f"Bearer {factory.token(email)}"}


def count(app, model) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count(model.id)))


def test_costly_generation_past_the_accounts_limit_is_429_with_retry_after(
    client, limited, factory
):
    student = bearer(factory, "student@example.com")
    for _ in range(2):
        assert client.post("/api/exercises", headers=student, json=COSTLY).status_code == 201
    response = client.post("/api/exercises", headers=student, json=COSTLY)
    assert response.status_code == 429
    assert 1 <= int(response.headers["Retry-After"]) <= 60
    assert "too many costly requests" in response.get_json()["error"]
    assert count(limited, Exercise) == 2  # nothing stored for the refused one
    # Cheap work is not counted, and the limit is the account's own.
    assert client.post("/api/exercises", headers=student, json=CHEAP).status_code == 201
    other = bearer(factory, "other@example.com")
    assert client.post("/api/exercises", headers=other, json=COSTLY).status_code == 201


def test_grading_a_large_tree_past_the_limit_is_429_and_stores_no_attempt(client, limited, factory):
    student = bearer(factory, "student@example.com")
    tree = [[[i * 8 + j for j in range(8)] for i in range(8)] for _ in range(8)]  # 585 nodes
    exercise = client.post(
        "/api/exercises", headers=student, json={"kind": "values", "tree": tree}
    ).get_json()
    answer = {"answer": {"values": {"": 1}}}
    for _ in range(2):
        assert (
            client.post(exercise["urls"]["attempts"], headers=student, json=answer).status_code
            == 201
        )
    response = client.post(exercise["urls"]["attempts"], headers=student, json=answer)
    assert response.status_code == 429 and int(response.headers["Retry-After"]) >= 1
    assert count(limited, Attempt) == 2


def test_a_request_refused_as_busy_does_not_use_the_accounts_share(client, limited, factory, app):
    student = bearer(factory, "student@example.com")
    lock = os.open(Path(app.instance_path) / "costly-0.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker holds the only slot
        for _ in range(3):
            response = client.post("/api/exercises", headers=student, json=COSTLY)
            assert response.status_code == 503 and response.headers["Retry-After"] == "1"
    finally:
        os.close(lock)
    for _ in range(2):
        assert client.post("/api/exercises", headers=student, json=COSTLY).status_code == 201
    assert client.post("/api/exercises", headers=student, json=COSTLY).status_code == 429


def test_the_practice_form_is_limited_too(client, limited, auth, factory):
    factory.user("student@example.com")
    auth.login()
    form = {
        "kind": "prune",
        "source": "generate",
        "depth": "4",
        "branching": "4-4",
        "values": "-9..9",
        "players": "max,min",
        "min_cutoffs": "3",
        "ties": "prune",
        "values_rule": "soft",
        "order": "ltr",
    }
    responses = [
        client.post("/practice", data={**form, "csrf_token": auth.csrf()}) for _ in range(3)
    ]
    assert [r.status_code for r in responses] == [302, 302, 429]
    assert int(responses[2].headers["Retry-After"]) >= 1
    assert count(limited, Exercise) == 2
