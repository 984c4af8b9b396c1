"""Practice exercises cannot be made without limit (issue 36 §6): one student made 303 of 54 KB
in 30 s. New ones are rate-limited per account (`GRADER_PRACTICE_LIMIT`, every try counts), the
stored ones have a quota (`GRADER_PRACTICE_QUOTA`), each refusal names its limit and stores
nothing, and the worker's sweep deletes those never answered once they are old."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa

from grader import jobs
from grader.extensions import db
from grader.models import Exercise
from tests.app_support import bearer

TYPED = {"kind": "values", "tree": [[1, 2], [3, 4]]}


def practice_slot(client, classroom, student_headers) -> str:
    """The URL that makes a further practice variant of a slot that allows them."""
    assignment = client.get(
        f"/api/assignments/{classroom['assignment_id']}", headers=student_headers
    )
    for slot in assignment.get_json()["slots"]:
        made = client.get(slot["urls"]["exercise"], headers=student_headers).get_json()
        if "new_variant" in made.get("urls", {}):
            return made["urls"]["new_variant"]
    pytest.skip("the classroom's assignment has no slot with practice variants")


def stored(app) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count(Exercise.id)))


def test_new_practice_exercises_past_the_accounts_rate_are_429_naming_the_limit(
    app, client, classroom, student_headers, factory
):
    variant_url = practice_slot(client, classroom, student_headers)
    app.config["GRADER_PRACTICE_LIMIT"] = "3 per minute"
    before = stored(app)
    for _ in range(2):
        assert client.post("/api/exercises", headers=student_headers, json=TYPED).status_code == 201
    assert (
        client.post(variant_url, headers=student_headers).status_code == 201
    )  # a slot's variant counts
    for refused in (
        client.post("/api/exercises", headers=student_headers, json=TYPED),
        client.post(variant_url, headers=student_headers),
    ):
        assert refused.status_code == 429, refused.get_json()
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        assert "at most 3 per minute" in refused.get_json()["error"]
    assert stored(app) == before + 3
    # The account's own limit: another student goes on.
    factory.user("other@example.com")
    other = bearer(factory.token("other@example.com"))
    assert client.post("/api/exercises", headers=other, json=TYPED).status_code == 201


def test_practice_exercises_past_the_accounts_quota_are_409_naming_it(
    app, client, student_headers, auth
):
    app.config["GRADER_PRACTICE_QUOTA"] = 3
    for _ in range(3):
        assert client.post("/api/exercises", headers=student_headers, json=TYPED).status_code == 201
    before = stored(app)
    refused = client.post("/api/exercises", headers=student_headers, json=TYPED)
    assert refused.status_code == 409, refused.get_json()
    assert (
        "you have 3 practice exercises stored; one account may keep at most 3"
        in (refused.get_json()["error"])
    )
    # The practice page says the same, and a game's tree is held to the same quota.
    auth.login()
    page = client.post(
        "/practice/game",
        data={
            "csrf_token": auth.csrf(),
            "kind": "minimax",
            "game": "tic-tac-toe",
            "depth": "2",
            "branching": "2",
            "ties": "prune",
        },
    )
    assert "one account may keep at most 3" in page.get_data(as_text=True)
    assert stored(app) == before


def test_the_sweep_deletes_old_practice_exercises_never_answered(
    app, client, classroom, student_headers, monkeypatch
):
    graded = client.get(
        client.get(
            f"/api/assignments/{classroom['assignment_id']}", headers=student_headers
        ).get_json()["slots"][0]["urls"]["exercise"],
        headers=student_headers,
    ).get_json()
    answered, abandoned, recent = (
        client.post("/api/exercises", headers=student_headers, json=TYPED).get_json()
        for _ in range(3)
    )
    response = client.post(
        answered["urls"]["attempts"], headers=student_headers, json={"answer": {"values": {"": 3}}}
    )
    assert response.status_code == 201, response.get_json()
    app.config["GRADER_PRACTICE_ABANDONED_DAYS"] = 7
    old = dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(days=8)
    with app.app_context():
        db.session.execute(
            sa.update(Exercise)
            .where(Exercise.id.in_([graded["id"], answered["id"], abandoned["id"]]))
            .values(created_at=old)
        )
        db.session.commit()
    # This process's sweep has not looked yet (another test's may have).
    monkeypatch.setattr(jobs, "_next_prune", {}, raising=False)
    jobs.sweep_once(app)
    with app.app_context():
        left = set(db.session.scalars(sa.select(Exercise.id)))
    assert abandoned["id"] not in left
    assert {graded["id"], answered["id"], recent["id"]} <= left
