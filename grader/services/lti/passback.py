"""Grade passback (AGS): scores marked in the transaction that changed them, queued after the
commit, posted by the `lti_passback` job, queued again by the worker's sweep until delivered."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import sqlalchemy as sa
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from pylti1p3.service_connector import ServiceConnector

from grader.extensions import db
from grader.models import (
    STUDENT,
    Assignment,
    LtiContext,
    LtiPassback,
    LtiRegistration,
    LtiResourceLink,
    LtiUser,
    Membership,
    Slot,
    User,
    utcnow,
)
from grader.services.courses import release
from grader.services.lti.adapters import platform_registration
from grader.services.lti.claims import SCORE_SCOPE
from grader.services.lti.outbound import http
from grader.services.outbox import passback_after_commit
from grader.services.teaching.scores import counted_attempts, slot_state
from grader.services.transactions import writing

RESEND_SECONDS = 120  # the sweep queues a score again when it is still waiting after this
MAX_FAILURES = 30  # refusals after which the sweep stops (about an hour); "resend" starts over


# -- grade passback (AGS) ----------------------------------------------------------------------


def due_passbacks(now: dt.datetime | None = None) -> list[tuple[int, int]]:
    """Scores still waiting RESEND_SECONDS after their last wake-up (a lost message, a crash
    after the commit, a platform that refused): for the worker's sweep to queue again."""
    now = now or utcnow()
    due = sa.and_(
        LtiPassback.enqueued_at < now - dt.timedelta(seconds=RESEND_SECONDS),
        LtiPassback.failures < MAX_FAILURES,
    )
    with writing() as session:
        pairs = [
            (user_id, slot_id)
            for user_id, slot_id in session.execute(
                sa.select(LtiPassback.user_id, LtiPassback.slot_id).where(due).limit(1000)
            )
        ]
        if pairs:
            session.execute(
                sa.update(LtiPassback)
                .where(due, sa.tuple_(LtiPassback.user_id, LtiPassback.slot_id).in_(pairs))
                .values(enqueued_at=now)
            )
    return pairs


def due_releases(now: dt.datetime | None = None) -> int:
    """Marks for the LMS every student's scores of each assignment whose held scores reached a
    release moment since the last sweep that looked (the worker's sweep); the marks made. A
    student whose own release is later (an extension) is held again at sending, and marked at
    that later moment."""
    now = now or utcnow()
    made = 0
    for assignment, passed in release.passed_releases(now):
        rows = db.session.execute(
            sa.select(Membership.user_id, Slot.id)
            .join(Assignment, Slot.assignment_id == Assignment.id)
            .join(Membership, Membership.course_id == Assignment.course_id)
            .where(Assignment.id == assignment.id, Membership.role == STUDENT)
        ).all()
        with writing() as session:
            made += passback_after_commit(session, [(u, s) for u, s in rows])
            session.get_one(Assignment, assignment.id).scores_sent_at = max(passed)
    return made


def _slot_scores(course_id: int, assignment_id: int, user_id: int) -> dict[int, float | None]:
    """The student's credited score (late penalty applied) per slot of the assignment, as the
    gradebook counts it (its score policy, engines included)."""

    assignment = db.session.get_one(Assignment, assignment_id)
    mine = counted_attempts(course_id, assignment_id, user_id)
    return {
        slot.id: slot_state(
            [a for a in mine if a.slot_id == slot.id], assignment.score_policy
        ).score
        for slot in assignment.slots
    }


def _connector(reg: LtiRegistration) -> ServiceConnector:
    return ServiceConnector(platform_registration(reg), requests_session=http())


def send_scores(user_id: int, slot_id: int) -> int:
    """Posts the student's current score to every LMS line item showing this slot (its own
    link, or its assignment's); the number sent. Raises when a platform refuses (the job
    retries); each score is the whole current value, so a retry or a late duplicate is harmless."""
    mark = db.session.scalar(
        sa.select(LtiPassback.marked_at).where(
            LtiPassback.user_id == user_id, LtiPassback.slot_id == slot_id
        )
    )
    slot = db.session.get(Slot, slot_id)
    if mark is None or slot is None:
        return 0  # already sent (a duplicate message), or the slot is gone
    links = list(
        db.session.execute(
            sa.select(LtiResourceLink, LtiContext, LtiUser.sub)
            .join(LtiContext, LtiResourceLink.context_id == LtiContext.id)
            .join(
                LtiUser,
                sa.and_(
                    LtiUser.registration_id == LtiContext.registration_id,
                    LtiUser.user_id == user_id,
                ),
            )
            .where(
                sa.or_(
                    LtiResourceLink.slot_id == slot.id,
                    sa.and_(
                        LtiResourceLink.assignment_id == slot.assignment_id,
                        LtiResourceLink.slot_id.is_(None),
                    ),
                )
            )
            .order_by(LtiResourceLink.id)
        )
    )
    if not links or release.held_work(user_id, release.Standing(user_id, slot.assignment)):
        # Nothing shows it; or its score is held from the student, so from their LMS too (the
        # LMS shows the student what the student sees): the release sweep (`due_releases`)
        # marks it again at its release.
        _sent(user_id, slot_id, mark)
        return 0
    scores = _slot_scores(slot.assignment.course_id, slot.assignment_id, user_id)
    sent = 0
    failures = []
    for link, context, sub in links:
        if link.slot_id is not None:
            given, maximum = scores.get(link.slot_id), 1.0
        else:
            values = [v for v in scores.values() if v is not None]
            given = sum(values) if values else None
            maximum = float(max(len(scores), 1))
        if given is None:
            continue
        try:
            _post_score(link, context, sub, given, maximum)
            sent += 1
        except Exception as error:  # one platform down does not stop the others
            failures.append(f"link {link.id}: {error}")
    if failures:
        message = "LTI score passback failed: " + "; ".join(failures)
        with writing() as session:
            session.execute(
                sa.update(LtiPassback)
                .where(LtiPassback.user_id == user_id, LtiPassback.slot_id == slot_id)
                .values(failures=LtiPassback.failures + 1, error=message[:2000])
            )
        raise RuntimeError(message)
    _sent(user_id, slot_id, mark)
    return sent


def _sent(user_id: int, slot_id: int, mark: dt.datetime) -> None:
    """Done with this mark; a newer one (a change while this was sending) stays for its job."""
    with writing() as session:
        session.execute(
            sa.delete(LtiPassback).where(
                LtiPassback.user_id == user_id,
                LtiPassback.slot_id == slot_id,
                LtiPassback.marked_at <= mark,
            )
        )


def iso_utc(moment: dt.datetime) -> str:
    """A stored (UTC) instant as AGS writes dates: ISO 8601 with its offset."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
    return aware.astimezone(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def score_words(given: float, maximum: float, title: str) -> str:
    """The score's comment in the LMS's gradebook: what it is, in words."""
    return (
        f"{round(given, 2):g} of {maximum:g} points on {title[:200]} "
        "as its course's gradebook on Alpha-Beta Grader counts it"
    )


def _post_score(
    link: LtiResourceLink, context: LtiContext, sub: str, given: float, maximum: float
) -> None:
    scopes = context.ags_scopes or []
    if SCORE_SCOPE not in scopes:
        raise LtiException("the platform did not grant the AGS score scope")
    ags = AssignmentsGradesService(
        _connector(context.registration),
        {
            "scope": scopes,
            "lineitems": context.lineitems_url or "",
            "lineitem": link.lineitem_url or "",
        },
    )
    lineitem = None
    title = (link.slot.title if link.slot is not None else None) or link.assignment.title
    if not link.lineitem_url:  # placed without a line item: find or make the column once
        column = LineItem()
        due = link.slot.effective_due_at if link.slot is not None else link.assignment.due_at
        if due is not None:
            column.set_end_date_time(iso_utc(due))
        lineitem = ags.find_or_create_lineitem(
            column.set_label(title[:200])
            .set_score_maximum(maximum)
            .set_resource_link_id(link.resource_link_id)
            .set_resource_id(
                f"slot-{link.slot_id}" if link.slot_id else f"assignment-{link.assignment_id}"
            )
            .set_tag("alpha-beta-grader"),
            find_by="resource_link_id",  # the link's own column (a tag names every link's)
        )
        with writing():
            db.session.get_one(LtiResourceLink, link.id).lineitem_url = lineitem.get_id()
    stamp = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    grade = (
        Grade()
        .set_score_given(round(given, 6))
        .set_score_maximum(maximum)
        .set_timestamp(stamp)
        .set_activity_progress("Completed")
        .set_grading_progress("FullyGraded")
        .set_user_id(sub)
        .set_comment(score_words(given, maximum, title))
    )
    ags.put_grade(grade, lineitem)


def resend(actor: User | None, course_id: int) -> int:
    """Queues every student's score of the course's placed slots again (after an outage)."""
    from grader.services.courses.staff import staff

    if actor is not None:
        staff(actor, course_id, change=True)
    rows = db.session.execute(
        sa.select(Membership.user_id, Slot.id)
        .join(Assignment, Slot.assignment_id == Assignment.id)
        .join(Membership, Membership.course_id == Assignment.course_id)
        .where(Assignment.course_id == course_id, Membership.role == STUDENT)
    ).all()
    with writing() as session:
        count = passback_after_commit(session, [(u, s) for u, s in rows])
    return count


@dataclass(frozen=True)
class Undelivered:
    count: int
    error: str | None  # the latest refusal


def undelivered(course_id: int) -> Undelivered:
    """Scores of the course the LMS refused so far (the course's LMS page shows them)."""
    query = (
        sa.select(LtiPassback)
        .join(Slot, LtiPassback.slot_id == Slot.id)
        .join(Assignment, Slot.assignment_id == Assignment.id)
        .where(Assignment.course_id == course_id, LtiPassback.failures > 0)
    )
    count = db.session.scalar(sa.select(sa.func.count()).select_from(query.subquery()))
    latest = db.session.scalar(query.order_by(LtiPassback.marked_at.desc()).limit(1))
    return Undelivered(count or 0, latest.error if latest else None)
