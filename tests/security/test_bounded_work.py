"""Bounded work per request: each attack that held a worker for seconds is a prompt 400 with a
reason and stores nothing (issue 10). Work is bounded by counts and budgets the server checks
before or while it works; the tests assert the refusals and their reasons, never wall time."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.gametree import KINDS, Conventions, Tree
from grader.models import Exercise

IMPOSSIBLE = {"depth": 4, "branching": "8-8", "min_cutoffs": 100000, "max_tries": 100000}


@pytest.fixture
def student(factory):
    factory.user("student@example.com")
    return {"Authorization": f"Bearer {factory.token('student@example.com')}"}


def exercises_in_db(app) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count(Exercise.id)))


def test_impossible_generator_constraints_are_refused_by_the_tries_cap(client, app, student):
    response = client.post(
        "/api/exercises", headers=student, json={"kind": "prune", "params": IMPOSSIBLE}
    )
    assert response.status_code == 400  # the document states max_tries' bound
    assert response.get_json()["error"] == (
        "body: params.max_tries: Input should be less than or equal to 10000"
    )
    assert exercises_in_db(app) == 0


def test_impossible_constraints_within_the_cap_stop_at_the_time_budget(client, app, student):
    app.config["GRADER_GENERATOR_SECONDS"] = 0.05
    response = client.post(
        "/api/exercises",
        headers=student,
        json={"kind": "prune", "params": {**IMPOSSIBLE, "max_tries": 10000}},
    )
    assert response.status_code == 422
    assert "within the time allowed" in response.get_json()["error"]
    assert exercises_in_db(app) == 0


@pytest.mark.parametrize(
    ("params", "status", "words"),
    [
        # a tree no seed can give (depth 1: nothing to prune, so no-pruning changes nothing):
        # generation stops at its budget, tries or time
        (
            {"depth": 1, "expose": "no-pruning", "expose_alone": True, "max_tries": 10000},
            422,
            "no tree met the constraints",
        ),
        ({"expose_alone": True}, 422, "expose_alone needs expose"),
        ({"expose": "no-pruning", "expose_alone": "yes"}, 400, "params.expose_alone"),
    ],
)
def test_expose_alone_hostile_is_refused_and_stores_nothing(
    client, app, student, params, status, words
):
    app.config["GRADER_GENERATOR_SECONDS"] = 0.05
    response = client.post(
        "/api/exercises", headers=student, json={"kind": "prune", "params": params}
    )
    assert response.status_code == status, response.get_json()
    assert words in response.get_json()["error"]
    assert exercises_in_db(app) == 0


def test_the_practice_form_has_the_same_time_budget(client, app, auth, factory):
    factory.user("student@example.com")
    auth.login()
    app.config["GRADER_GENERATOR_SECONDS"] = 0.05
    token = auth.csrf()
    # One maximizer at every level never cuts: 2000 tries of 4096 leaves without the budget.
    response = client.post(
        "/practice",
        data={
            "csrf_token": token,
            "kind": "prune",
            "source": "generate",
            "depth": "4",
            "branching": "8-8",
            "values": "-9..9",
            "players": "max",
            "min_cutoffs": "1",
            "ties": "prune",
            "values_rule": "soft",
            "order": "ltr",
        },
    )
    assert response.status_code == 400
    assert "within the time allowed" in response.get_data(as_text=True)
    assert exercises_in_db(app) == 0


def _square(children: int) -> list:
    return [[(i * 7 + j * 13) % 199 - 99 for j in range(children)] for i in range(children)]


def test_a_best_order_tree_within_the_old_limits_is_refused_by_its_estimate(client, app, student):
    # 196 leaves, 14 children a node: inside the 400-leaf / 14-children limits, about 21 s of
    # CPU per attempt before the estimate of the dynamic program's size.
    response = client.post(
        "/api/exercises", headers=student, json={"kind": "best-order", "tree": _square(14)}
    )
    assert response.status_code == 422
    assert "too much work" in response.get_json()["error"]
    response = client.post(
        "/api/exercises",
        headers=student,
        json={
            "kind": "best-order",
            "params": {"depth": 3, "branching": "7-7", "values": "-99..99"},
        },
    )
    assert response.status_code == 422
    assert "too much work" in response.get_json()["error"]
    assert exercises_in_db(app) == 0
    # What the estimate lets through is graded as before.
    response = client.post(
        "/api/exercises", headers=student, json={"kind": "best-order", "tree": _square(6)}
    )
    assert response.status_code == 201


def _chains(chains: int, length: int) -> list:
    def chain(n: int, leaf: int) -> object:
        return leaf if n == 0 else [chain(n - 1, leaf)]

    return [chain(length, i) for i in range(chains)]


def test_a_tree_of_long_chains_is_refused(client, app, student):
    tree = _chains(1000, 26)  # about 60 KB of brackets: 27,000 nodes, 26 deep
    assert 50 * 1024 < len(json.dumps(tree)) < 64 * 1024
    response = client.post("/api/exercises", headers=student, json={"kind": "prune", "tree": tree})
    assert response.status_code == 422
    assert "at most 1024 leaves and 2048 nodes" in response.get_json()["error"]
    deep = _chains(2, 20)  # few nodes, too deep
    response = client.post("/api/exercises", headers=student, json={"kind": "prune", "tree": deep})
    assert response.status_code == 422 and "levels" in response.get_json()["error"]
    deeper = _chains(60, 60)  # deeper than any JSON body may nest
    response = client.post(
        "/api/exercises", headers=student, json={"kind": "prune", "tree": deeper}
    )
    assert response.status_code == 400 and "nested" in response.get_json()["error"]
    assert exercises_in_db(app) == 0


def test_the_largest_tree_accepted_gives_a_bounded_response(client, student):
    """2048 nodes at most, 16 levels at most: the attempt with its solution and trace stays
    small (15 MB of JSON before the caps)."""
    tree = _chains(128, 15)  # 128 chains of 15 single children: 2,049 nodes is one too many
    response = client.post("/api/exercises", headers=student, json={"kind": "values", "tree": tree})
    assert response.status_code == 422
    tree = _chains(127, 15)  # 2,033 nodes, 16 levels: accepted
    response = client.post("/api/exercises", headers=student, json={"kind": "values", "tree": tree})
    assert response.status_code == 201, response.get_json()
    exercise = response.get_json()
    built = Tree.from_nested(exercise["tree"])
    key = KINDS["values"].key(built, Conventions())
    attempt = client.post(exercise["urls"]["attempts"], headers=student, json={"answer": key})
    assert attempt.status_code == 201
    print(f"largest accepted attempt response: {len(attempt.data):,} bytes")
    assert len(attempt.data) < 2 * 1024 * 1024


def test_an_answer_bigger_than_its_tree_is_refused(client, app, student):
    exercise = client.post(
        "/api/exercises", headers=student, json={"kind": "prune", "tree": [[3, 12, 8], [2, 4, 6]]}
    ).get_json()
    response = client.post(
        exercise["urls"]["attempts"],
        headers=student,
        json={"answer": {"pruned": ["0"] * 20, "value": 3}},
    )
    assert response.status_code == 422
    assert "more paths than the tree has nodes" in response.get_json()["error"]


def test_costly_requests_past_the_slots_are_503_at_once(client, app, student):
    """Another worker holds the only costly-work permit: a costly request is refused with
    Retry-After instead of waiting; a cheap one goes through."""
    import fcntl
    import os
    from pathlib import Path

    lock = os.open(Path(app.instance_path) / "costly-0.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # as a request in another gunicorn worker would
        response = client.post(
            "/api/exercises",
            headers=student,
            json={"kind": "prune", "params": {"depth": 4, "branching": "4-4", "min_cutoffs": 3}},
        )
        assert response.status_code == 503 and response.headers["Retry-After"] == "1"
        assert "busy" in response.get_json()["error"]
        assert exercises_in_db(app) == 0
        cheap = client.post(
            "/api/exercises",
            headers=student,
            json={"kind": "prune", "params": {"depth": 2, "branching": "2-3", "min_cutoffs": 1}},
        )
        assert cheap.status_code == 201
    finally:
        os.close(lock)
    response = client.post(
        "/api/exercises",
        headers=student,
        json={"kind": "prune", "params": {"depth": 4, "branching": "4-4", "min_cutoffs": 3}},
    )
    assert response.status_code == 201
