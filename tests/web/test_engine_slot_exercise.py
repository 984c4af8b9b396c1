"""An engine slot holds no exercise: asking the API for its exercise (or a practice variant) is a
404 whose words point to the engine routes, never the generator's internal refusal."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("method, tail", [("get", "exercise"), ("post", "variants")])
def test_an_engine_slot_has_no_exercise(client, app, factory, method, tail) -> None:
    from grader.services import submissions

    room = factory.classroom()
    with app.app_context():
        index = submissions.add_engine_slot(room["assignment_id"], suite="quick").index
    headers = {"Authorization": f"Bearer {factory.token('student@example.com')}"}
    url = f"/api/assignments/{room['assignment_id']}/slots/{index}/{tail}"
    response = getattr(client, method)(url, headers=headers)
    assert response.status_code == 404
    error = response.get_json()["error"]
    assert "engine slot" in error and "/api/engines" in error
    assert "generator" not in error and "suite" not in error
    # the exercise slots beside it still give theirs
    assert (
        client.get(
            f"/api/assignments/{room['assignment_id']}/slots/0/exercise", headers=headers
        ).status_code
        == 200
    )
