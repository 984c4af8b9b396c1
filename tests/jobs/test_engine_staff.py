"""The staff's side of engine slots: every submission, rerun one or all (low priority), the
leaderboard, the gradebook, and a tournament played as queue jobs by a real worker."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import Submission, TournamentGame
from tests.app_support import csrf_from
from tests.jobs.engine_support import add_student, engine_bytes, wait_for


def sign_in(client, email: str) -> None:
    html = client.get("/login").get_data(as_text=True)
    response = client.post(
        "/login",
        data={"email": email, "password": "correct horse battery", "csrf_token": csrf_from(html)},
    )
    assert response.status_code == 302


def statuses(app) -> dict[int, tuple[str, int]]:
    with app.app_context():
        found = {s.id: (s.status, s.priority) for s in db.session.scalars(sa.select(Submission))}
        db.session.remove()
        return found


def test_staff_page_rerun_one_and_all(app, client, factory, room, upload):
    first = upload(engine_bytes("correct")).get_json()["id"]
    other = add_student(factory, room, "bob@example.com")
    second = upload(engine_bytes("wrong_eval"), headers=other).get_json()["id"]
    sign_in(client, "teacher@example.com")
    url = f"/instructor/assignments/{room.assignment_id}/slots/{room.slot_index}/engines"
    slot_page = client.get(f"/assignments/{room.assignment_id}/slots/{room.slot_index}/engine")
    assert url in slot_page.get_data(as_text=True)  # the staff's way in
    html = client.get(url).get_data(as_text=True)
    assert "student@example.com" in html and "bob@example.com" in html and "Rerun" in html
    token = csrf_from(html)
    with app.app_context():  # pretend both were graded
        db.session.execute(sa.update(Submission).values(status="done", score=1.0, max_score=5.0))
        db.session.commit()
        db.session.remove()
    assert (
        client.post(f"/instructor/engines/{first}/rerun", data={"csrf_token": token}).status_code
        == 302
    )
    assert statuses(app)[first] == ("queued", 0) and statuses(app)[second][0] == "done"
    response = client.post(f"{url}/rerun", data={"csrf_token": token}, follow_redirects=True)
    assert "2 latest submissions queued again at low priority" in response.get_data(as_text=True)
    assert statuses(app) == {first: ("queued", -10), second: ("queued", -10)}
    # Students and TAs cannot rerun.
    api = client.post(f"/api/engines/{first}/rerun", headers=room.student)
    assert api.status_code in (403, 404)


def test_student_cannot_open_the_staff_page(client, room):
    sign_in(client, "student@example.com")
    url = f"/instructor/assignments/{room.assignment_id}/slots/{room.slot_index}/engines"
    assert client.get(url).status_code == 403


@pytest.mark.slow
def test_leaderboard_and_tournament_through_a_real_worker(
    app, client, factory, room, upload, workers
):
    from grader.models import User
    from grader.services.engines import tournaments

    bob = add_student(factory, room, "bob@example.com")
    mine = upload(engine_bytes("correct"), tournament="1").get_json()["id"]
    his = upload(engine_bytes("wrong_eval"), headers=bob, tournament="1").get_json()["id"]
    workers.start(1)
    for submission_id, headers in ((mine, room.student), (his, bob)):
        wait_for(
            lambda s=submission_id, h=headers: (
                client.get(f"/api/engines/{s}", headers=h).get_json()["status"] == "done"
            ),
            90,
            "grading",
            workers,
        )
    board = client.get(
        f"/api/assignments/{room.assignment_id}/slots/{room.slot_index}/engines",
        headers=room.teacher,
    ).get_json()["leaderboard"]
    assert [row["user"] for row in board] == ["student@example.com", "bob@example.com"]
    assert board[0]["score"] > board[1]["score"]

    with app.app_context():
        teacher = db.session.scalar(sa.select(User).where(User.email == "teacher@example.com"))
        tournament = tournaments.start(teacher, room.assignment_id, room.slot_index, max_plies=16)
        tournament_id = tournament.id
        db.session.remove()

    def finished() -> bool:
        with app.app_context():
            left = db.session.scalar(
                sa.select(sa.func.count(TournamentGame.id)).where(
                    TournamentGame.tournament_id == tournament_id, TournamentGame.status != "done"
                )
            )
            db.session.remove()
            return left == 0

    wait_for(finished, 120, "the tournament's games", workers)
    sign_in(client, "teacher@example.com")
    html = client.get(f"/instructor/tournaments/{tournament_id}").get_data(as_text=True)
    assert "Crosstable" in html and "bob@example.com" in html and "2 of 2 games played" in html
    with app.app_context():
        teacher = db.session.scalar(sa.select(User).where(User.email == "teacher@example.com"))
        found, table = tournaments.standings(teacher, tournament_id)
        assert found.status == "done"
        db.session.remove()
    assert sorted(s.user for s in table) == ["bob@example.com", "student@example.com"]
    assert sum(s.points for s in table) == 2.0 and all(s.games == 2 for s in table)
