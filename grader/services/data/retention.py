"""Archived courses and how long their students' data is kept.

An archived course is read-only: it takes no attempt and no upload (`courses.check_open`), its
pages and gradebook stay readable and exportable. `GRADER_RETENTION_DAYS` after it was
archived, the worker's sweep purges its students' personal data (`purge_due`): their
exercises and attempts in it, their engine uploads with their bytes, exam prints and sheets,
integrity checks, pending LMS scores, invites, and the students' memberships with the roster's
names. The staff, the assignments and the course stay; `Course.purged_at` says when it was done.
Accounts are not erased: a person may be in other courses (erasure is `erasure.erase`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from flask import current_app

from grader.extensions import db
from grader.models import (
    STUDENT,
    Assignment,
    Attempt,
    AuditEntry,
    Course,
    ExamPrint,
    Exercise,
    Extension,
    GroupMember,
    IntegrityCheck,
    Invite,
    LtiPassback,
    Membership,
    ProblemReport,
    Slot,
    Submission,
    User,
    utcnow,
)
from grader.services import Conflict, Forbidden, NotFound
from grader.services.courses import zones
from grader.services.courses.staff import staff
from grader.services.engines import blobs
from grader.services.transactions import rows_changed, writing


def retention_days() -> int:
    return int(current_app.config["GRADER_RETENTION_DAYS"])


def purge_at(course: Course) -> dt.datetime | None:
    """When the worker purges the course's students' data (None: not archived)."""
    if course.archived_at is None:
        return None
    return course.archived_at + dt.timedelta(days=retention_days())


def archive(actor: User | None, course_id: int, archived: bool = True) -> Course:
    """Archives a course (read-only), or opens it again before its purge: its instructors, an
    administrator, or the server's operator (None)."""
    if actor is not None and not actor.is_admin:
        staff(actor, course_id, change=True)
    with writing() as session:
        course = session.get(Course, course_id)
        if course is None:
            raise NotFound("no such course")
        if course.purged_at is not None:
            raise Conflict(
                f"this course's students' data was purged on "
                f"{zones.words(course.purged_at, course.timezone)}; "
                "it stays archived"
            )
        if archived and course.archived_at is None:
            course.archived_at = utcnow()
        elif not archived:
            course.archived_at = None
    return course


@dataclass(frozen=True)
class Scheduled:
    """An archived course, what its purge will remove, and when."""

    course: Course
    purge_at: dt.datetime
    students: int
    attempts: int
    uploads: int


def _slots(course_id: int) -> sa.Select[Any]:
    return (
        sa.select(Slot.id)
        .join(Assignment, Assignment.id == Slot.assignment_id)
        .where(Assignment.course_id == course_id)
    )


def schedule(actor: User | None) -> list[Scheduled]:
    """Every archived course not yet purged, soonest purge first (administrators)."""
    if actor is not None and not actor.is_admin:
        raise Forbidden("only an administrator sees what will be purged")
    courses = db.session.scalars(
        sa.select(Course)
        .where(Course.archived_at.is_not(None), Course.purged_at.is_(None))
        .order_by(Course.archived_at, Course.id)
    )
    out = []
    for course in courses:
        slots = _slots(course.id)
        students = db.session.scalar(
            sa.select(sa.func.count(Membership.id)).where(
                Membership.course_id == course.id, Membership.role == STUDENT
            )
        )
        attempts = db.session.scalar(
            sa.select(sa.func.count(Attempt.id))
            .join(Exercise, Exercise.id == Attempt.exercise_id)
            .where(Exercise.slot_id.in_(slots))
        )
        uploads = db.session.scalar(
            sa.select(sa.func.count(Submission.id)).where(Submission.slot_id.in_(slots))
        )
        when = purge_at(course)
        assert when is not None
        out.append(Scheduled(course, when, students or 0, attempts or 0, uploads or 0))
    return out


def purge(course_id: int) -> int:
    """Purges an archived course's students' data now (the worker, once it is due); the
    number of attempts removed."""
    with writing() as session:
        course = session.get(Course, course_id)
        if course is None or course.archived_at is None or course.purged_at is not None:
            return 0
        slots = _slots(course_id)
        assignments = sa.select(Assignment.id).where(Assignment.course_id == course_id)
        stored = dict(
            session.execute(
                sa.select(Submission.sha256, Submission.stored_path).where(
                    Submission.slot_id.in_(slots)
                )
            ).all()
        )
        prints = dict(
            session.execute(
                sa.select(ExamPrint.result_sha256, sa.literal("")).where(
                    ExamPrint.assignment_id.in_(assignments), ExamPrint.result_sha256.is_not(None)
                )
            ).all()
        )
        rows_changed(session, sa.delete(Submission).where(Submission.slot_id.in_(slots)))
        rows_changed(session, sa.delete(ExamPrint).where(ExamPrint.assignment_id.in_(assignments)))
        blobs.forget(session, {**{k: v for k, v in prints.items() if k}, **stored})
        attempts = rows_changed(
            session,
            sa.delete(Attempt).where(
                Attempt.exercise_id.in_(sa.select(Exercise.id).where(Exercise.slot_id.in_(slots)))
            ),
        )
        rows_changed(session, sa.delete(Exercise).where(Exercise.slot_id.in_(slots)))
        rows_changed(
            session, sa.delete(IntegrityCheck).where(IntegrityCheck.assignment_id.in_(assignments))
        )
        rows_changed(session, sa.delete(LtiPassback).where(LtiPassback.slot_id.in_(slots)))
        rows_changed(session, sa.delete(ProblemReport).where(ProblemReport.course_id == course_id))
        rows_changed(
            session,
            sa.delete(Invite).where(Invite.course_id == course_id, Invite.role == STUDENT),
        )
        rows_changed(
            session,
            sa.delete(Membership).where(
                Membership.course_id == course_id, Membership.role == STUDENT
            ),
        )
        # Extensions are about one student or a group of them: they go, with their audit rows
        # (and those of the sign-in links made for students).
        rows_changed(session, sa.delete(Extension).where(Extension.course_id == course_id))
        rows_changed(session, sa.delete(GroupMember).where(GroupMember.course_id == course_id))
        for entry in session.scalars(
            sa.select(AuditEntry).where(AuditEntry.course_id == course_id)
        ):
            if {"extension", "sign_in_link"} & set(entry.changes or {}):
                session.delete(entry)
        # The audit log keeps what changed in a slot, not whose scores it changed.
        rows_changed(
            session,
            sa.update(AuditEntry).where(AuditEntry.course_id == course_id).values(details=[]),
        )
        course.purged_at = utcnow()
    return attempts


def purge_due(now: dt.datetime | None = None) -> list[int]:
    """Purges every archived course whose retention has run out (the worker's sweep); their ids."""
    now = now or utcnow()
    cutoff = now - dt.timedelta(days=retention_days())
    due = list(
        db.session.scalars(
            sa.select(Course.id).where(
                Course.archived_at.is_not(None),
                Course.archived_at <= cutoff,
                Course.purged_at.is_(None),
            )
        )
    )
    for course_id in due:
        purge(course_id)
    return due
