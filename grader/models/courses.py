"""Courses: a course, its members and invitations, its assignments and their slots (and what a
slot holds, `SLOT_KINDS`), its audit log (`AuditEntry`), its students' problem reports, and the deadlines' own
rows: named groups and extensions (services/courses/)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from grader.gametree import KINDS
from grader.models.accounts import INSTRUCTOR, STUDENT, TA, User
from grader.models.base import JSON, Base, JobColumns, utcnow

COURSE_ROLES = (STUDENT, TA, INSTRUCTOR)  # a membership's role; TAs read, instructors change
STAFF_ROLES = (TA, INSTRUCTOR)
SCORE_POLICIES = ("best", "last")  # which attempt of a slot counts in the gradebook


class Course(Base):
    __tablename__ = "course"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(200))
    join_code: Mapped[str] = mapped_column(sa.String(32), unique=True)
    join_code_expires_at: Mapped[dt.datetime | None]  # None: the code never expires
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    # The academic-integrity pages are the instructors'; this lets the course's TAs read them.
    integrity_ta: Mapped[bool] = mapped_column(default=False, server_default=sa.false())
    # The IANA zone its dates are typed and shown in (stored UTC): services/courses/zones.py.
    timezone: Mapped[str] = mapped_column(sa.String(64), default="UTC", server_default="UTC")
    # Late days each student may spend, without penalty, over the term (slip_days.py).
    slip_days: Mapped[int] = mapped_column(default=0, server_default="0")
    # Archived: read-only (no attempt, no upload); its students' personal data is purged
    # GRADER_RETENTION_DAYS later (services/data/retention.py), which sets `purged_at`.
    archived_at: Mapped[dt.datetime | None]
    purged_at: Mapped[dt.datetime | None]

    memberships: Mapped[list[Membership]] = relationship(back_populates="course")
    assignments: Mapped[list[Assignment]] = relationship(
        back_populates="course", order_by="Assignment.id"
    )


class Membership(Base):
    __tablename__ = "membership"
    __table_args__ = (sa.UniqueConstraint("user_id", "course_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"))
    course_id: Mapped[int] = mapped_column(
        sa.ForeignKey("course.id", ondelete="CASCADE"), index=True
    )
    role: Mapped[str] = mapped_column(sa.String(16), default=STUDENT)
    # The name a roster gave this person in this course (never written to the account).
    name: Mapped[str | None] = mapped_column(sa.String(200))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    user: Mapped[User] = relationship()
    course: Mapped[Course] = relationship(back_populates="memberships")


class Invite(Base):
    """A course's invitation of one account to a role: the only way a roster adds a person (they
    accept it), claims an account the roster made (sets its first password) or gives a staff
    role. Single use, expiring, stored hashed."""

    __tablename__ = "invite"

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(
        sa.ForeignKey("course.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(sa.String(16), default=STUDENT)
    # The link's token is an HMAC of this nonce under the secret key, so the instructor can
    # download the links again; the database alone (a leak, a backup) holds no link.
    nonce: Mapped[str] = mapped_column(sa.String(32))
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    created_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("user.id", ondelete="SET NULL"))
    # The link also sets the account's first password: made by the action that made the account,
    # and honoured only while the account is still `User.claimable`.
    claims: Mapped[bool] = mapped_column(default=False, server_default="0")
    # The name the roster gave the person, the membership's once they accept.
    name: Mapped[str | None] = mapped_column(sa.String(200))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[dt.datetime]
    accepted_at: Mapped[dt.datetime | None]

    user: Mapped[User] = relationship(foreign_keys=[user_id])
    course: Mapped[Course] = relationship()


class Assignment(Base):
    __tablename__ = "assignment"

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(
        sa.ForeignKey("course.id", ondelete="CASCADE"), index=True
    )
    title: Mapped[str] = mapped_column(sa.String(200))
    preset: Mapped[str | None] = mapped_column(sa.String(100))
    release_at: Mapped[dt.datetime | None]  # students see it from then on; None: at once
    due_at: Mapped[dt.datetime | None]
    # None: no attempt after the due date; else late attempts lose this percent per day late.
    late_percent_per_day: Mapped[float | None]
    score_policy: Mapped[str] = mapped_column(sa.String(8), default="best", server_default="best")
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    # Scores and keys held from students (graded on arrival, staff see them) until
    # `scores_release_at`, or, when that is None, each student's own due date.
    hold_scores: Mapped[bool] = mapped_column(default=False, server_default=sa.false())
    scores_release_at: Mapped[dt.datetime | None]
    # The last release the worker's sweep sent to the LMS (services/lti/passback.py).
    scores_sent_at: Mapped[dt.datetime | None]

    course: Mapped[Course] = relationship(back_populates="assignments")
    slots: Mapped[list[Slot]] = relationship(back_populates="assignment", order_by="Slot.index")


class Slot(Base):
    """One exercise of an assignment: the kind, how to generate each student's tree, the rules."""

    __tablename__ = "slot"
    __table_args__ = (sa.UniqueConstraint("assignment_id", "index"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(sa.ForeignKey("assignment.id", ondelete="CASCADE"))
    index: Mapped[int]
    title: Mapped[str | None] = mapped_column(sa.String(200))
    kind: Mapped[str] = mapped_column(sa.String(32))
    params: Mapped[JSON] = mapped_column(sa.JSON)
    conventions: Mapped[JSON] = mapped_column(sa.JSON)
    attempts_allowed: Mapped[int | None]  # None: unlimited
    practice_allowed: Mapped[bool] = mapped_column(default=False)
    replay_allowed: Mapped[bool] = mapped_column(default=False)
    due_at: Mapped[dt.datetime | None]  # overrides the assignment's
    # A fixed (textbook) exercise: {"tree": nested, "players": [...]}, every student's variant.
    tree: Mapped[JSON | None] = mapped_column(sa.JSON(none_as_null=True))

    assignment: Mapped[Assignment] = relationship(back_populates="slots")

    @property
    def effective_due_at(self) -> dt.datetime | None:
        return self.due_at or self.assignment.due_at

    @property
    def slot_kind(self) -> SlotKind:
        return SLOT_KINDS[self.kind]

    @property
    def name(self) -> str:
        """The slot as pages, the gradebook's column and the LMS's item name it: its title, or
        its kind's ("Order of evaluation")."""
        return self.title or self.slot_kind.title


ENGINE_KIND = "engine"  # Slot.kind of an engine slot; Slot.params: {"suite": "quick"}


@dataclass(frozen=True)
class SlotKind:
    """What an assignment's slot holds, registered in `SLOT_KINDS` under `Slot.kind`: an
    exercise of a tree exercise kind (`gametree.KINDS`), or an engine. Pages, grading, the
    gradebook and the LMS ask the slot's kind (`Slot.slot_kind`), never compare its name."""

    name: str
    # What pages call it: the exercise kind's title ("Order of evaluation"), "Checkers engine".
    title: str
    # The student answers an exercise of the kind, graded at once by it (`attempts.submit`);
    # else the student uploads an engine that a worker grades (`submissions.upload`).
    has_exercise: bool
    # What a slot's count in the gradebook and its pages counts: "attempt", "graded upload".
    work: str

    def tally(self, count: int, allowed: int | None = None) -> str:
        """A student's count of work in a slot, in words: "2 / 3 attempts", "1 graded upload"."""
        out_of = f" / {allowed}" if allowed else ""
        plural = "" if count == 1 and not allowed else "s"
        return f"{count}{out_of} {self.work}{plural}"


def _tree_slot(name: str) -> SlotKind:
    return SlotKind(name, KINDS[name].title, True, "attempt")


SLOT_KINDS: dict[str, SlotKind] = {
    **{name: _tree_slot(name) for name in KINDS},
    ENGINE_KIND: SlotKind(
        ENGINE_KIND,
        "Checkers engine",
        False,
        "graded upload",
    ),
}


class AuditEntry(Base):
    """An entry of a course's audit log: who changed what counts (a regrade of a slot, an
    extension, the slip days' budget) and what it did to the scores. The table keeps the name it
    had when regrades were all it held."""

    __tablename__ = "regrade"

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(
        sa.ForeignKey("course.id", ondelete="CASCADE"), index=True
    )
    slot_id: Mapped[int | None] = mapped_column(sa.ForeignKey("slot.id", ondelete="SET NULL"))
    actor_id: Mapped[int | None] = mapped_column(sa.ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    what: Mapped[str] = mapped_column(sa.String(300))  # "Assignment 2, slot 1: conventions ..."
    changes: Mapped[JSON] = mapped_column(sa.JSON)  # {"field": [before, after]}
    allow_lower: Mapped[bool] = mapped_column(default=False)
    attempts_total: Mapped[int] = mapped_column(default=0)
    attempts_changed: Mapped[int] = mapped_column(default=0)
    # One row per attempt whose score or penalty changed: id, user, old, new, kept.
    details: Mapped[list[Any]] = mapped_column(sa.JSON)

    actor: Mapped[User | None] = relationship()


# A term regrade's choice once its preview is read (services/teaching/term_regrade.py).
REPLACE, KEEP_HIGHER, DISCARD = "replace", "keep_higher", "discard"
REGRADE_CHOICES = (REPLACE, KEEP_HIGHER, DISCARD)


class TermRegrade(JobColumns, Base):
    """A regrade of a course, an assignment or a slot, asked by its staff: computed by a worker
    at low priority under a lease (services/leases/) into a preview (`result`: per student the
    old and new points and what changed), nothing applied until the staff choose (`choice`:
    replace, keep the higher, or discard)."""

    __tablename__ = "term_regrade"

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(
        sa.ForeignKey("course.id", ondelete="CASCADE"), index=True
    )
    # The scope: a slot (both set), an assignment (slot None) or the course (both None).
    assignment_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("assignment.id", ondelete="CASCADE")
    )
    slot_id: Mapped[int | None] = mapped_column(sa.ForeignKey("slot.id", ondelete="CASCADE"))
    requested_by_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("user.id", ondelete="SET NULL")
    )
    reason: Mapped[str] = mapped_column(sa.String(300))  # told to each student it changes
    result: Mapped[JSON | None] = mapped_column(sa.JSON(none_as_null=True))  # the preview
    choice: Mapped[str | None] = mapped_column(sa.String(16))  # REGRADE_CHOICES; None: open
    chosen_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("user.id", ondelete="SET NULL"))
    chosen_at: Mapped[dt.datetime | None]

    course: Mapped[Course] = relationship()
    requested_by: Mapped[User | None] = relationship(foreign_keys=[requested_by_id])


class ScoreNote(Base):
    """What a student is told on their dashboard when staff change a score of theirs (a term
    regrade applied): which exercise, the old and new points, and why, in words."""

    __tablename__ = "score_note"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)
    course_id: Mapped[int] = mapped_column(
        sa.ForeignKey("course.id", ondelete="CASCADE"), index=True
    )
    slot_id: Mapped[int | None] = mapped_column(sa.ForeignKey("slot.id", ondelete="SET NULL"))
    text: Mapped[str] = mapped_column(sa.Text)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    course: Mapped[Course] = relationship()
    slot: Mapped[Slot | None] = relationship()


REPORT_TEXT_MAX = 2000  # characters of a report and of its answer


class ProblemReport(Base):
    """A student's report of a problem with an exercise of a course (one of its slots): their
    words, the attempt or engine upload it concerns, and the staff's answer (None: open)."""

    __tablename__ = "problem_report"

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(
        sa.ForeignKey("course.id", ondelete="CASCADE"), index=True
    )
    slot_id: Mapped[int] = mapped_column(sa.ForeignKey("slot.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)
    exercise_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("exercise.id", ondelete="SET NULL")
    )
    attempt_id: Mapped[int | None] = mapped_column(sa.ForeignKey("attempt.id", ondelete="SET NULL"))
    submission_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("submission.id", ondelete="SET NULL")
    )
    text: Mapped[str] = mapped_column(sa.Text)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    answer: Mapped[str | None] = mapped_column(sa.Text)
    answered_by_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("user.id", ondelete="SET NULL")
    )
    answered_at: Mapped[dt.datetime | None]
    # The staff's e-mail, sent by the queue: the inbox's address as the filing request named the
    # site (None: no e-mail to send), when it went, its job's last wake-up and tries.
    mail_link: Mapped[str | None] = mapped_column(sa.String(500))
    mailed_at: Mapped[dt.datetime | None]
    mail_woken_at: Mapped[dt.datetime | None]
    mail_tries: Mapped[int] = mapped_column(default=0, server_default="0")

    course: Mapped[Course] = relationship()
    slot: Mapped[Slot] = relationship()
    user: Mapped[User] = relationship(foreign_keys=[user_id])
    answered_by: Mapped[User | None] = relationship(foreign_keys=[answered_by_id])


# -- deadlines: extensions and accommodations (services/courses/) ---------------------------------


class GroupMember(Base):
    """One student in a course's named group ("accommodations 1.5x"), which an extension may
    name instead of one student."""

    __tablename__ = "group_member"
    __table_args__ = (sa.UniqueConstraint("course_id", "name", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(
        sa.ForeignKey("course.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(sa.String(100))
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)

    user: Mapped[User] = relationship()


class Extension(Base):
    """A later due date, extra attempts or a waived late penalty for one student or one named
    group, on an assignment (`slot_id` None) or one of its slots. Read only through
    `services.courses.deadlines`, which every due date and attempt limit goes through."""

    __tablename__ = "extension"

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(
        sa.ForeignKey("course.id", ondelete="CASCADE"), index=True
    )
    assignment_id: Mapped[int] = mapped_column(
        sa.ForeignKey("assignment.id", ondelete="CASCADE"), index=True
    )
    slot_id: Mapped[int | None] = mapped_column(sa.ForeignKey("slot.id", ondelete="CASCADE"))
    # Exactly one of the two: one student, or every member of a named group.
    user_id: Mapped[int | None] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"))
    group_name: Mapped[str | None] = mapped_column(sa.String(100))
    due_at: Mapped[dt.datetime | None]  # the student's due date (UTC); None: the class's
    extra_attempts: Mapped[int] = mapped_column(default=0, server_default="0")
    waive_penalty: Mapped[bool] = mapped_column(default=False, server_default=sa.false())
    created_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    user: Mapped[User | None] = relationship(foreign_keys=[user_id])
    assignment: Mapped[Assignment] = relationship()
    slot: Mapped[Slot | None] = relationship()
