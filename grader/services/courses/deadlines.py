"""A student's own deadlines: the one place a due date, an attempt limit or lateness is read.

Every reader (the student's pages, the API, the refusal of a late attempt or upload, its stored
lateness and so the gradebook, its CSV, the LMS passback and the data export) asks here with the
student, so an extension counts everywhere or nowhere:

    due_for(user_id, slot)        the class's due date, or the latest of the student's extensions
    attempts_for(user_id, slot)   the slot's limit plus the most extra attempts granted
    lateness_for(user_id, slot, t) (days late, penalty), no penalty where one is waived

An extension names one student or a named group (`GroupMember`), and an assignment (every slot)
or one slot. Granting or removing one recomputes the lateness of the students' stored attempts
and uploads in its slots, marks their changed scores for the LMS, and writes an audit row
(`Regrade`, the course's audit log).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import (
    STUDENT,
    Assignment,
    Attempt,
    Course,
    Exercise,
    Extension,
    GroupMember,
    Membership,
    Regrade,
    Slot,
    Submission,
    User,
    utcnow,
)
from grader.services import Invalid, NotFound, outbox
from grader.services.accounts import normalize_email
from grader.services.courses import lateness, zones
from grader.services.courses.courses import course_in
from grader.services.courses.staff import staff, staff_for_assignment
from grader.services.transactions import writing

MAX_EXTRA_ATTEMPTS = 1000
MAX_DAYS = 366
MAX_IMPORT_ROWS = 5000
EPSILON = 1e-9


# -- reading: every due date and limit comes from here ------------------------------------------


@dataclass(frozen=True)
class Deadline:
    """A student's terms for one slot."""

    class_due_at: dt.datetime | None  # the slot's (or its assignment's) due date, UTC
    due_at: dt.datetime | None  # the student's own
    attempts_allowed: int | None  # None: unlimited
    waive_penalty: bool
    extended: bool  # an extension applies

    @property
    def moved(self) -> bool:
        return self.due_at != self.class_due_at


def _groups(user_id: int, course_id: int) -> sa.Select[Any]:
    return sa.select(GroupMember.name).where(
        GroupMember.user_id == user_id, GroupMember.course_id == course_id
    )


def extensions_for(
    user_id: int, assignment: Assignment, slot: Slot | None = None
) -> list[Extension]:
    """The extensions that apply to the student on the assignment's slot (`slot`), or on the
    assignment as a whole (`slot` None: only those naming no slot)."""
    where = [
        Extension.assignment_id == assignment.id,
        sa.or_(
            Extension.user_id == user_id,
            Extension.group_name.in_(_groups(user_id, assignment.course_id)),
        ),
    ]
    if slot is None:
        where.append(Extension.slot_id.is_(None))
    else:
        where.append(sa.or_(Extension.slot_id.is_(None), Extension.slot_id == slot.id))
    return list(db.session.scalars(sa.select(Extension).where(*where).order_by(Extension.id)))


def _deadline(class_due: dt.datetime | None, allowed: int | None, found: Iterable[Any]) -> Deadline:
    found = list(found)
    dues = [e.due_at for e in found if e.due_at is not None]
    due = max([*dues, *([class_due] if class_due else [])]) if dues else class_due
    extra = max((e.extra_attempts for e in found), default=0)
    return Deadline(
        class_due_at=class_due,
        due_at=due,
        attempts_allowed=None if allowed is None else allowed + extra,
        waive_penalty=any(e.waive_penalty for e in found),
        extended=bool(found),
    )


# Built once, asked by every graded attempt and upload: the terms of the student's extensions on
# one slot (theirs, or their groups'), as plain rows on the session's connection.
_SLOT_TERMS = sa.select(Extension.due_at, Extension.extra_attempts, Extension.waive_penalty).where(
    Extension.assignment_id == sa.bindparam("assignment_id"),
    sa.or_(Extension.slot_id.is_(None), Extension.slot_id == sa.bindparam("slot_id")),
    sa.or_(
        Extension.user_id == sa.bindparam("user_id"),
        Extension.group_name.in_(
            sa.select(GroupMember.name).where(
                GroupMember.user_id == sa.bindparam("user_id"),
                GroupMember.course_id == sa.bindparam("course_id"),
            )
        ),
    ),
)


def deadline_for(user_id: int | None, slot: Slot) -> Deadline:
    """The student's due date, attempt limit and penalty waiver on a slot (`user_id` None: the
    class's)."""
    found: list[Any] = []
    if user_id is not None:
        assignment = slot.assignment
        found = list(
            db.session.connection().execute(
                _SLOT_TERMS,
                {
                    "assignment_id": assignment.id,
                    "slot_id": slot.id,
                    "user_id": user_id,
                    "course_id": assignment.course_id,
                },
            )
        )
    return _deadline(slot.effective_due_at, slot.attempts_allowed, found)


def assignment_deadline(user_id: int | None, assignment: Assignment) -> Deadline:
    """The student's due date for the assignment as a whole (its extensions naming no slot)."""
    found = extensions_for(user_id, assignment) if user_id is not None else []
    return _deadline(assignment.due_at, None, found)


def due_for(user_id: int | None, slot: Slot) -> dt.datetime | None:
    return deadline_for(user_id, slot).due_at


def attempts_for(user_id: int | None, slot: Slot) -> int | None:
    return deadline_for(user_id, slot).attempts_allowed


def closes_for(
    user_id: int | None, slot: Slot, terms: Deadline | None = None
) -> dt.datetime | None:
    """When the student's attempts and uploads stop being taken: lateness.closes_at of their
    own due date (`terms`, when the caller has read them), moved later by the slip days they
    may still spend on this assignment."""
    due = (terms or deadline_for(user_id, slot)).due_at
    if due is not None and user_id is not None:
        due += lateness.DAY * slip_days_available(user_id, slot.assignment)
    return lateness.closes_at(due, slot.assignment.late_percent_per_day)


@dataclass(frozen=True)
class Lateness:
    days: int  # days late, from the student's own due date
    penalty: float  # the fraction taken off
    slip_days: int  # of the days late, those the student's slip days covered


def lateness_for(
    user_id: int, slot: Slot, submitted_at: dt.datetime, terms: Deadline | None = None
) -> Lateness:
    """The lateness of the student's work on the slot at `submitted_at`: slip days are spent
    first (as far as the course's budget, less what their other assignments used, allows), the
    penalty counts the days left over; an extension's days are not late at all. `terms`: the
    student's, when the caller has read them."""
    terms = terms or deadline_for(user_id, slot)
    days = lateness.days_late(submitted_at, terms.due_at)
    if terms.waive_penalty or not days:
        return Lateness(days, 0.0, 0)
    slip = min(days, slip_days_available(user_id, slot.assignment))
    return Lateness(days, lateness.penalty(days - slip, slot.assignment.late_percent_per_day), slip)


# -- slip days: a course's budget of late days per student, spent in order of submission --------


def _slip_query(course_id: int, user_id: int | None) -> list[tuple[int, int, int]]:
    """(user, assignment, slip days used: the most of any of its attempts or uploads)."""
    attempts = (
        sa.select(Attempt.user_id, Slot.assignment_id, sa.func.max(Attempt.slip_days))
        .join(Exercise, Attempt.exercise_id == Exercise.id)
        .join(Slot, Exercise.slot_id == Slot.id)
        .join(Assignment, Slot.assignment_id == Assignment.id)
        .where(Assignment.course_id == course_id, Exercise.variant == 0, Attempt.slip_days > 0)
        .group_by(Attempt.user_id, Slot.assignment_id)
    )
    uploads = (
        sa.select(Submission.owner_id, Slot.assignment_id, sa.func.max(Submission.slip_days))
        .join(Slot, Submission.slot_id == Slot.id)
        .join(Assignment, Slot.assignment_id == Assignment.id)
        .where(Assignment.course_id == course_id, Submission.slip_days > 0)
        .group_by(Submission.owner_id, Slot.assignment_id)
    )
    if user_id is not None:
        attempts = attempts.where(Attempt.user_id == user_id)
        uploads = uploads.where(Submission.owner_id == user_id)
    rows = [*db.session.execute(attempts), *db.session.execute(uploads)]
    return [(u, a, d) for u, a, d in rows]


def slip_days_used(course_id: int, user_id: int | None = None) -> dict[tuple[int, int], int]:
    """Per (student, assignment), the slip days the student used on it."""
    used: dict[tuple[int, int], int] = {}
    for user, assignment, days in _slip_query(course_id, user_id):
        used[(user, assignment)] = max(used.get((user, assignment), 0), days)
    return used


def slip_days_available(user_id: int, assignment: Assignment) -> int:
    """The slip days the student may still spend on this assignment: the budget less what
    their other assignments used (this one's own use stays available to its later work)."""
    budget = assignment.course.slip_days
    if not budget:
        return 0
    used = slip_days_used(assignment.course_id, user_id)
    elsewhere = sum(d for (_, a), d in used.items() if a != assignment.id)
    return max(0, budget - elsewhere)


def set_slip_days(actor: User | None, course_id: int, days: int) -> Course:
    """The course's budget of slip days per student (instructors; `actor` None: the operator).
    A change spends every student's slip days again under the new budget
    (`respend_slip_days`), written to the course's audit log with each changed score."""
    if actor is not None:
        staff(actor, course_id, change=True)
    if not 0 <= days <= MAX_DAYS:
        raise Invalid(f"slip days: 0 to {MAX_DAYS}")
    with writing() as session:
        course = course_in(session, course_id)
        before = course.slip_days
        if before == days:
            return course
        course.slip_days = days
        details = respend_slip_days(session, course)
        _audit(
            session,
            course,
            actor.id if actor is not None else None,
            f"Slip days per student: {before} to {days}",
            {"slip_days": [before, days]},
            details,
            None,
        )
    return course


# -- release: scores and keys held until a date, or the student's own due date --------------------


def scores_release_for(user_id: int | None, assignment: Assignment) -> dt.datetime | None:
    """When the student's scores and keys on the assignment are shown (None: not held): its
    release date, else the latest of the student's own due dates on it."""
    if not assignment.hold_scores:
        return None
    if assignment.scores_release_at is not None:
        return assignment.scores_release_at
    found = extensions_in(user_id, [assignment]) if user_id is not None else []
    whole = [e for e in found if e.slot_id is None]
    moments = [_deadline(assignment.due_at, None, whole).due_at]
    for slot in assignment.slots:
        mine = [e for e in found if e.slot_id in (None, slot.id)]
        moments.append(_deadline(slot.effective_due_at, None, mine).due_at)
    known = [m for m in moments if m is not None]
    return max(known) if known else None


def held_until(
    user_id: int | None, assignment: Assignment, now: dt.datetime | None = None
) -> dt.datetime | None:
    """The release moment while the student's scores are still held; None once shown."""
    release = scores_release_for(user_id, assignment)
    if release is None or (now or utcnow()) >= release:
        return None
    return release


def held_from(
    viewer_id: int | None, owner_id: int | None, assignment: Assignment
) -> dt.datetime | None:
    """While the owner's scores on the assignment are held from the viewer, their release
    moment: they are held from their owner alone (staff see everything at once), until then."""
    if owner_id is None or viewer_id != owner_id:
        return None
    return held_until(owner_id, assignment)


def held_words(release: dt.datetime, assignment: Assignment) -> str:
    """What the student reads while their score is held, in the course's zone."""
    when = zones.words(release, assignment.course.timezone)
    return f"Submitted; your score is released on {when}."


def release_moments(assignment: Assignment) -> list[dt.datetime]:
    """Every moment at which some student's held scores on the assignment are released."""
    if not assignment.hold_scores:
        return []
    if assignment.scores_release_at is not None:
        return [assignment.scores_release_at]
    moments = {d for d in [assignment.due_at, *(s.due_at for s in assignment.slots)] if d}
    moments |= set(
        db.session.scalars(
            sa.select(Extension.due_at).where(
                Extension.assignment_id == assignment.id, Extension.due_at.is_not(None)
            )
        )
    )
    return sorted(m for m in moments if m is not None)


# -- changing: staff grant, list and remove extensions ------------------------------------------


@dataclass(frozen=True)
class ExtensionInput:
    """One extension as staff ask for it: whom (an e-mail or a group), where, and what."""

    assignment_id: int
    email: str | None = None
    group: str | None = None
    slot_index: int | None = None  # None: every slot of the assignment
    due_at: dt.datetime | None = None  # the new due date, UTC
    days: int | None = None  # or this many days after the class's due date
    extra_attempts: int = 0
    waive_penalty: bool = False


def _student(session: Session | Any, course_id: int, email: str) -> User:
    user = session.scalar(
        sa.select(User)
        .join(Membership, Membership.user_id == User.id)
        .where(
            User.email == normalize_email(email),
            Membership.course_id == course_id,
            Membership.role == STUDENT,
        )
    )
    if user is None:
        raise Invalid(f"{email.strip()[:200]} is not a student of this course")
    return user


def _check(data: ExtensionInput, assignment: Assignment) -> tuple[Slot | None, dt.datetime | None]:
    """The slot named and the student's due date (UTC); N days are calendar days in the
    course's zone, so 23:59 stays 23:59 across a change of the clocks."""
    if (data.email is None) == (data.group is None):
        raise Invalid("name one student (an e-mail) or one group")
    if data.due_at is not None and data.days is not None:
        raise Invalid("give a due date or a number of days, not both")
    if data.days is not None and not 1 <= data.days <= MAX_DAYS:
        raise Invalid(f"days must be between 1 and {MAX_DAYS}")
    if not 0 <= data.extra_attempts <= MAX_EXTRA_ATTEMPTS:
        raise Invalid(f"extra attempts must be between 0 and {MAX_EXTRA_ATTEMPTS}")
    nothing = data.due_at is None and data.days is None
    if nothing and not data.extra_attempts and not data.waive_penalty:
        raise Invalid("an extension needs a due date, days, extra attempts or a waiver")
    slot = None
    if data.slot_index is not None:
        slot = next((s for s in assignment.slots if s.index == data.slot_index), None)
        if slot is None:
            raise Invalid(f"the assignment has no exercise {data.slot_index + 1}")
    class_due = slot.effective_due_at if slot is not None else assignment.due_at
    due = data.due_at
    if data.days is not None:
        if class_due is None:
            raise Invalid("this has no due date to add days to: give a date")
        zone = assignment.course.timezone
        wall = zones.field_value(class_due, zone)
        assert wall is not None
        due = zones.to_utc(wall + dt.timedelta(days=data.days), zone)
    if due is not None and class_due is not None and due <= class_due:
        raise Invalid("an extension's due date must be later than the class's")
    return slot, due


def _describe(extension: Extension, email: str | None, zone_name: str) -> dict[str, Any]:
    return {
        "who": email or f"group {extension.group_name}",
        "where": extension.assignment.title
        + (f", exercise {extension.slot.index + 1}" if extension.slot is not None else ""),
        "due_at": zones.words(extension.due_at, zone_name) or None,
        "extra_attempts": extension.extra_attempts,
        "waive_penalty": extension.waive_penalty,
    }


def _affected(session: Session, extension: Extension) -> tuple[list[int], list[Slot]]:
    """The students and slots whose lateness an extension decides."""
    if extension.user_id is not None:
        users = [extension.user_id]
    else:
        users = list(
            session.scalars(
                sa.select(GroupMember.user_id).where(
                    GroupMember.course_id == extension.course_id,
                    GroupMember.name == extension.group_name,
                )
            )
        )
    slots = [extension.slot] if extension.slot is not None else list(extension.assignment.slots)
    return users, slots


def relate(session: Session, users: list[int], slots: list[Slot]) -> list[dict[str, Any]]:
    """After the students' terms in the slots changed (an extension given, removed or a group's
    members changed): their graded work in the slots is late again as `lateness_for` says now,
    and, since lateness decides the slip days spent, their late work anywhere in the course
    spends them again in the order it was submitted (`_replay`). Marks changed scores for the
    LMS; the changes, for the audit log."""
    if not users or not slots:
        return []
    return _replay(session, slots[0].assignment.course_id, users, [s.id for s in slots])


def _late_again(
    row: Attempt | Submission, owner: int, slot: Slot, score: float, slip_before: int
) -> dict[str, Any] | None:
    """Stores the row's lateness as `lateness_for` gives it now; the change for the audit log
    (None: the same days late, slip days and penalty as before)."""
    late = lateness_for(owner, slot, row.created_at)
    before = row.penalty
    same = late.days == row.days_late and late.slip_days == slip_before
    row.days_late, row.penalty, row.slip_days = late.days, late.penalty, late.slip_days
    if same and abs(late.penalty - before) < EPSILON:
        return None
    return {  # the audit log's columns (a regrade's): the credited score before and after
        "attempt_id": row.id if isinstance(row, Attempt) else None,
        "upload_id": row.id if isinstance(row, Submission) else None,
        "user_id": owner,
        "slot_id": slot.id,
        "old": round(score * (1.0 - before), 6),
        "new": round(score * (1.0 - late.penalty), 6),
        "kept": False,
    }


def respend_slip_days(session: Session, course: Course) -> list[dict[str, Any]]:
    """After the course's budget of slip days changed: every student's late graded work (its
    attempts and uploads) spends them again in the order it was submitted, as `lateness_for`
    spent them on arrival, under the new budget as if it had held all term. A larger budget
    turns penalties into slip days; a smaller one turns the slip days past it back into the
    penalty. Marks changed scores for the LMS; the changes, for the audit log."""
    return _replay(session, course.id, None, [])


def _replay(
    session: Session, course_id: int, users: list[int] | None, slot_ids: list[int]
) -> list[dict[str, Any]]:
    """The graded work of ``users`` (None: everyone) in the course that is late, or is in
    ``slot_ids`` (whose terms changed, so it may now be late), made late again in the order it
    was submitted, from no slip days spent: each row spends what the rows before it left, as
    on arrival. Marks changed scores for the LMS; the changes, for the audit log."""
    session.flush()
    in_course = Assignment.course_id == course_id
    attempt_rows = (Attempt.days_late > 0) | Exercise.slot_id.in_(slot_ids)
    upload_rows = (Submission.days_late > 0) | Submission.slot_id.in_(slot_ids)
    if users is not None:
        attempt_rows &= Attempt.user_id.in_(users)
        upload_rows &= Submission.owner_id.in_(users)
    attempts = session.scalars(
        sa.select(Attempt)
        .join(Exercise, Attempt.exercise_id == Exercise.id)
        .join(Slot, Exercise.slot_id == Slot.id)
        .join(Assignment, Slot.assignment_id == Assignment.id)
        .where(in_course, Exercise.variant == 0, attempt_rows)
    )
    uploads = session.scalars(
        sa.select(Submission)
        .join(Slot, Submission.slot_id == Slot.id)
        .join(Assignment, Slot.assignment_id == Assignment.id)
        .where(in_course, upload_rows)
    )
    rows: list[tuple[Attempt | Submission, int, Slot, float]] = [
        (a, a.user_id, a.exercise.slot, a.score) for a in attempts if a.exercise.slot
    ]
    rows += [
        (s, s.owner_id, s.slot, (s.score or 0.0) / s.max_score if s.max_score else 0.0)
        for s in uploads
    ]
    rows.sort(key=lambda r: (r[0].created_at, isinstance(r[0], Submission), r[0].id))
    spent = [row.slip_days for row, *_ in rows]
    for row, *_ in rows:  # the replay spends from none spent
        row.slip_days = 0
    session.flush()
    changed = []
    for (row, owner, slot, score), before in zip(rows, spent, strict=True):
        change = _late_again(row, owner, slot, score, before)
        session.flush()  # what the next row's `slip_days_available` reads
        if change is not None:
            changed.append(change)
    outbox.passback_after_commit(session, [(c["user_id"], c["slot_id"]) for c in changed])
    return changed


def _audit(
    session: Session,
    course: Course,
    actor_id: int | None,
    what: str,
    changes: dict[str, Any],
    details: list[dict[str, Any]],
    slot: Slot | None,
) -> None:
    session.add(
        Regrade(
            course_id=course.id,
            slot_id=slot.id if slot is not None else None,
            actor_id=actor_id,
            what=what[:300],
            changes=changes,
            attempts_total=len(details),
            attempts_changed=len(details),
            details=details,
        )
    )


def grant_in(
    session: Session, actor_id: int | None, course: Course, data: ExtensionInput
) -> Extension:
    """Stores an extension inside the caller's transaction (checked; Invalid says why not)."""
    assignment = session.get(Assignment, data.assignment_id)
    if assignment is None or assignment.course_id != course.id:
        raise NotFound("no such assignment in this course")
    slot, due = _check(data, assignment)
    user = _student(session, course.id, data.email) if data.email is not None else None
    group = None
    if data.group is not None:
        group = data.group.strip()[:100]
        if not session.scalar(
            sa.select(sa.func.count(GroupMember.id)).where(
                GroupMember.course_id == course.id, GroupMember.name == group
            )
        ):
            raise Invalid(f"the course has no group called {group!r}")
    extension = Extension(
        course_id=course.id,
        assignment=assignment,
        slot=slot,
        user_id=user.id if user else None,
        group_name=group,
        due_at=due,
        extra_attempts=data.extra_attempts,
        waive_penalty=data.waive_penalty,
        created_by_id=actor_id,
        created_at=utcnow(),
    )
    session.add(extension)
    session.flush()
    details = relate(session, *_affected(session, extension))
    described = _describe(extension, user.email if user else None, course.timezone)
    _audit(
        session,
        course,
        actor_id,
        f"Extension for {described['who']}: {described['where']}",
        {"extension": [None, described]},
        details,
        slot,
    )
    return extension


def grant(actor: User | None, course_id: int, data: ExtensionInput) -> Extension:
    """An extension granted by one of the course's instructors, or by the server's operator
    (`actor` None: `grader course extend`)."""
    if actor is not None:
        staff(actor, course_id, change=True)
    with writing() as session:
        course = course_in(session, course_id)
        return grant_in(session, actor.id if actor else None, course, data)


def remove(actor: User, course_id: int, extension_id: int) -> tuple[str, int]:
    """Removes an extension (instructors only); the students' lateness is recomputed. Its
    description, for the page's message, and its assignment's id."""
    staff(actor, course_id, change=True)
    with writing() as session:
        extension = session.get(Extension, extension_id)
        if extension is None or extension.course_id != course_id:
            raise NotFound("no such extension")
        course = session.get_one(Course, course_id)
        described = _describe(
            extension, extension.user.email if extension.user else None, course.timezone
        )
        users, slots = _affected(session, extension)
        assignment_id = extension.assignment_id
        session.delete(extension)
        details = relate(session, users, slots)
        _audit(
            session,
            course,
            actor.id,
            f"Extension removed for {described['who']}: {described['where']}",
            {"extension": [described, None]},
            details,
            extension.slot,
        )
    text = f"Removed the extension for {described['who']} on {described['where']}."
    return text, assignment_id


@dataclass(frozen=True)
class ExtensionRow:
    """An extension as staff pages list it."""

    id: int
    who: str
    assignment_id: int
    assignment: str
    slot: str | None
    due_at: dt.datetime | None
    extra_attempts: int
    waive_penalty: bool


def listing(actor: User, course_id: int, assignment_id: int | None = None) -> list[ExtensionRow]:
    """The course's extensions (or one assignment's), for its staff."""
    staff(actor, course_id)
    query = (
        sa.select(Extension, User.email)
        .outerjoin(User, Extension.user_id == User.id)
        .where(Extension.course_id == course_id)
        .order_by(Extension.assignment_id, Extension.id)
    )
    if assignment_id is not None:
        query = query.where(Extension.assignment_id == assignment_id)
    return [
        ExtensionRow(
            id=e.id,
            who=email or f"group {e.group_name}",
            assignment_id=e.assignment_id,
            assignment=e.assignment.title,
            slot=f"exercise {e.slot.index + 1} ({e.slot.name})" if e.slot is not None else None,
            due_at=e.due_at,
            extra_attempts=e.extra_attempts,
            waive_penalty=e.waive_penalty,
        )
        for e, email in db.session.execute(query)
    ]


def set_group(actor: User, course_id: int, name: str, emails: Iterable[str]) -> int:
    """Names a group of the course's students (its members are replaced); the count. The
    lateness of its members' work is recomputed under the group's extensions."""
    staff(actor, course_id, change=True)
    name = (name or "").strip()
    if not name or len(name) > 100:
        raise Invalid("a group's name is 1 to 100 characters")
    with writing() as session:
        members = {_student(session, course_id, e).id for e in emails if e.strip()}
        before = set(
            session.scalars(
                sa.select(GroupMember.user_id).where(
                    GroupMember.course_id == course_id, GroupMember.name == name
                )
            )
        )
        session.execute(
            sa.delete(GroupMember).where(
                GroupMember.course_id == course_id, GroupMember.name == name
            )
        )
        for user_id in sorted(members):
            session.add(GroupMember(course_id=course_id, name=name, user_id=user_id))
        extensions = session.scalars(
            sa.select(Extension).where(
                Extension.course_id == course_id, Extension.group_name == name
            )
        )
        for extension in extensions:
            relate(session, sorted(before | members), _affected(session, extension)[1])
    return len(members)


# -- the accommodations list: a CSV checked whole before anything is applied --------------------


@dataclass
class ImportOutcome:
    applied: int = 0
    errors: list[str] = field(default_factory=list)


def _int(text: str, what: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise Invalid(f"{what} {text[:20]!r} is not a whole number") from None


def import_accommodations(
    actor: User, assignment_id: int, text: str, *, slot_index: int | None = None
) -> ImportOutcome:
    """An accommodations list for an assignment: CSV rows `email, days or date, extra attempts`
    (a header row naming `email` is skipped; a date is read in the course's time zone). Every
    row is checked first; with any unknown e-mail or bad row, nothing is applied and each is
    listed with its line number."""
    as_staff, assignment = staff_for_assignment(actor, assignment_id, change=True)
    course = as_staff.course
    lines = list(csv.reader(io.StringIO(text or "")))
    if len(lines) > MAX_IMPORT_ROWS:
        raise Invalid(f"at most {MAX_IMPORT_ROWS} rows at a time")
    outcome = ImportOutcome()
    wanted: list[ExtensionInput] = []
    for number, row in enumerate(lines, start=1):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if number == 1 and cells[0].lower() in {"email", "e-mail"}:
            continue
        try:
            if len(cells) > 3:
                raise Invalid("a row has at most 3 cells: email, days or date, extra attempts")
            email, when, extra = [*cells, "", "", ""][:3]
            if not email:
                raise Invalid("no e-mail")
            days = due = None
            if when:
                if when.lstrip("+").isdigit():
                    days = _int(when, "days")
                else:
                    due = zones.parse(when, course.timezone, end_of_day=True)
            data = ExtensionInput(
                assignment_id=assignment.id,
                email=email,
                slot_index=slot_index,
                due_at=due,
                days=days,
                extra_attempts=_int(extra, "extra attempts") or 0,
            )
            _check(data, assignment)
            _student(db.session, course.id, email)
        except Invalid as error:
            outcome.errors.append(f"line {number}: {error}")
            continue
        wanted.append(data)
    if outcome.errors:
        return outcome
    if not wanted:
        raise Invalid("the list has no rows")
    with writing() as session:
        fresh = session.get_one(Course, course.id)
        for data in wanted:
            grant_in(session, actor.id, fresh, data)
    outcome.applied = len(wanted)
    return outcome


@dataclass(frozen=True)
class Dues:
    """A student's own terms on the assignments a page shows: per assignment, per slot."""

    assignments: dict[int, Deadline]
    slots: dict[int, Deadline]


def dues(user_id: int, assignments: Iterable[Assignment]) -> Dues:
    assignments = list(assignments)
    found: dict[int, list[Extension]] = {}
    if assignments:
        for extension in extensions_in(user_id, assignments):
            found.setdefault(extension.assignment_id, []).append(extension)
    by_assignment: dict[int, Deadline] = {}
    by_slot: dict[int, Deadline] = {}
    for assignment in assignments:
        mine = found.get(assignment.id, [])
        whole = [e for e in mine if e.slot_id is None]
        by_assignment[assignment.id] = _deadline(assignment.due_at, None, whole)
        for slot in assignment.slots:
            here = [e for e in mine if e.slot_id in (None, slot.id)]
            by_slot[slot.id] = _deadline(slot.effective_due_at, slot.attempts_allowed, here)
    return Dues(by_assignment, by_slot)


def extensions_in(user_id: int, assignments: list[Assignment]) -> list[Extension]:
    """Every extension of the student's on the assignments, in one query."""
    courses = {a.course_id for a in assignments}
    return list(
        db.session.scalars(
            sa.select(Extension)
            .where(
                Extension.assignment_id.in_([a.id for a in assignments]),
                sa.or_(
                    Extension.user_id == user_id,
                    sa.tuple_(Extension.course_id, Extension.group_name).in_(
                        sa.select(GroupMember.course_id, GroupMember.name).where(
                            GroupMember.user_id == user_id, GroupMember.course_id.in_(courses)
                        )
                    ),
                ),
            )
            .order_by(Extension.id)
        )
    )


@dataclass(frozen=True)
class SlipStanding:
    """A student's slip days as their pages show them."""

    budget: dict[int, int]  # course id -> slip days per student
    left: dict[int, int]  # course id -> days the student has left
    used: dict[int, int]  # assignment id -> days the student used on it


def slip_standing(user_id: int, assignments: Iterable[Assignment]) -> SlipStanding:
    budget: dict[int, int] = {}
    used: dict[int, int] = {}
    for assignment in assignments:
        budget[assignment.course_id] = assignment.course.slip_days
    spent: dict[int, int] = {}
    for course_id in budget:
        for (_, assignment_id), days in slip_days_used(course_id, user_id).items():
            used[assignment_id] = days
            spent[course_id] = spent.get(course_id, 0) + days
    left = {c: max(0, b - spent.get(c, 0)) for c, b in budget.items()}
    return SlipStanding(budget, left, used)
