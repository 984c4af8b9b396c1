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


def wait_seconds(ahead: int, running_for: list[float], slots: int, grading: float) -> float:
    """When an upload with ``ahead`` uploads before it starts, if ``slots`` grading slots each
    take ``grading`` seconds an upload and the jobs running now have run ``running_for``
    seconds (first come first served: each next upload takes the slot that frees first)."""
    free = sorted(max(grading - elapsed, 0.0) for elapsed in running_for[:slots])
    free += [0.0] * (max(slots, 1) - len(free))
    for _ in range(ahead):
        free.sort()
        free[0] += grading
    return min(free)


def estimated_wait(submission: Submission) -> float | None:
    """Seconds until a queued upload's result, from the measured grading times of its suite and
    the grading slots alive now; None when it is not queued or nothing has been measured."""
    ahead = queue_position(submission)
    grading = typical_grading_seconds(submission.suite)
    if ahead is None or grading is None:
        return None
    now = utcnow()
    started = db.session.scalars(
        sa.select(Submission.started_at).where(
            Submission.status == RUNNING, Submission.started_at.is_not(None)
        )
    ).all()
    slots = sum(worker.slots for worker in liveness.live()) or 1
    running_for = [(now - start).total_seconds() for start in started if start]
    return wait_seconds(ahead, running_for, slots, grading) + grading
