"""The queue on the app: services enqueue through `grader.extensions.job_queue`, which
`grader.jobs.init_app` (called by create_app) binds to the app's Huey."""

from __future__ import annotations

import pytest
from flask import Flask

from grader import jobs as job_bodies
from grader.extensions import BULK, EXAM, GAME, GRADE, INTEGRITY, PASSBACK, job_queue


def test_a_job_enqueued_by_name_reaches_the_apps_queue(app) -> None:
    with app.app_context():
        huey = job_bodies.queue(app)
        huey.flush()
        job_queue.enqueue(GRADE, 41, priority=5)
        job_queue.enqueue(GAME, 42)
        job_queue.enqueue(PASSBACK, 1, 2)
        messages = [huey.dequeue() for _ in range(huey.pending_count())]
    assert sorted((m.name, m.args) for m in messages) == sorted(
        [(GRADE, (41,)), (GAME, (42,)), (PASSBACK, (1, 2))]
    )
    assert {m.name: m.priority for m in messages}[GRADE] == 5


def test_bulk_jobs_go_to_their_own_queue(app) -> None:
    """Prints and integrity checks wait in the bulk queue, never before an upload; the same
    storage (here the SQLite file) holds both queues under their own names."""
    with app.app_context():
        interactive, bulk = job_bodies.queue(app), job_bodies.queue(app, BULK)
        interactive.flush()
        bulk.flush()
        job_queue.enqueue(EXAM, 1)
        job_queue.enqueue(INTEGRITY, 2, priority=-20)
        job_queue.enqueue(GRADE, 3)
        waiting = {
            name: [(m.name, m.args) for m in (huey.dequeue() for _ in range(huey.pending_count()))]
            for name, huey in (("interactive", interactive), ("bulk", bulk))
        }
    assert waiting == {
        "interactive": [(GRADE, (3,))],
        "bulk": [(EXAM, (1,)), (INTEGRITY, (2,))],
    }
    assert interactive.storage.filename == bulk.storage.filename
    assert interactive.name != bulk.name


def test_an_app_without_the_queue_refuses_to_enqueue() -> None:
    bare = Flask(__name__)
    with bare.app_context(), pytest.raises(RuntimeError, match="no job queue"):
        job_queue.enqueue(GRADE, 1)


def test_an_unknown_job_is_refused(app) -> None:
    with app.app_context(), pytest.raises(KeyError):
        job_queue.enqueue("mine_bitcoin", 1)


def test_a_wake_up_is_sent_and_recorded_or_left_to_the_sweep_and_logged(app, caplog) -> None:
    """`wake`: sent, then `woken()`; a queue that cannot be reached (here, no queue on the app)
    is logged with what was not sent, and nothing is recorded: the sweep sends it again."""
    recorded = []
    with app.app_context():
        huey = job_bodies.queue(app)
        huey.flush()
        sent = job_queue.wake(
            GRADE, 7, priority=3, what="submission 7", woken=lambda: recorded.append(7)
        )
        (message,) = [huey.dequeue() for _ in range(huey.pending_count())]
    assert sent and recorded == [7] and (message.name, message.args) == (GRADE, (7,))
    bare = Flask(__name__)
    with bare.app_context(), caplog.at_level("ERROR", logger="grader.extensions"):
        sent = job_queue.wake(GAME, 8, what="game 8", woken=lambda: recorded.append(8))
    assert not sent and recorded == [7]
    assert [r.getMessage() for r in caplog.records] == ["could not enqueue game 8"]
