"""The one runner of the leased jobs (services/leases/runner.py), on a real lease: a print run
whose body the test writes, everything else the print kind's own (its claim, give-back and
record). A body that raises gives the job back and wakes it again; a slow body that reports
nothing keeps its lease by the heartbeat alone; a body whose lease was taken back writes nothing.
"""

from __future__ import annotations

import datetime as dt
import itertools
import time
from collections.abc import Callable
from typing import Any

import pytest

from grader import jobs
from grader.extensions import EXAM, db
from grader.models import DONE, FAILED, QUEUED, RUNNING, ExamPrint, utcnow
from grader.services.leases import runner
from grader.services.paper import printing
from grader.services.transactions import writing

Body = Callable[[int, runner.Progress], tuple[bytes, int]]


class TestPrint(printing.PrintJob):
    """The print kind with the test's body in place of making and rendering the sheets."""

    __test__ = False

    def __init__(self, body: Body) -> None:
        self.body = body

    def run(self, claimed: int, progress: runner.Progress) -> tuple[bytes, int]:
        return self.body(claimed, progress)


@pytest.fixture
def print_id(app: Any, factory: Any) -> int:
    assignment_id = factory.classroom()["assignment_id"]
    with app.app_context(), writing() as session:
        run = ExamPrint(assignment_id=assignment_id, anonymous=2, status=QUEUED)
        session.add(run)
        session.flush()
        return run.id


def _row(print_id: int) -> ExamPrint:
    db.session.rollback()  # read afresh: a transaction left open would keep its snapshot
    return db.session.get_one(ExamPrint, print_id)


def _waiting(app: Any) -> list[tuple[str, tuple[int, ...]]]:
    huey = jobs.queue(app, jobs.queue_of(app, EXAM))
    return [(m.name, m.args) for m in (huey.dequeue() for _ in range(huey.pending_count()))]


def test_a_body_that_raises_is_given_back_and_woken_until_its_claims_run_out(
    app: Any, print_id: int
) -> None:
    def body(claimed: int, progress: runner.Progress) -> tuple[bytes, int]:
        raise RuntimeError("the renderer broke")

    with app.app_context():
        jobs.queue(app, jobs.queue_of(app, EXAM)).flush()
        outcomes = [runner.run(TestPrint(body), print_id, "w") for _ in range(4)]
        row = _row(print_id)
        waiting = _waiting(app)
    assert outcomes == [
        "internal error, queued",
        "internal error, queued",
        "internal error, failed",
        "not claimed",
    ]
    assert (row.status, row.attempts, row.lease_owner) == (
        FAILED,
        printing.MAX_PRINT_ATTEMPTS,
        None,
    )
    assert row.error == "RuntimeError: the renderer broke" and row.result_sha256 is None
    assert waiting == [(EXAM, (print_id,)), (EXAM, (print_id,))]  # woken after each give-back


def test_a_slow_body_that_reports_nothing_keeps_its_lease_by_the_heartbeat(
    app: Any, print_id: int
) -> None:
    """The body outlives the lease it was claimed with, many times over, without a word of
    progress. The heartbeat alone renews the lease; a sweep at any moment after a lease it
    renewed had expired (its worker presumed dead then, had no renewal come) finds the run
    alive, and its result is recorded.

    The sweeps are told the moment rather than read the clock: on a loaded machine the
    heartbeat thread may run late, and a sweep at the real time would then take back a lease
    its worker was about to renew, which is the sweep's job and not what this test asks."""
    app.config["GRADER_LEASE_SECONDS"] = 0.4  # renewed every 0.1 s
    expiries: list[dt.datetime] = []
    swept: list[list[int]] = []

    def body(claimed: int, progress: runner.Progress) -> tuple[bytes, int]:
        first_expiry = _row(claimed).lease_expires_at
        assert first_expiry is not None
        expiries.append(first_expiry)
        for _ in range(1200):  # the work: until the first lease is long past (a minute at most)
            expiry = _row(claimed).lease_expires_at
            assert expiry is not None and expiry >= expiries[-1]
            if expiry > expiries[-1]:
                expiries.append(expiry)
            if expiries[-1] > first_expiry + dt.timedelta(seconds=1.2):
                break
            time.sleep(0.05)
        for expired, renewed in itertools.pairwise(expiries):
            swept.append(printing.sweep_prints(expired + (renewed - expired) / 2))
            assert _row(claimed).status == RUNNING
        return b"the archive", 2

    with app.app_context():
        outcome = runner.run(TestPrint(body), print_id, "w")
        row = _row(print_id)
    assert outcome == "done"
    assert (row.status, row.attempts, row.lease_owner) == (DONE, 1, None)
    assert row.result_sha256 is not None and row.progress == {
        "phase": "done",
        "done": 2,
        "total": 2,
    }
    assert expiries[-1] > expiries[0] + dt.timedelta(seconds=1.2)  # renewed past the first
    assert len(swept) >= 3 and not any(swept)  # swept after each renewed lease, never taken back


def test_a_body_whose_lease_was_taken_back_writes_nothing(app: Any, print_id: int) -> None:
    """The sweep took the run back (its worker presumed dead) while the body ran: the result
    is dropped, and the run waits, queued, for a worker to claim it again."""

    def body(claimed: int, progress: runner.Progress) -> tuple[bytes, int]:
        progress({"phase": "render", "done": 1, "total": 2})
        printing.sweep_prints(utcnow() + dt.timedelta(hours=1))
        return b"the archive", 2

    with app.app_context():
        outcome = runner.run(TestPrint(body), print_id, "w")
        row = _row(print_id)
    assert outcome == "lease lost"
    assert (row.status, row.lease_owner, row.result_sha256, row.finished_at) == (
        QUEUED,
        None,
        None,
        None,
    )
