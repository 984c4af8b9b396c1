"""Hostile chance trees and fractions through the API (issue 25's inputs): probabilities and
fractions too long to be exact cheaply, probabilities that do not sum to 1, and a deep tree whose
every chance level has its own 18-digit denominators, whose exact values must stay bounded."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import Exercise
from tests.app_support import attempt_count, bearer

# Four chance levels, each with its own large denominator (18 digits, the most a probability
# may have), under MAX levels: 2**8 = 256 leaves.
DENOMINATORS = [
    999_999_999_999_999_989,
    999_999_999_999_999_877,
    999_999_999_999_999_863,
    999_999_999_999_999_829,
]


def _deep(level: int = 0, path: int = 1) -> object:
    if level == 8:
        return path * 7 % 11  # leaf values 0..10, varied
    children = [_deep(level + 1, 2 * path), _deep(level + 1, 2 * path + 1)]
    if level % 2 == 0:
        return children
    q = DENOMINATORS[level // 2]
    return {"chance": [f"1/{q}", f"{q - 1}/{q}"], "children": children}


@pytest.fixture
def student(factory):
    factory.classroom()
    return bearer(factory.token("student@example.com"))


def _stored(app) -> tuple[int, int]:
    with app.app_context():
        return (
            db.session.scalar(sa.select(sa.func.count(Exercise.id))),
            attempt_count(),
        )


def _make(client, student, tree, players=("max", "chance")):
    return client.post(
        "/api/exercises",
        headers=student,
        json={
            "kind": "values",
            "tree": tree,
            "players": list(players),
            "conventions": {"bounds": [0, 10]},
        },
    )


@pytest.mark.parametrize(
    "chance",
    [
        ["1/" + "3" * 19, "2/3"],  # a denominator past 18 digits
        ["1/3", "1/3"],  # sums to 2/3
        ["1/2", "1/2", "0"],  # a child with no chance
        ["0.5", "0.5000000000000000001"],  # a decimal past 18 places
    ],
)
def test_a_chance_node_with_hostile_probabilities_is_refused_and_stores_nothing(
    app, client, student, chance
):
    before = _stored(app)
    response = _make(
        client,
        student,
        [{"chance": chance, "children": list(range(4, 4 + len(chance)))}, 3],
    )
    assert response.status_code in (400, 422), response.get_json()
    assert "probabilit" in response.get_json()["error"]
    assert _stored(app) == before


@pytest.mark.parametrize("value", ["1" * 31 + "/3", "1/" + "3" * 31, "1/0", "14/3/2"])
def test_a_fraction_answer_too_long_or_no_fraction_is_refused_and_uses_no_attempt(
    app, client, student, value
):
    made = _make(client, student, [{"chance": ["1/3", "2/3"], "children": [4, 5]}, 3])
    assert made.status_code == 201, made.get_json()
    before = _stored(app)
    response = client.post(
        made.get_json()["urls"]["attempts"],
        headers=student,
        json={"answer": {"values": {"": value, "0": value}}},
    )
    assert response.status_code in (400, 422), response.get_json()
    assert "a fraction such as 14/3" in response.get_json()["error"]
    assert _stored(app) == before


def test_a_deep_tree_of_large_denominators_keeps_its_exact_values_bounded(app, client, student):
    made = _make(client, student, _deep(), ("max", "chance") * 4)
    assert made.status_code == 201, made.get_json()
    answered = client.post(
        made.get_json()["urls"]["attempts"], headers=student, json={"answer": {"values": {"": 1}}}
    )
    assert answered.status_code == 201, answered.get_json()
    key = answered.get_json()["solution"]["key"]["values"]
    # A value's denominator divides the product of the chance levels' below it: at most 4 x 18
    # digits, however the sums combine (no growth from one sibling to the next).
    bound = 4 * 18 + 1
    assert max(len(str(v).partition("/")[2]) for v in key.values()) > 18  # exact, not rounded
    for text in map(str, key.values()):
        numerator, _, denominator = text.partition("/")
        assert len(numerator.lstrip("-")) <= bound and len(denominator) <= bound, text
