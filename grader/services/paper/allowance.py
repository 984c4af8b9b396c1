"""What a course may print: the service's bounds on a print run's sheets, a course's and the
service's sheets in 24 hours, one run of a course at a time (GRADER_EXAM_SHEETS_*)."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.orm import Session

from grader.models import (
    QUEUED,
    RUNNING,
    STUDENT,
    Assignment,
    Course,
    ExamPrint,
    ExamSheet,
    Membership,
    utcnow,
)
from grader.services import Conflict, Invalid, RateLimited, plural
from grader.services.courses import zones

DAY = dt.timedelta(hours=24)


@dataclass(frozen=True)
class PrintAllowance:
    """What a course may print now: the service's bounds (GRADER_EXAM_SHEETS_*), the sheets
    counted in the last 24 hours (oldest first, with when each run was asked for), and the
    course's run still queued or running, if any (a course prints one run at a time); its times
    are told in the course's zone (`zone`).

    A run counts from when it was asked for, done, failed or pending: its anonymous sheets, else
    the sheets it made once over, else (queued or running) the course's students now."""

    per_print: int
    per_course_day: int
    per_day: int
    course_runs: list[tuple[dt.datetime, int]]
    service_runs: list[tuple[dt.datetime, int]]
    pending: ExamPrint | None
    now: dt.datetime
    zone: str

    @property
    def course_sheets(self) -> int:
        return sum(n for _, n in self.course_runs)

    @property
    def service_sheets(self) -> int:
        return sum(n for _, n in self.service_runs)

    def refuse(self, sheets: int, roster: bool) -> None:
        """Raises the first bound that ``sheets`` more would break, in words; else nothing."""
        if self.pending is not None:
            run = self.pending
            raise Conflict(
                f"print run {run.id} of “{run.assignment.title}” is still {run.status} "
                f"(asked for at {zones.words(run.created_at, self.zone)}): "
                "a course prints one run "
                "at a time, so print again once it has finished"
            )
        if sheets > self.per_print:
            how = (
                f"one sheet per student makes {sheets} sheets"
                if roster
                else f"{sheets} anonymous sheets asked for"
            )
            raise Invalid(
                f"a print run makes at most {plural(self.per_print, 'sheet')} (the service's limit); "
                f"{how}: print anonymous sheets in runs of {self.per_print} or fewer "
                "(each is tied to its student when the answers are entered)"
            )
        for runs, limit, whose in (
            (self.course_runs, self.per_course_day, "this course"),
            (self.service_runs, self.per_day, "the service, for all its courses,"),
        ):
            used = sum(n for _, n in runs)
            if used + sheets <= limit:
                continue
            when = self._fits(runs, limit, sheets)
            retry = max(1, math.ceil((when - self.now).total_seconds()))
            raise RateLimited(
                f"{whose} printed or queued {plural(used, 'sheet')} in the last 24 hours, and may print "
                f"{limit} a day: {sheets} more would pass it ({max(0, limit - used)} can be "
                f"printed now; these {sheets} from {zones.words(when, self.zone)})",
                retry_after=retry,
            )

    def _fits(self, runs: list[tuple[dt.datetime, int]], limit: int, sheets: int) -> dt.datetime:
        """When enough of ``runs`` have left the 24 hours for ``sheets`` more."""
        left = sum(n for _, n in runs)
        for asked_at, n in runs:
            left -= n
            if left + sheets <= limit:
                return asked_at + DAY
        return self.now + DAY


def student_count(session: Session, course_id: int) -> int:
    return int(
        session.scalar(
            sa.select(sa.func.count(Membership.user_id)).where(
                Membership.course_id == course_id, Membership.role == STUDENT
            )
        )
        or 0
    )


def _counted_runs(
    session: Session, since: dt.datetime, course_id: int | None
) -> list[tuple[dt.datetime, int]]:
    """(asked at, sheets) of the runs asked for since ``since``, oldest first (PrintAllowance
    says how a run counts)."""
    made = (
        sa.select(sa.func.count(ExamSheet.id))
        .where(ExamSheet.print_id == ExamPrint.id)
        .scalar_subquery()
    )
    query = (
        sa.select(
            ExamPrint.created_at,
            ExamPrint.anonymous,
            ExamPrint.status,
            made,
            Assignment.course_id,
        )
        .join(Assignment, Assignment.id == ExamPrint.assignment_id)
        .where(ExamPrint.created_at >= since)
        .order_by(ExamPrint.created_at, ExamPrint.id)
    )
    if course_id is not None:
        query = query.where(Assignment.course_id == course_id)
    roster: dict[int, int] = {}
    counted = []
    for asked_at, anonymous, status, sheets, course in session.execute(query):
        if anonymous is not None:
            n = anonymous
        elif status in (QUEUED, RUNNING):
            if course not in roster:
                roster[course] = student_count(session, course)
            n = roster[course]
        else:
            n = sheets
        counted.append((asked_at, int(n)))
    return counted


def print_allowance(session: Session, course_id: int) -> PrintAllowance:
    config = current_app.config
    now = utcnow()
    pending = session.scalar(
        sa.select(ExamPrint)
        .join(Assignment, Assignment.id == ExamPrint.assignment_id)
        .where(Assignment.course_id == course_id, ExamPrint.status.in_([QUEUED, RUNNING]))
        .order_by(ExamPrint.id)
        .limit(1)
    )
    return PrintAllowance(
        per_print=int(config["GRADER_EXAM_SHEETS_PER_PRINT"]),
        per_course_day=int(config["GRADER_EXAM_SHEETS_PER_COURSE_DAY"]),
        per_day=int(config["GRADER_EXAM_SHEETS_PER_DAY"]),
        course_runs=_counted_runs(session, now - DAY, course_id),
        service_runs=_counted_runs(session, now - DAY, None),
        pending=pending,
        now=now,
        zone=session.get_one(Course, course_id).timezone,
    )
