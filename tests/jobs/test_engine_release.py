"""An engine upload while its assignment holds scores: graded on arrival, its owner reads that it
was graded and when the score is released (the page, the API, results.json refused), the staff
read everything at once, and at release the owner reads it all."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from grader.extensions import db
from grader.models import Assignment, utcnow
from tests.jobs.engine_support import TIMING_RICH, engine_bytes


def _graded_while_held(app, room, upload) -> int:
    from grader.services.engines import leases

    with app.app_context():
        db.session.execute(
            sa.update(Assignment)
            .where(Assignment.id == room.assignment_id)
            .values(hold_scores=True, scores_release_at=utcnow() + dt.timedelta(days=2))
        )
        db.session.commit()
    sent = upload(engine_bytes("correct"))
    assert sent.status_code == 201
    assert sent.get_json()["held_words"].startswith("Submitted; your score is released on ")
    submission_id = sent.get_json()["id"]
    with app.app_context():
        assert leases.claim_submission(submission_id, "w1") is not None
        assert leases.write_result(
            submission_id,
            "w1",
            score=3.0,
            max_score=5.0,
            gradescope={"score": 3.0},
            rich=TIMING_RICH,
        )
    return submission_id


def test_a_held_uploads_score_is_hidden_from_its_owner_alone_until_release(
    app, client, auth, room, upload
):
    submission_id = _graded_while_held(app, room, upload)

    # The owner, by the API: graded, and when the score is released; no score, no results.
    mine = client.get(f"/api/engines/{submission_id}", headers=room.student).get_json()
    assert mine["status"] == "done"
    assert mine["score"] is None and mine["max_score"] is None
    assert mine["results"] is None and mine["summary"] is None
    assert mine["held_words"].startswith("Submitted; your score is released on ")
    assert mine["released_at"].endswith("+00:00")
    assert "results_json" not in mine["urls"] and "rich_json" not in mine["urls"]
    for part in ("results.json", "rich.json"):
        refused = client.get(f"/api/engines/{submission_id}/{part}", headers=room.student)
        assert refused.status_code == 403
        assert "your score is released on" in refused.get_json()["error"]
        assert "3.0" not in refused.get_data(as_text=True)
    game = client.get(f"/api/engines/{submission_id}/games/0", headers=room.student)
    assert game.status_code == 403  # held: not "no such game", which would say how many

    # The owner's page: the words, no results section, no timing chart.
    auth.login()
    page = client.get(f"/engines/{submission_id}").get_data(as_text=True)
    assert "Submitted; your score is released on " in page
    assert 'data-role="results"' not in page and "<svg" not in page
    assert client.get(f"/engines/{submission_id}/timing").status_code == 403

    # The staff see everything at once.
    staff = client.get(f"/api/engines/{submission_id}", headers=room.teacher).get_json()
    assert staff["score"] == 3.0 and staff["max_score"] == 5.0
    assert staff["summary"] is not None and staff["held_words"] is None
    staff_results = client.get(f"/api/engines/{submission_id}/results.json", headers=room.teacher)
    assert staff_results.status_code == 200 and staff_results.get_json() == {"score": 3.0}

    # At release the owner reads it all.
    with app.app_context():
        db.session.execute(
            sa.update(Assignment)
            .where(Assignment.id == room.assignment_id)
            .values(scores_release_at=utcnow() - dt.timedelta(seconds=1))
        )
        db.session.commit()
    mine = client.get(f"/api/engines/{submission_id}", headers=room.student).get_json()
    assert mine["score"] == 3.0 and mine["held_words"] is None and mine["released_at"] is None
    assert mine["results"] == {"score": 3.0} and "results_json" in mine["urls"]
    shown = client.get(f"/api/engines/{submission_id}/results.json", headers=room.student)
    assert shown.status_code == 200 and shown.get_json() == {"score": 3.0}
    page = client.get(f"/engines/{submission_id}").get_data(as_text=True)
    assert 'data-role="results"' in page and "<svg" in page
    assert "your score is released on" not in page
