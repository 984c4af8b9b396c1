"""Server-rendered pages: dashboard, the exercise page's contract with its script, practice."""

from __future__ import annotations

import json
import re

import pytest


@pytest.fixture
def signed_in(factory, auth):
    room = factory.classroom()
    auth.login()
    return room


def _data_attributes(html: str) -> dict[str, str]:
    root = re.search(r'<div id="exercise-root"([^>]*)>', html, re.S).group(1)
    return dict(re.findall(r'data-([\w-]+)="([^"]*)"', root))


def _embedded(html: str) -> dict:
    return json.loads(re.search(
        r'<script type="application/json" id="exercise-data">(.*?)</script>', html, re.S).group(1))


def test_dashboard_lists_courses_and_assignments(client, signed_in):
    html = client.get("/dashboard").get_data(as_text=True)
    assert "Search 101" in html and "Alpha-beta pruning" in html
    assert f"/assignments/{signed_in['assignment_id']}/slots/0" in html
    assert client.get(f"/assignments/{signed_in['assignment_id']}").status_code == 200


def test_exercise_page_gives_its_script_what_it_needs(client, signed_in):
    response = client.get(f"/assignments/{signed_in['assignment_id']}/slots/0")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    data = _data_attributes(html)
    assert data["kind"] == "prune" and data["is-owner"] == "true"
    assert data["attempts-url"] == f"/api/exercises/{data['exercise-id']}/attempts"
    assert data["csrf-token"]
    assert '<script type="module" src="/static/exercise.js">' in html
    exercise = _embedded(html)
    assert exercise["id"] == int(data["exercise-id"]) and "solution" not in exercise
    # The page's own token is accepted by the API, as the script sends it.
    answer = {"pruned": [], "value": 0}
    posted = client.post(data["attempts-url"], json={"answer": answer},
                         headers={"X-CSRFToken": data["csrf-token"]})
    assert posted.status_code == 201
    with client.get("/static/exercise.js") as script:
        assert script.status_code == 200


def test_new_variant_button(client, auth, signed_in):
    response = client.post(f"/assignments/{signed_in['assignment_id']}/slots/0/variants",
                           data={"csrf_token": auth.csrf()})
    assert response.status_code == 302
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "practice variant 1" in page


def test_another_students_exercise_page_is_404(client, factory, auth, signed_in):
    url = f"/assignments/{signed_in['assignment_id']}/slots/0"
    exercise_id = _data_attributes(client.get(url).get_data(as_text=True))["exercise-id"]
    auth.logout()
    factory.user("other@example.com")
    auth.login("other@example.com")
    assert client.get(f"/exercises/{exercise_id}").status_code == 404
    assert client.get(url).status_code == 404  # not in the course


@pytest.mark.parametrize("fields, tree", [
    ({"source": "leaves", "leaves": "3,12,8,2,4,6,14,5,2", "leaf_branching": "3",
      "leaf_depth": "2"}, [[3, 12, 8], [2, 4, 6], [14, 5, 2]]),
    ({"source": "nested", "nested": "[[1, 2], [3, 4]]"}, [[1, 2], [3, 4]]),
    ({"source": "generate", "depth": "2", "branching": "2", "values": "0..9",
      "min_cutoffs": "0"}, None),
])
def test_practice_form_makes_an_exercise(client, auth, signed_in, fields, tree):
    form = {"kind": "prune", "ties": "prune", "values_rule": "soft", "order": "ltr",
            "players": "max,min", "csrf_token": auth.csrf(), **fields}
    response = client.post("/practice", data=form)
    assert response.status_code == 302, response.get_data(as_text=True)
    exercise = _embedded(client.get(response.headers["Location"]).get_data(as_text=True))
    assert exercise["practice"] and exercise["assignment_id"] is None
    if tree is not None:
        assert exercise["tree"] == tree


def test_practice_form_reports_a_bad_tree(client, auth, signed_in):
    response = client.post("/practice", data={
        "kind": "prune", "source": "nested", "nested": "[[1, 2], [3,", "ties": "prune",
        "values_rule": "soft", "order": "ltr", "csrf_token": auth.csrf()})
    assert response.status_code == 400
    assert "not valid" in response.get_data(as_text=True)


def test_attempts_page(client, signed_in, auth):
    data = _data_attributes(client.get(
        f"/assignments/{signed_in['assignment_id']}/slots/0").get_data(as_text=True))
    client.post(data["attempts-url"], json={"answer": {"pruned": [], "value": 0}},
                headers={"X-CSRFToken": data["csrf-token"]})
    html = client.get("/attempts").get_data(as_text=True)
    assert "student@example.com" in html and f"#{data['exercise-id']}" in html
