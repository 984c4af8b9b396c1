"""A queued upload's place in the queue and when its result is expected: the suite's latest
grading times and the grading slots alive now, for its page and the API."""

from __future__ import annotations

import statistics

import sqlalchemy as sa

from grader.extensions import db
from grader.models import DONE, QUEUED, RUNNING, Submission, utcnow
from grader.services import liveness


def queue_position(submission: Submission) -> int | None:
    """How many queued submissions go first (same or higher priority, older)."""
    if submission.status != QUEUED:
        return None
    return db.session.scalar(
        sa.select(sa.func.count(Submission.id)).where(
            Submission.status == QUEUED,
            sa.or_(
                Submission.priority > submission.priority,
                sa.and_(Submission.priority == submission.priority, Submission.id < submission.id),
            ),
        )
    )


#: How many of a suite's latest graded uploads the estimated wait takes the median of: few
#: enough to follow the machines' speed as it changes (bench.deadline --machines: 10 gave the
#: least error on its runs, against 50), a median so that a worker's first grading (its
#: reference cache cold, four times as long) does not stretch every estimate after it.
RECENT_GRADINGS = 10


def typical_grading_seconds(suite: str) -> float | None:
    """The median time from claim to result of the suite's latest graded uploads (None: none
    yet)."""
    rows = db.session.execute(
        sa.select(Submission.started_at, Submission.finished_at)
        .where(
            Submission.suite == suite,
            Submission.status == DONE,
            Submission.started_at.is_not(None),
            Submission.finished_at.is_not(None),
        )
        .order_by(Submission.finished_at.desc())
        .limit(RECENT_GRADINGS)
    ).all()
    times = [(end - start).total_seconds() for start, end in rows if start and end]
    return statistics.median(times) if times else None


def typical_first_seconds(suite: str) -> float:
    """The median time from claim to first verdict of the first runs of the suite's latest
    graded uploads (their done progress's "first_seconds", leases.queue_rest); 0 when none
    recorded one (each was graded in one run)."""
    first = Submission.progress["first_seconds"].as_float()
    values = db.session.scalars(
        sa.select(first)
        .where(Submission.suite == suite, Submission.status == DONE)
        .order_by(Submission.finished_at.desc())
        .limit(RECENT_GRADINGS)
    ).all()
    found = [value for value in values if value is not None]
    return statistics.median(found) if found else 0.0


def start_after(jobs: list[float], busy_for: list[float], slots: int) -> float:
    """When the next job starts if the ``jobs`` (their seconds, in order) go first, the jobs
    running now keep their slots ``busy_for`` seconds more, and ``slots`` grading slots each
    take the next job as it frees (the slot that frees first)."""
    free = sorted(busy_for)[: max(slots, 1)]
    free += [0.0] * (max(slots, 1) - len(free))
    for seconds in jobs:
        free.sort()
        free[0] += seconds
    return min(free)


def estimated_wait(submission: Submission) -> float | None:
    """Seconds until a queued upload's result, from the measured grading times of its suite and
    the grading slots alive now; None when it is not queued (the row read now, not the caller's
    copy: a worker may claim it in between) or nothing has been measured.

    An upload is graded in two runs (leases.queue_rest): the first, to its first verdict, then
    the rest, one step below its priority. Each upload before it (of a higher priority, or of
    its own and older, its rest counted at its upload's priority) costs what it has left: both
    runs (the first run's typical seconds and the last run's), or the rest alone; a running
    one what is left of those. First runs queued after it, which go before its rest, are not
    counted: they are short, and not yet known when the page asks."""
    from grader.services.engines.leases import LAST_RUN_KEYS

    rest = typical_grading_seconds(submission.suite)
    if submission.status != QUEUED or rest is None:
        return None
    first = typical_first_seconds(submission.suite)
    # Whether a row's progress has the key (as text: SQLite quotes a missing JSON value 'null').
    last_run = sa.or_(*(Submission.progress[key].as_string().is_not(None) for key in LAST_RUN_KEYS))

    def left(last: bool) -> float:
        return rest if last else first + rest

    def rank(priority: int, last: bool) -> int:  # a rest waits one step below its upload
        return priority + 1 if last else priority

    queued = db.session.execute(
        sa.select(Submission.id, Submission.priority, last_run).where(Submission.status == QUEUED)
    ).all()
    own = next((bool(row[2]) for row in queued if row[0] == submission.id), None)
    if own is None:  # claimed by a worker since the caller read it: no longer waiting
        return None
    mine = rank(submission.priority, own)
    ahead = [
        left(row[2])
        for row in sorted(queued, key=lambda row: (-rank(row[1], row[2]), row[0]))
        if (rank(row[1], row[2]), -row[0]) > (mine, -submission.id)
    ]
    now = utcnow()
    running = db.session.execute(
        sa.select(Submission.started_at, last_run).where(
            Submission.status == RUNNING, Submission.started_at.is_not(None)
        )
    ).all()
    busy_for = [
        max(left(last) - (now - started).total_seconds(), 0.0)
        for started, last in running
        if started is not None
    ]
    slots = sum(worker.slots for worker in liveness.live()) or 1
    return start_after(ahead, busy_for, slots) + left(own)
