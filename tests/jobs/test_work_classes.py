"""Interactive work before bulk work, with real `grader worker` processes (issue 36 section 4,
issue 40): an upload asked for after a long exam print is graded while the print runs, and a
worker told its classes (`--classes`) takes only those. The order of the rows' own times
(claimed, finished) is what is compared, never a duration. `make test-backends` runs these on
PostgreSQL and Redis too, as all of tests/jobs."""

from __future__ import annotations

from typing import Any

import pytest

from grader.extensions import db
from grader.models import ExamPrint, Submission
from tests.jobs.engine_support import add_student, engine_bytes, wait_for

pytestmark = pytest.mark.slow

TEACHER = "teacher@example.com"


def row(app: Any, model: Any, row_id: int) -> Any:
    with app.app_context():
        found = db.session.get_one(model, row_id)
        db.session.remove()
        return found


def ask_print(app: Any, assignment_id: int, sheets: int) -> int:
    """An anonymous print of the room's `standard` assignment, queued as the page queues it."""
    from grader.services import accounts
    from grader.services.paper import printing

    with app.app_context():
        return printing.request_print(
            accounts.user_by_email(TEACHER), assignment_id, anonymous=sheets
        ).id


def test_an_upload_after_a_long_print_is_graded_while_the_print_runs(app, room, upload, workers):
    """One worker with its defaults (`--workers 1`, both classes): the print is claimed first,
    then an upload arrives; the upload is claimed while the print still runs. With one queue for
    both, the upload waited for the whole print (146 s for 100 sheets). Which of the two ends
    first depends on the machine (a quick suite and 12 sheets take alike), so the claim is what
    is compared."""
    print_id = ask_print(app, room.assignment_id, 12)
    workers.start(1)
    wait_for(lambda: row(app, ExamPrint, print_id).status == "running", 60, "the print", workers)
    submission_id = upload(engine_bytes("correct")).get_json()["id"]
    wait_for(
        lambda: row(app, Submission, submission_id).status in ("done", "failed"),
        120,
        "the upload's result",
        workers,
    )
    graded = row(app, Submission, submission_id)
    printing = row(app, ExamPrint, print_id)
    assert graded.status == "done", graded.error
    assert printing.started_at < graded.started_at  # the print was under way first
    assert printing.status in ("running", "done"), (printing.status, printing.error)
    assert printing.status == "running" or printing.finished_at > graded.started_at


def test_a_worker_serves_only_the_classes_it_is_told(app, factory, room, upload, workers):
    """`--classes interactive` grades an upload asked for after a print and leaves the print
    queued, never claimed; `--classes bulk` prints it and leaves an upload queued."""
    print_id = ask_print(app, room.assignment_id, 1)
    first = upload(engine_bytes("correct")).get_json()["id"]
    interactive = workers.start(1, classes="interactive")
    wait_for(
        lambda: row(app, Submission, first).status in ("done", "failed"),
        120,
        "the upload's result",
        workers,
    )
    assert row(app, Submission, first).status == "done"
    waiting = row(app, ExamPrint, print_id)
    assert (waiting.status, waiting.attempts) == ("queued", 0)
    interactive.terminate()
    interactive.wait(timeout=30)

    bob = add_student(factory, room, "bob@example.com")
    second = upload(engine_bytes("correct"), headers=bob).get_json()["id"]
    workers.start(1, classes="bulk")
    wait_for(
        lambda: row(app, ExamPrint, print_id).status in ("done", "failed"),
        180,
        "the print",
        workers,
    )
    assert row(app, ExamPrint, print_id).status == "done"
    left = row(app, Submission, second)
    assert (left.status, left.attempts) == ("queued", 0)


def test_an_unknown_class_is_refused(app, runner):
    done = runner.invoke(args=["worker", "--classes", "interactive,prints"])
    assert done.exit_code == 2
    assert "one or both of interactive, bulk" in done.output
