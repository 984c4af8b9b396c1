"""The integrity checks run by real `grader worker` processes: a check asked for on the page is
woken, claimed, run with its progress written and its result stored once; a check whose worker
died is swept back to the queue and finished by another."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from grader.extensions import db
from grader.models import IntegrityCheck, User, utcnow
from tests.app_support import csrf_from
from tests.jobs.engine_support import add_student, engine_bytes, wait_for
from tests.services.integrity_support import DISGUISES

TEACHER = "teacher@example.com"


def _check(app, check_id: int) -> IntegrityCheck:
    with app.app_context():
        found = db.session.get_one(IntegrityCheck, check_id)
        db.session.remove()
        return found


def _latest(app) -> int:
    with app.app_context():
        found = db.session.scalar(sa.select(sa.func.max(IntegrityCheck.id)))
        db.session.remove()
        return found


def _two_engines(factory, room, upload) -> None:
    bob = add_student(factory, room, "bob@example.com")
    upload(engine_bytes("correct"))
    upload(DISGUISES["renamed"](engine_bytes("correct").decode()).encode(), headers=bob)


def test_a_check_asked_for_on_the_page_is_run_by_a_worker(
    app, client, auth, factory, room, upload, workers
):
    _two_engines(factory, room, upload)
    auth.login(TEACHER)
    page = f"/instructor/assignments/{room.assignment_id}/slots/{room.slot_index}/similarity"
    token = csrf_from(client.get(page).get_data(as_text=True))
    assert client.post(page, data={"csrf_token": token}).status_code == 302
    check_id = _latest(app)
    assert _check(app, check_id).status == "queued"
    workers.start()
    done = wait_for(
        lambda: _check(app, check_id).status in ("done", "failed"), 120, "the check", workers
    )
    assert done
    found = _check(app, check_id)
    assert found.status == "done", found.error
    assert found.attempts == 1 and found.lease_owner is None
    assert found.progress == {"phase": "done"} and found.finished_at is not None
    with app.app_context():
        emails = dict(db.session.execute(sa.select(User.id, User.email)).all())
        owners = dict(db.session.execute(sa.text("SELECT id, owner_id FROM submission")).all())
    (pair,) = found.result["pairs"]
    assert {emails[owners[pair["a"]]], emails[owners[pair["b"]]]} == {
        "student@example.com",
        "bob@example.com",
    }
    assert pair["similarity"] > 0.9
    status = client.get(page + "/status").get_json()
    assert status["status"] == "done" and status["done"] is True


def test_a_check_whose_worker_died_is_swept_back_and_finished(app, factory, room, upload, workers):
    from grader.services import accounts
    from grader.services.integrity import answers
    from grader.services.transactions import writing

    _two_engines(factory, room, upload)
    with app.app_context():
        check = answers.request_check(
            accounts.user_by_email(TEACHER), room.assignment_id, wake=False
        )
        with writing() as session:  # claimed by a worker that then died: its lease ran out
            session.execute(
                sa.update(IntegrityCheck)
                .where(IntegrityCheck.id == check.id)
                .values(
                    status="running",
                    attempts=1,
                    lease_owner="dead-host:1:x",
                    lease_expires_at=utcnow() - dt.timedelta(seconds=30),
                )
            )
    workers.start()
    wait_for(lambda: _check(app, check.id).status == "done", 120, "the swept check", workers)
    found = _check(app, check.id)
    assert found.attempts == 2 and found.result["flags"] == []
    assert "requeued 1 checks whose worker stopped" in workers.log_text()
