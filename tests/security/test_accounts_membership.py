"""A student removed from a course no longer reads or answers their graded exercise: every
exercise and attempt route (API and pages) checks the membership, not only the assignment.
Their practice exercises stay theirs; their stored attempts stay for the gradebook."""

from __future__ import annotations

import pytest

from grader.services.courses import invites, roster
from tests.app_support import attempt_count
from tests.instructor_support import ALICE, TEACHER, answer, make_room, user, wrong_prune


@pytest.fixture
def removed(app, factory, client):
    """Alice answered once, then her instructor removed her; she keeps an API token."""
    room = make_room(app, factory)
    attempt = answer(app, ALICE, room.assignment_id, 0, wrong_prune())
    token = factory.token(ALICE)
    headers = {"Authorization": f"Bearer {token}"}
    exercise_id = attempt.exercise_id
    practice = client.post(
        "/api/exercises", json={"kind": "prune", "tree": [[1, 2], [3, 4]]}, headers=headers
    ).get_json()["id"]
    # Before: all of it is hers.
    assert client.get(f"/api/exercises/{exercise_id}", headers=headers).status_code == 200
    with app.app_context():
        roster.remove_member(user(TEACHER), room.course_id, user(ALICE).id)
    return {
        "room": room,
        "headers": headers,
        "exercise_id": exercise_id,
        "attempt_id": attempt.id,
        "practice_id": practice,
    }


def test_the_api_refuses_the_graded_exercise_and_its_attempts(client, app, removed):
    headers, exercise_id = removed["headers"], removed["exercise_id"]
    assert client.get(f"/api/exercises/{exercise_id}", headers=headers).status_code == 404
    submitted = client.post(
        f"/api/exercises/{exercise_id}/attempts",
        headers=headers,
        json={"answer": {"pruned": ["2.1", "2.2"], "value": 3}},
    )
    assert submitted.status_code == 404
    assert client.get(f"/api/attempts/{removed['attempt_id']}", headers=headers).status_code == 404
    listed = client.get(f"/api/attempts?exercise_id={exercise_id}", headers=headers)
    assert listed.status_code == 200 and listed.get_json()["attempts"] == []
    slot = f"/api/assignments/{removed['room'].assignment_id}/slots/0/exercise"
    assert client.get(slot, headers=headers).status_code == 404
    with app.app_context():  # nothing was stored, the old attempt was kept
        assert attempt_count() == 1


def test_the_pages_refuse_it_too(client, auth, removed):
    auth.login(ALICE)
    assert client.get(f"/exercises/{removed['exercise_id']}").status_code == 404
    room = removed["room"]
    assert client.get(f"/assignments/{room.assignment_id}/slots/0").status_code == 404
    assert f'/exercises/{removed["exercise_id"]}"' not in client.get("/attempts").get_data(
        as_text=True
    )


def test_practice_stays_hers_and_readding_brings_the_work_back(client, app, removed):
    headers = removed["headers"]
    assert (
        client.get(f"/api/exercises/{removed['practice_id']}", headers=headers).status_code == 200
    )
    with app.app_context():
        roster.add_member(user(TEACHER), removed["room"].course_id, ALICE)
        invites.accept_as(user(ALICE), removed["room"].course_id)  # back once she accepts
    assert (
        client.get(f"/api/exercises/{removed['exercise_id']}", headers=headers).status_code == 200
    )
    assert client.get(f"/api/attempts/{removed['attempt_id']}", headers=headers).status_code == 200


def test_an_engine_submission_is_closed_to_a_removed_student_too(client, app, factory):
    from grader.services.engines import submissions

    room = make_room(app, factory)
    headers = {"Authorization": f"Bearer {factory.token(ALICE)}"}
    with app.app_context():
        slot = submissions.add_engine_slot(room.assignment_id)
        submission = submissions.upload(
            user(ALICE),
            room.assignment_id,
            slot.index,
            b"def choose_move(fen, ms):\n    return None\n",
            "engine.py",
        )
    assert client.get(f"/api/engines/{submission.id}", headers=headers).status_code == 200
    with app.app_context():
        roster.remove_member(user(TEACHER), room.course_id, user(ALICE).id)
    assert client.get(f"/api/engines/{submission.id}", headers=headers).status_code == 404
    listed = client.get(
        f"/api/assignments/{room.assignment_id}/slots/{slot.index}/engines", headers=headers
    )
    assert listed.status_code == 404
