"""LTI grade passback through a real `grader worker`: an engine's result reaches the LMS's line
item (the LTI 1.3 platform of tests/lti, on loopback), on SQLite and, in `make test-backends`,
on PostgreSQL and Redis; and two transactions marking the same score at once both succeed."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import LtiContext, LtiPassback, LtiResourceLink, LtiUser, Slot, User
from grader.services import lti
from grader.services.transactions import writing
from tests.jobs.engine_support import engine_bytes, wait_for
from tests.lti.lti_platform import SCOPES, Platform, Served
from tests.lti.lti_support import register_platform


@pytest.fixture
def lms(app, client, room):
    """The room's engine slot placed in an LMS course whose student is the room's student."""

    served = Served(Platform())
    platform = served.platform
    platform.tool_jwks = client.get("/lti/jwks").get_json()
    with app.app_context():
        reg = register_platform(platform)
        student = db.session.scalar(sa.select(User).where(User.email == "student@example.com"))
        slot = db.session.scalar(
            sa.select(Slot).where(
                Slot.assignment_id == room.assignment_id, Slot.index == room.slot_index
            )
        )
        item = platform.add_lineitem("Checkers engine", 1.0, resource_link_id="link-engine")
        with writing() as session:
            context = LtiContext(
                registration_id=reg.id,
                context_id=platform.context_id,
                course_id=room.course_id,
                deployment_id=platform.deployment_id,
                lineitems_url=f"{platform.base}/contexts/{platform.context_id}/lineitems",
                ags_scopes=SCOPES,
            )
            session.add(context)
            session.flush()
            session.add(
                LtiResourceLink(
                    context_id=context.id,
                    resource_link_id="link-engine",
                    assignment_id=room.assignment_id,
                    slot_id=slot.id,
                    lineitem_url=item["id"],
                )
            )
            session.add(LtiUser(registration_id=reg.id, sub="student-sub", user_id=student.id))
        ids = (student.id, slot.id)
        db.session.remove()
    try:
        yield platform, item, ids
    finally:
        served.close()


def sent_to_the_lms(app, lms) -> list[dict]:
    """The outbox sent for the `lms` fixture's student and slot: the scores its line item holds."""
    platform, item, (student_id, slot_id) = lms
    with app.app_context():
        lti.send_scores(student_id, slot_id)
        db.session.remove()
    return platform.scores[item["id"]]


def test_an_engine_result_reaches_the_lms_through_a_real_worker(app, lms, upload, workers):
    platform, item, _ = lms
    workers.start(1)
    upload(engine_bytes("correct"))
    scores = wait_for(lambda: platform.scores.get(item["id"]), 120, "the score at the LMS", workers)
    assert scores[-1]["userId"] == "student-sub"
    assert scores[-1]["scoreGiven"] == pytest.approx(1.0)  # every test of the suite passed
    assert scores[-1]["scoreMaximum"] == 1.0

    def delivered() -> bool:
        with app.app_context():
            left = db.session.scalar(sa.select(sa.func.count()).select_from(LtiPassback))
            db.session.remove()
            return left == 0

    wait_for(delivered, 30, "the mark to be deleted once delivered", workers)


def test_two_transactions_marking_the_same_score_both_succeed(app, lms):
    from grader.services import outbox

    _, _, pair = lms
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def mark() -> None:
        try:
            with app.app_context():
                start.wait(timeout=10)
                with writing() as session:
                    outbox.passback_after_commit(session, [pair])
                db.session.remove()
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=mark) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    with app.app_context():
        rows = list(db.session.scalars(sa.select(LtiPassback)))
        assert [(r.user_id, r.slot_id, r.failures) for r in rows] == [(*pair, 0)]
        db.session.remove()
