"""Chance exercises through the JSON API: made on a typed expectimax tree with its leaf bounds,
answered with a fraction, a rounded decimal and a half, graded by the answer rule, the key and
the replay's trace in JSON (fractions as their exact text). The values are worked by hand:
B = 1/3·4 + 2/3·5 = 14/3, C = 1/2·0 + 1/2·9 = 9/2, A = max(14/3, 9/2) = 14/3."""

from __future__ import annotations

import pytest

from tests.app_support import bearer

TREE = [
    {"chance": ["1/3", "2/3"], "children": [4, 5]},
    {"chance": ["1/2", "1/2"], "children": [0, 9]},
]


@pytest.fixture
def student(factory):
    factory.classroom()
    return bearer(factory.token("student@example.com"))


def _exercise(client, student, kind: str) -> dict:
    response = client.post(
        "/api/exercises",
        headers=student,
        json={
            "kind": kind,
            "tree": TREE,
            "players": ["max", "chance"],
            "conventions": {"bounds": [0, 10]},
        },
    )
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_a_chance_exercise_is_graded_by_the_answer_rule(client, student):
    exercise = _exercise(client, student, "values")
    assert "A chance node (a circle) takes the weighted average" in exercise["conventions_text"]
    assert (
        "write a fraction (14/3) or its decimal rounded to 2 places" in exercise["conventions_text"]
    )
    url = exercise["urls"]["attempts"]
    right = client.post(
        url, headers=student, json={"answer": {"values": {"": "14/3", "0": 4.67, "1": 4.5}}}
    )
    assert right.status_code == 201, right.get_json()
    graded = right.get_json()
    assert graded["score"] == 1.0
    assert graded["solution"]["key"] == {"values": {"": "14/3", "0": "14/3", "1": "9/2"}}
    stored = client.get(f"/api/attempts/{graded['attempt_id']}", headers=student).get_json()
    weigh = [s for s in stored["solution"]["search"]["trace"] if s["kind"] == "weigh"]
    assert [(s["child"], s["value"], s["sum"], s["mass"]) for s in weigh[:2]] == [
        ("0.0", "4/3", "4/3", "1/3"),
        ("0.1", "10/3", "14/3", "1"),
    ]
    wrong = client.post(
        url, headers=student, json={"answer": {"values": {"": 4.7, "0": 4.666, "1": "9/2"}}}
    )
    assert wrong.status_code == 201 and wrong.get_json()["score"] == 0.5


def test_bounds_and_best_order_refuse_a_chance_tree_with_the_reason(client, student):
    for kind, why in (
        ("bounds", "alpha and beta below a chance node are Star1's windows"),
        ("best-order", "the ordering optimum searches MAX and MIN nodes only"),
    ):
        response = client.post(
            "/api/exercises",
            headers=student,
            json={"kind": kind, "tree": TREE, "players": ["max", "chance"]},
        )
        assert response.status_code == 422, response.get_json()  # well formed; no such exercise
        assert why in response.get_json()["error"], response.get_json()
