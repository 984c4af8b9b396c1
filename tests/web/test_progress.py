"""Adaptive practice on the real database: "Practise my weak spots", the progress page, what a
tree was meant to expose (after an answer) and the course's practice-progress view."""

from __future__ import annotations

import re

import pytest

from grader.gametree import KINDS, VARIANTS, Conventions, Tree
from grader.gametree.adaptive import MASTERY
from grader.gametree.generator import exposing
from grader.gametree.kinds import grade
from grader.services.trees.practice import STUCK
from tests.app_support import bearer, csrf_from


def _weak_spot(client) -> int:
    """One click on the practice page's button; the id of the exercise it made."""
    token = csrf_from(client.get("/practice").get_data(as_text=True))
    response = client.post("/practice/weak-spots", data={"csrf_token": token})
    assert response.status_code == 302, response.get_data(as_text=True)
    match = re.fullmatch(r"/exercises/(\d+)", response.headers["Location"])
    assert match, response.headers["Location"]
    return int(match.group(1))


def _answer(client, headers, exercise_id: int, like: str | None) -> dict:
    """Answers as a student holding misconception ``like`` would (the key when it is None or
    the tree does not expose it)."""
    data = client.get(f"/api/exercises/{exercise_id}", headers=headers).get_json()
    tree = Tree.from_dict({"tree": data["tree"], "players": data["players"]})
    conventions = Conventions.from_dict(data["conventions"])
    kind = KINDS[data["kind"]]
    answer = kind.key(tree, conventions)
    if like in exposing(tree, conventions, data["kind"]):
        variant = VARIANTS[like]
        wrong = kind.to_answer(kind.project(variant.run(tree, conventions), variant))
        # Where an earlier variant in the table gives the same answer, the grade would name that
        # one: such a tree cannot show this student's misconception, so they answer it right.
        if grade(data["kind"], tree, conventions, wrong).diagnosis == like:
            answer = wrong
    response = client.post(
        f"/api/exercises/{exercise_id}/attempts", headers=headers, json={"answer": answer}
    )
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def _stored_params(app, exercise_id: int) -> dict:
    from grader.extensions import db
    from grader.models import Exercise

    with app.app_context():
        return db.session.get(Exercise, exercise_id).params


def _status(html: str, code: str) -> str:
    match = re.search(rf'data-code="{code}" data-status="([^"]+)"', html)
    assert match, code
    return match.group(1)


def test_a_new_student_sees_nothing_seen_and_a_chart(client, auth, classroom):
    auth.login()
    html = client.get("/progress").get_data(as_text=True)
    assert "0 mastered, 0 practising, 9 not seen, from 0 answers" in html
    assert '<svg class="chart"' in html and "Your progress per misconception" in html
    assert all(_status(html, code) == "not seen" for code in VARIANTS)


def test_weak_spots_follow_a_shallow_cutoffs_student_until_mastered(
    app, client, auth, factory, classroom
):
    auth.login()
    headers = bearer(factory.token("student@example.com"))
    for _ in range(30):  # until a tree shows the misconception
        exercise_id = _weak_spot(client)
        if (
            _answer(client, headers, exercise_id, "shallow-cutoffs")["diagnosis"]
            == "shallow-cutoffs"
        ):
            break
    else:
        pytest.fail("no weak-spots tree in 30 showed shallow-cutoffs")
    html = client.get("/progress").get_data(as_text=True)
    assert _status(html, "shallow-cutoffs") == "practising"
    assert "matched it once" in html

    exercise_id = _weak_spot(client)  # still holds it: the next tree targets it, deep cutoffs
    params = _stored_params(app, exercise_id)
    assert params["expose"] == "shallow-cutoffs" and params["min_deep_cutoffs"] >= 1
    assert client.get(f"/api/exercises/{exercise_id}/aim").get_json() == {"aim": None}  # not yet
    assert (
        _answer(client, headers, exercise_id, "shallow-cutoffs")["diagnosis"] == "shallow-cutoffs"
    )
    aim = client.get(f"/api/exercises/{exercise_id}/aim").get_json()["aim"]
    assert "made to expose shallow-cutoffs" in aim

    for _ in range(MASTERY):  # learns
        exercise_id = _weak_spot(client)
        assert _stored_params(app, exercise_id)["expose"] == "shallow-cutoffs"
        assert _answer(client, headers, exercise_id, None)["score"] == 1.0
    html = client.get("/progress").get_data(as_text=True)
    assert _status(html, "shallow-cutoffs") == "mastered"
    assert _stored_params(app, _weak_spot(client))["expose"] != "shallow-cutoffs"


def test_the_aim_is_the_owners_only(client, auth, factory, classroom):
    factory.user("other@example.com")
    auth.login()
    exercise_id = _weak_spot(client)
    _answer(client, bearer(factory.token("student@example.com")), exercise_id, None)
    assert client.get(f"/api/exercises/{exercise_id}/aim").get_json()["aim"]
    auth.logout()
    auth.login("other@example.com")
    assert client.get(f"/api/exercises/{exercise_id}/aim").status_code == 404


def test_a_typed_practice_tree_has_no_aim(client, auth, factory, classroom):
    auth.login()
    headers = bearer(factory.token("student@example.com"))
    made = client.post(
        "/api/exercises", headers=headers, json={"kind": "prune", "tree": [[3, 5], [2, 9]]}
    ).get_json()
    _answer(client, headers, made["id"], None)
    assert client.get(f"/api/exercises/{made['id']}/aim").get_json() == {"aim": None}


def test_the_course_view_counts_holders_and_names_who_is_stuck(client, auth, factory, classroom):
    auth.login()
    headers = bearer(factory.token("student@example.com"))
    wrong = 0
    # Answered in the course (its first slot's practice variants): the course's staff read what
    # a student did in the course alone (tests/security/test_practice_history_scope.py).
    variants = f"/api/assignments/{classroom['assignment_id']}/slots/0/variants"
    for _ in range(60):
        exercise_id = client.post(variants, headers=headers).get_json()["id"]
        wrong += _answer(client, headers, exercise_id, "no-pruning")["diagnosis"] == "no-pruning"
        if wrong >= STUCK:
            break
    assert wrong >= STUCK
    auth.logout()
    course = classroom["course_id"]
    auth.login("student@example.com")
    assert client.get(f"/instructor/courses/{course}/progress").status_code == 403
    auth.logout()
    auth.login("teacher@example.com")
    html = client.get(f"/instructor/courses/{course}/progress").get_data(as_text=True)
    holding = re.search(
        r'data-code="no-pruning"><th scope="row">'
        r'<span class="code-words" title="no-pruning">No pruning</span></th><td>(\d+)</td>',
        html,
    )
    assert holding and holding.group(1) == "1"
    stuck = re.search(r'<ul data-role="stuck">(.*?)</ul>', html, re.S)
    assert stuck and "student@example.com" in stuck.group(1)
    assert 'title="no-pruning">No pruning</span>' in stuck.group(1)
    link = f"/instructor/courses/{course}/students/"
    assert link in stuck.group(1)
    student_page = re.search(rf'href="({link}\d+)"', stuck.group(1)).group(1)
    assert client.get(student_page).status_code == 200
    assert "Practice progress" in html and '<svg class="chart"' in html


def test_a_stranger_course_is_not_found(client, auth, factory, classroom):
    factory.user("outsider@example.com", "instructor")
    auth.login("outsider@example.com")
    assert client.get(f"/instructor/courses/{classroom['course_id']}/progress").status_code == 404
