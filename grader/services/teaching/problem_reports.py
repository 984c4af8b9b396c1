"""Problem reports: a student reports a problem with an exercise of a course (a tree slot or an
engine slot), naming the attempt or upload it concerns, in their own words; the course's staff
read them in an inbox (open, answered), are told by e-mail, and answer; the student reads the
answer on the exercise's page.

The e-mail is the queue's (`REPORT_MAIL`), never the student's request's: filing stores the
report with the inbox's address (`mail_link`, where mail is set up) and wakes the job once it
commits; the job sends it and records `mailed_at`. The row is the truth: the worker's sweep
wakes a job the queue lost (`due_mail`), and a job that finds the staff told already sends
nothing; a mail server that refuses is tried MAIL_TRIES times.

Words are plain text, at most REPORT_TEXT_MAX characters, without control characters other than
line breaks and tabs; the pages escape them (Jinja's autoescape) and the e-mails are plain text.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import sqlalchemy as sa
from flask import current_app

from grader.extensions import REPORT_MAIL, db, job_queue
from grader.models import (
    REPORT_TEXT_MAX,
    STAFF_ROLES,
    Attempt,
    Exercise,
    Membership,
    ProblemReport,
    Slot,
    Submission,
    User,
    utcnow,
)
from grader.services import Invalid, NotFound, mail
from grader.services.courses import courses, zones
from grader.services.courses.staff import Staff, staff
from grader.services.transactions import writing
from grader.services.trees.attempts import held_for_owner

INBOX_MAX = 500  # reports an inbox lists, newest first, per status
MAIL_TRIES = 5  # sends of a report's e-mail before the sweep stops waking it


def _words(text: str, what: str) -> str:
    text = (text or "").replace("\r\n", "\n").strip()
    if not text:
        raise Invalid(f"write {what}")
    if len(text) > REPORT_TEXT_MAX:
        raise Invalid(f"{what} is longer than {REPORT_TEXT_MAX} characters")
    if any(ord(c) < 32 and c not in "\n\t" for c in text):
        raise Invalid(f"{what} holds control characters")
    return text


@dataclass(frozen=True)
class Filed:
    report: ProblemReport
    mailing: bool  # the staff are to be told by e-mail (by the queue)


def report(
    user: User,
    assignment_id: int,
    index: int,
    text: str,
    *,
    exercise_id: int | None = None,
    attempt_id: int | None = None,
    submission_id: int | None = None,
    inbox_url: str = "",
) -> Filed:
    """The student's report on slot ``index`` of the assignment (which they can open), naming
    their own exercise of it, attempt or upload; where mail is set up, the staff's e-mail
    (with ``inbox_url``) is queued once the report is stored."""
    slot = courses.get_slot(user, assignment_id, index)  # a member who may see it
    words = _words(text, "what the problem is")
    exercise = db.session.get(Exercise, exercise_id) if exercise_id is not None else None
    if exercise_id is not None and (
        exercise is None or exercise.owner_id != user.id or exercise.slot_id != slot.id
    ):
        raise NotFound("no such exercise of yours in this slot")
    attempt = db.session.get(Attempt, attempt_id) if attempt_id is not None else None
    if attempt_id is not None:
        if (
            attempt is None
            or attempt.user_id != user.id
            or attempt.exercise.slot_id != slot.id
            or (exercise is not None and attempt.exercise_id != exercise.id)
        ):
            raise NotFound("no such attempt of yours at this exercise")
        exercise = exercise or attempt.exercise
    upload = db.session.get(Submission, submission_id) if submission_id is not None else None
    if submission_id is not None and (
        upload is None or upload.owner_id != user.id or upload.slot_id != slot.id
    ):
        raise NotFound("no such upload of yours in this slot")
    with writing() as session:
        filed = ProblemReport(
            course_id=slot.assignment.course_id,
            slot_id=slot.id,
            user_id=user.id,
            exercise_id=exercise.id if exercise is not None else None,
            attempt_id=attempt_id,
            submission_id=submission_id,
            text=words,
            mail_link=inbox_url[:500] if mail.configured() else None,
            mail_woken_at=utcnow(),
        )
        session.add(filed)
    if filed.mail_link is not None:
        job_queue.wake(REPORT_MAIL, filed.id, what=f"the e-mail of problem report {filed.id}")
    return Filed(filed, filed.mail_link is not None)


def tell_staff(report_id: int) -> int:
    """The job: e-mails the course's staff about the report, once (a duplicate wake-up, or one
    after they were told, sends nothing); the messages that went. The try is counted before
    the mail server is reached, and no transaction is open while it is."""
    with writing() as session:
        filed = session.get(ProblemReport, report_id)
        if (
            filed is None
            or filed.mail_link is None
            or filed.mailed_at is not None
            or filed.mail_tries >= MAIL_TRIES
        ):
            return 0
        filed.mail_tries += 1
    if not mail.configured():
        return 0
    messages = _staff_mail(filed)
    sent = mail.send_many(messages, budget_seconds=30.0) if messages else 0
    if sent == len(messages):
        with writing() as session:
            session.get_one(ProblemReport, report_id).mailed_at = utcnow()
    return sent


def due_mail(now: dt.datetime | None = None) -> list[int]:
    """Reports whose e-mail is still to go GRADER_REWAKE_SECONDS after its job's last wake-up
    (a lost message, a refusing mail server), for the worker's sweep to wake again."""
    now = now or utcnow()
    rewake = dt.timedelta(seconds=float(current_app.config["GRADER_REWAKE_SECONDS"]))
    due = sa.and_(
        ProblemReport.mail_link.is_not(None),
        ProblemReport.mailed_at.is_(None),
        ProblemReport.mail_tries < MAIL_TRIES,
        ProblemReport.mail_woken_at < now - rewake,
    )
    with writing() as session:
        ids = list(session.scalars(sa.select(ProblemReport.id).where(due).limit(1000)))
        if ids:
            session.execute(
                sa.update(ProblemReport)
                .where(due, ProblemReport.id.in_(ids))
                .values(mail_woken_at=now)
            )
    return ids


def _staff_mail(filed: ProblemReport) -> list[tuple[str, str, str]]:
    """The e-mail to each of the course's staff: (to, subject, body)."""
    emails = list(
        db.session.scalars(
            sa.select(User.email)
            .join(Membership, Membership.user_id == User.id)
            .where(
                Membership.course_id == filed.course_id,
                Membership.role.in_(STAFF_ROLES),
                User.erased_at.is_(None),
            )
            .order_by(User.id)
        )
    )
    slot = filed.slot
    concerning = (
        f"attempt {filed.attempt_id}"
        if filed.attempt_id
        else f"upload {filed.submission_id}"
        if filed.submission_id
        else "no attempt or upload in particular"
    )
    body = (
        f"A student reported a problem with {slot.assignment.title}, exercise "
        f"{slot.index + 1} ({slot.name}), in {filed.course.name} ({concerning}):\n\n"
        f"{filed.text}\n\nRead and answer it in the course's problem reports: "
        f"{filed.mail_link}\n"
    )
    subject = f"Problem report: {slot.assignment.title}, exercise {slot.index + 1}"
    return [(to, subject, body) for to in emails]


def mine(user: User, slot_id: int) -> list[ProblemReport]:
    """The user's reports on a slot, newest first (the exercise's page shows them)."""
    return list(
        db.session.scalars(
            sa.select(ProblemReport)
            .where(ProblemReport.user_id == user.id, ProblemReport.slot_id == slot_id)
            .order_by(ProblemReport.id.desc())
        )
    )


@dataclass(frozen=True)
class Inbox:
    staff: Staff
    open: list[ProblemReport]
    answered: list[ProblemReport]


def inbox(user: User, course_id: int) -> Inbox:
    """The course's reports, open and answered, for its instructors and TAs."""
    as_staff = staff(user, course_id)
    query = (
        sa.select(ProblemReport)
        .where(ProblemReport.course_id == course_id)
        .order_by(ProblemReport.id.desc())
        .limit(INBOX_MAX)
    )
    return Inbox(
        as_staff,
        list(db.session.scalars(query.where(ProblemReport.answered_at.is_(None)))),
        list(db.session.scalars(query.where(ProblemReport.answered_at.is_not(None)))),
    )


def course_of(user: User, report_id: int) -> int:
    """The course of a report its staff may read."""
    found = db.session.get(ProblemReport, report_id)
    if found is None:
        raise NotFound("no such problem report")
    return staff(user, found.course_id).course.id


def answer(user: User, report_id: int, text: str) -> ProblemReport:
    """A staff member's answer (a later one replaces it); the student reads it on the
    exercise's page. TAs answer too: an answer changes no score."""
    found = db.session.get(ProblemReport, report_id)
    if found is None:
        raise NotFound("no such problem report")
    staff(user, found.course_id)
    words = _words(text, "the answer")
    with writing() as session:
        found = session.get_one(ProblemReport, report_id)
        found.answer = words
        found.answered_by_id = user.id
        found.answered_at = utcnow()
    return found


def slot_of(user: User, assignment_id: int, index: int) -> Slot:
    return courses.get_slot(user, assignment_id, index)


@dataclass(frozen=True)
class Concerning:
    """An attempt or an upload a report may name: ``value`` is "a:ID" or "u:ID"."""

    value: str
    label: str


def concerning(user: User, slot: Slot, exercise_id: int | None) -> list[Concerning]:
    """The user's attempts at the slot's exercise (``exercise_id``, else their graded one), or
    their uploads to an engine slot, newest first (at most 50); an attempt's score is named
    once it is no longer held from them."""
    zone_name = slot.assignment.course.timezone
    if not slot.slot_kind.has_exercise:
        uploads = db.session.scalars(
            sa.select(Submission)
            .where(Submission.owner_id == user.id, Submission.slot_id == slot.id)
            .order_by(Submission.id.desc())
            .limit(50)
        )
        return [
            Concerning(
                f"u:{u.id}", f"upload {u.id} ({u.filename}, {zones.words(u.created_at, zone_name)})"
            )
            for u in uploads
        ]
    query = (
        sa.select(Attempt)
        .join(Exercise, Attempt.exercise_id == Exercise.id)
        .where(Attempt.user_id == user.id, Exercise.slot_id == slot.id)
        .order_by(Attempt.id.desc())
        .limit(50)
    )
    if exercise_id is not None:
        query = query.where(Exercise.id == exercise_id)
    return [
        Concerning(
            f"a:{a.id}",
            f"attempt {a.id} ({zones.words(a.created_at, zone_name)}"
            + ("" if held_for_owner(a, user.id) else f", score {round(a.score, 2):g}")
            + ")",
        )
        for a in db.session.scalars(query)
    ]
