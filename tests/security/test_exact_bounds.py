"""Exact values have a declared size (issue 36 §7): a practice chance tree whose 511 chance nodes
each had their own 18-digit prime denominators had values past Python's 4,300-digit limit on
int-to-text: its page answered 500 every time, and an attempt 422 with the internal error's text.
The tree reader refuses a tree whose values could pass `MAX_EXACT_DIGITS`, and an exercise stored
before the bound was declared is a clear refusal on every route, never a 500 or an exception's
text."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.gametree.tree import MAX_EXACT_DIGITS
from grader.models import Exercise, User
from tests.app_support import bearer

LEVELS = 9  # 511 chance nodes, 512 leaves


def _is_prime(n: int) -> bool:
    """Miller-Rabin with the first 12 primes as witnesses: exact below 3.3 * 10**24."""
    witnesses = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
    if n in witnesses:
        return True
    if n < 2 or any(n % p == 0 for p in witnesses):
        return False
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in witnesses:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _primes(count: int) -> list[int]:
    found, n = [], 10**18 - 1
    while len(found) < count:
        if _is_prime(n):
            found.append(n)
        n -= 2
    return found


def hostile_tree() -> object:
    """Every chance node with its own 18-digit prime denominator: the root's exact value has a
    denominator of about 511 x 18 digits."""
    primes = iter(_primes(2**LEVELS - 1))

    def node(level: int, path: int) -> object:
        if level == LEVELS:
            return path % 11
        q = next(primes)
        return {
            "chance": [f"1/{q}", f"{q - 1}/{q}"],
            "children": [node(level + 1, 2 * path), node(level + 1, 2 * path + 1)],
        }

    return node(0, 1)


HOSTILE = [hostile_tree()]  # under a MAX root: the API's tree is a list
INTERNAL = ("Exceeds the limit", "int_max_str_digits", "Traceback", "ValueError")


@pytest.fixture
def student(factory):
    factory.classroom()
    return bearer(factory.token("student@example.com"))


def _exercises(app) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count(Exercise.id)))


def test_a_tree_whose_exact_values_pass_the_bound_is_refused_when_read(app, client, student):
    before = _exercises(app)
    response = client.post(
        "/api/exercises",
        headers=student,
        json={"kind": "values", "tree": HOSTILE, "players": ["max", "chance"]},
    )
    assert response.status_code == 422, response.get_json()
    error = response.get_json()["error"]
    assert f"could take more than {MAX_EXACT_DIGITS} digits to write" in error
    assert not any(text in error for text in INTERNAL), error
    assert _exercises(app) == before


def test_a_stored_tree_past_the_bound_is_refused_clearly_on_every_route(app, client, student, auth):
    # As a server without the bound stored it.
    with app.app_context():
        owner = db.session.scalar(sa.select(User).where(User.email == "student@example.com"))
        exercise = Exercise(
            owner_id=owner.id,
            kind="values",
            tree=HOSTILE,
            players=["max", "chance"],
            conventions={},
            node_count=2 * 2**LEVELS,
            dp_size=None,
        )
        db.session.add(exercise)
        db.session.commit()
        exercise_id = exercise.id
    answers = [
        client.get(f"/api/exercises/{exercise_id}", headers=student),
        client.post(
            f"/api/exercises/{exercise_id}/attempts",
            headers=student,
            json={"answer": {"values": {"": 1}}},
        ),
    ]
    auth.login()
    answers.append(client.get(f"/exercises/{exercise_id}"))
    for response in answers:
        assert response.status_code < 500, (response.request.path, response.status_code)
        text = response.get_data(as_text=True)
        assert not any(internal in text for internal in INTERNAL), text[:500]
    assert [r.status_code for r in answers] == [409, 409, 409]
    assert all(f"more than {MAX_EXACT_DIGITS} digits" in r.get_data(as_text=True) for r in answers)


@pytest.mark.parametrize("uniform", [False, True])
def test_the_generator_declares_the_size_of_its_chance_trees_values(uniform):
    from grader.gametree.generator import ChanceParams, chance_exact_digits, generate_chance

    params = ChanceParams(
        depth=6, branching=(2, 4), players=("chance",), bounds=(-1000, 1000), uniform=uniform
    )
    declared = chance_exact_digits(params)
    assert declared <= MAX_EXACT_DIGITS
    for seed in range(3):
        assert generate_chance(params, seed).exact_digits() <= declared
