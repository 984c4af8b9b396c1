"""Tournament games run under the same lease as submissions (services/engines/leases.py): claimed,
renewed by a heartbeat while played, swept back to the queue when their worker is killed with
SIGKILL, and written once."""

from __future__ import annotations

import datetime as dt
import os
import signal
import time

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import Submission, Tournament, TournamentGame, User, utcnow
from tests.jobs.engine_support import add_student, engine_bytes, wait_for


def games(app, tournament_id: int) -> list[TournamentGame]:
    with app.app_context():
        found = list(
            db.session.scalars(
                sa.select(TournamentGame)
                .where(TournamentGame.tournament_id == tournament_id)
                .order_by(TournamentGame.id)
            )
        )
        db.session.remove()
        return found


def graded_pair(app, client, factory, room, upload, workers=None) -> tuple[int, int]:
    """Two students' correct engines, opted in and graded (by a worker, or marked done)."""
    bob = add_student(factory, room, "bob@example.com")
    mine = upload(engine_bytes("correct"), tournament="1").get_json()["id"]
    his = upload(engine_bytes("correct"), headers=bob, tournament="1").get_json()["id"]
    if workers is None:
        with app.app_context():
            db.session.execute(
                sa.update(Submission).values(status="done", score=1.0, max_score=1.0)
            )
            db.session.commit()
    else:
        for submission_id, headers in ((mine, room.student), (his, bob)):
            wait_for(
                lambda s=submission_id, h=headers: (
                    client.get(f"/api/engines/{s}", headers=h).get_json()["status"] == "done"
                ),
                90,
                "grading",
                workers,
            )
    return mine, his


def start_tournament(app, room, **params) -> int:
    from grader.services.engines import tournaments

    with app.app_context():
        teacher = db.session.scalar(sa.select(User).where(User.email == "teacher@example.com"))
        tournament_id = tournaments.start(teacher, room.assignment_id, room.slot_index, **params).id
        db.session.remove()
    return tournament_id


def test_game_leases_claim_renew_sweep_and_write_once(app, client, factory, room, upload):
    from grader.services.engines import leases

    graded_pair(app, client, factory, room, upload)
    tournament_id = start_tournament(app, room, max_plies=8)
    first, second = (g.id for g in games(app, tournament_id))
    assert all(g.enqueued_at is not None for g in games(app, tournament_id))  # messages sent
    later = utcnow() + dt.timedelta(seconds=60)
    with app.app_context():
        claimed = leases.claim_game(first, "w1")
        assert claimed is not None and claimed.attempts == 1
        assert all(p.read_bytes() == engine_bytes("correct") for p in claimed.engine_files())
        assert leases.claim_game(first, "w2") is None  # running: nobody else takes it
        assert leases.heartbeat_game(first, "w1") and not leases.heartbeat_game(first, "w2")
        assert leases.sweep_games(utcnow()) == []  # a live lease is left alone
        assert first in leases.sweep_games(later)  # its worker died: back to the queue
        assert (
            leases.write_game(first, "w1", result="1-0", termination="x", pdn="") is False
        )  # the dead worker writes nothing
        assert leases.claim_game(second, "w9") is not None
        assert (
            leases.write_game(second, "w9", result="1-0", termination="win", pdn="1. 11-15 *")
            is True
        )
        assert (
            leases.write_game(second, "w9", result="0-1", termination="win", pdn="") is False
        )  # once
        for attempt in (2, 3):
            assert leases.claim_game(first, f"w{attempt}").attempts == attempt
            leases.sweep_games(later)
        tournament = db.session.get(Tournament, tournament_id)
        db.session.refresh(tournament)
        # The third death failed the first game, the last one left: the tournament is over.
        assert tournament.status == "done" and tournament.finished_at is not None
        db.session.remove()
    failed, done = games(app, tournament_id)
    assert failed.status == "failed" and failed.attempts == 3
    assert done.status == "done" and done.result == "1-0" and done.lease_owner is None


@pytest.mark.slow
def test_a_game_survives_its_worker_killed_with_sigkill(
    app, client, factory, room, upload, workers
):
    graded_pair(app, client, factory, room, upload)
    # Up to a fifth of a second a move (the engine's third of its time) for 40 plies: each game
    # outlasts the heartbeat's second and the kill that follows it.
    tournament_id = start_tournament(app, room, max_plies=40, time_per_move=0.6)
    first = workers.start(1)

    def running() -> TournamentGame | None:
        return next((g for g in games(app, tournament_id) if g.status == "running"), None)

    game = wait_for(running, 60, "a game to be running", workers)
    expiry = game.lease_expires_at
    renewed = wait_for(
        lambda: (g := running()) and g.id == game.id and g.lease_expires_at > expiry and g,
        10,
        "the heartbeat",
        workers,
    )
    assert renewed.heartbeat_at > game.heartbeat_at
    os.kill(first.pid, signal.SIGKILL)  # the consumer; its worker process dies with it
    first.wait(timeout=10)
    time.sleep(1.0)
    held = next(g for g in games(app, tournament_id) if g.id == game.id)
    assert held.status == "running" and held.pdn is None  # the lease holds for a while
    workers.start(1)  # its sweep requeues the game once the dead worker's lease expires
    wait_for(
        lambda: all(g.status == "done" for g in games(app, tournament_id)),
        180,
        "every game to be played",
        workers,
    )
    played = {g.id: g for g in games(app, tournament_id)}
    assert played[game.id].attempts == 2 and played[game.id].pdn
    assert played[game.id].lease_owner is None and played[game.id].result in (
        "1-0",
        "0-1",
        "1/2-1/2",
        "*",
    )  # "*": stopped at max_plies
    assert not played[game.id].termination.startswith("internal error")
    assert "requeued 1 games whose worker stopped" in workers.log_text()
    with app.app_context():
        assert db.session.get(Tournament, tournament_id).status == "done"
        db.session.remove()
