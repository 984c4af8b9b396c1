"""The stored things: users, courses, assignments and their slots, exercises and attempts."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, ClassVar

import sqlalchemy as sa
from flask_login import UserMixin
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from grader.gametree import KINDS

STUDENT = "student"
INSTRUCTOR = "instructor"
TA = "ta"
ROLES = (STUDENT, INSTRUCTOR)
COURSE_ROLES = (STUDENT, TA, INSTRUCTOR)  # a membership's role; TAs read, instructors change
STAFF_ROLES = (TA, INSTRUCTOR)
SCORE_POLICIES = ("best", "last")  # which attempt of a slot counts in the gradebook

JSON = dict[str, Any]
MAX_ID = 2**63 - 1  # the largest id the database stores (a 64-bit signed integer)


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def iso_utc(moment: dt.datetime | None) -> str | None:
    """A stored time (naive, UTC) as the API writes it: ISO 8601 with a Z."""
    return moment.isoformat() + "Z" if moment is not None else None


class Base(DeclarativeBase):
    # Named constraints: Alembic's batch mode on SQLite needs names to alter them later.
    metadata = sa.MetaData(
        naming_convention={
            "ix": "ix_%(column_0_label)s",
            "uq": "uq_%(table_name)s_%(column_0_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )


class User(UserMixin, Base):
    __tablename__ = "user"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(sa.String(254), unique=True)
    name: Mapped[str | None] = mapped_column(sa.String(200))  # from a roster import
    password_hash: Mapped[str | None] = mapped_column(sa.String(255))
    role: Mapped[str] = mapped_column(sa.String(16), default=STUDENT)
    # Part of every session and remember cookie (Flask-Login's alternative id): raising it
    # (sign out, sign out everywhere, a new password) makes every earlier cookie worthless.
    session_version: Mapped[int] = mapped_column(default=0, server_default="0")
    # An administrator of the service (given only on the server: `grader user admin`): registers
    # the LMSs, whose URLs the service's workers call. Not a course role.
    is_admin: Mapped[bool] = mapped_column(default=False, server_default="0")
    # True only for an account a roster action made, while nobody has had a way into it (no
    # sign-in, password, API token or LMS identity); the first of those turns it off for good.
    # Only such an account is claimed by an invite link, and only by the one its maker holds.
    claimable: Mapped[bool] = mapped_column(default=False, server_default="0")
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    # The second factor (RFC 6238 TOTP, base32), once its owner confirmed a code; None: none.
    totp_secret: Mapped[str | None] = mapped_column(sa.String(64))
    # The last time step whose code signed in: a code is good once, never again in its window.
    totp_last_step: Mapped[int | None] = mapped_column(sa.BigInteger)
    # Set when the account was erased (services/data/erasure.py): its personal data is gone, the
    # row stays only as the owner of anonymous attempts. None: a live account.
    erased_at: Mapped[dt.datetime | None]
    # The secret of the account's calendar feed URL (an HMAC of it under the secret key): a new
    # one (a reset) makes the old URL worthless. None: no feed made yet.
    calendar_nonce: Mapped[str | None] = mapped_column(sa.String(32))

    memberships: Mapped[list[Membership]] = relationship(back_populates="user")

    @property
    def is_instructor(self) -> bool:
        return self.role == INSTRUCTOR

    def get_id(self) -> str:
        return f"{self.id}:{self.session_version}"

    def __repr__(self) -> str:
        return f"<User {self.email} {self.role}>"


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
    # Late days each student may spend, without penalty, over the term (deadlines.py).
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

    user: Mapped[User] = relationship(back_populates="memberships")
    course: Mapped[Course] = relationship(back_populates="memberships")


class ApiToken(Base):
    """A personal API token: stored as its sha256 (the token is shown once), with an expiry and
    the scopes it carries (`accounts.SCOPES`, space-separated)."""

    __tablename__ = "api_token"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(sa.String(100))
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[dt.datetime]
    # Written at most once a minute per token (`accounts.user_for_token`), not at every request.
    last_used_at: Mapped[dt.datetime | None]
    # A row made without scopes holds all three: what every token could do before tokens had
    # scopes (the service always names them for a new one).
    scopes: Mapped[str] = mapped_column(sa.String(64), server_default="read submit staff")

    user: Mapped[User] = relationship()


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


class Exercise(Base):
    """A concrete tree given to one person: a slot's variant, or a practice exercise (no slot)."""

    __tablename__ = "exercise"
    __table_args__ = (sa.UniqueConstraint("slot_id", "owner_id", "variant"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)
    slot_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("slot.id", ondelete="CASCADE"), index=True
    )
    variant: Mapped[int] = mapped_column(default=0)  # 0: the graded one; 1, 2...: practice
    kind: Mapped[str] = mapped_column(sa.String(32))
    # Generated trees keep what rebuilds them; typed trees have no seed.
    seed: Mapped[str | None] = mapped_column(sa.String(64))
    generator_version: Mapped[str | None] = mapped_column(sa.String(32))
    params: Mapped[JSON | None] = mapped_column(sa.JSON)
    tree: Mapped[list[Any]] = mapped_column(sa.JSON)
    players: Mapped[list[Any]] = mapped_column(sa.JSON)
    conventions: Mapped[JSON] = mapped_column(sa.JSON)
    # What decides whether grading an answer is costly, so an attempt is refused before its
    # tree is built (`costly.grading_facts`): the stored tree's nodes; best-order: `dp_size`.
    node_count: Mapped[int]
    dp_size: Mapped[int | None]
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    owner: Mapped[User] = relationship()
    slot: Mapped[Slot | None] = relationship()

    @property
    def is_practice(self) -> bool:
        return self.slot_id is None or self.variant > 0


class Attempt(Base):
    """A graded answer, with what rebuilds the exercise it answered."""

    __tablename__ = "attempt"
    # With the score: the count and best score of a student's attempts (asked under the write
    # lock at every graded attempt) come from the index alone.
    __table_args__ = (
        sa.Index("ix_attempt_exercise_user_score", "exercise_id", "user_id", "score"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    exercise_id: Mapped[int] = mapped_column(sa.ForeignKey("exercise.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)
    answer: Mapped[JSON] = mapped_column(sa.JSON)
    score: Mapped[float]
    parts: Mapped[JSON] = mapped_column(sa.JSON)
    feedback: Mapped[list[Any]] = mapped_column(sa.JSON)
    diagnosis: Mapped[str | None] = mapped_column(sa.String(64))
    diagnosis_text: Mapped[str | None] = mapped_column(sa.Text)
    first_wrong: Mapped[JSON | None] = mapped_column(sa.JSON(none_as_null=True))
    # How the score came about (`Grade.scoring`: the errors counted, or best-order's leaves);
    # None for an answer a regrade found no longer fitting its exercise, and where revision
    # 3f1b2c4d5e6a, which filled it in, could not grade the stored answer again to its score.
    scoring: Mapped[JSON | None] = mapped_column(sa.JSON(none_as_null=True))
    # Copied from the exercise so the attempt alone says what it was graded against.
    kind: Mapped[str] = mapped_column(sa.String(32))
    seed: Mapped[str | None] = mapped_column(sa.String(64))
    generator_version: Mapped[str | None] = mapped_column(sa.String(32))
    conventions: Mapped[JSON] = mapped_column(sa.JSON)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    # Lateness from server time at creation, recomputed by a regrade: whole days started after
    # the due date, and the fraction of the score it takes off (0..1).
    days_late: Mapped[int] = mapped_column(default=0, server_default="0")
    penalty: Mapped[float] = mapped_column(default=0.0, server_default="0")
    # Of the days late, those the student's slip days covered (no penalty for them).
    slip_days: Mapped[int] = mapped_column(default=0, server_default="0")
    regraded_at: Mapped[dt.datetime | None]
    # An answer written on a printed exam sheet, typed in by a TA or instructor (None: the
    # student's own), and every entry of it, oldest first, the last the current one:
    # [{"answer", "score", "entered_by", "entered_at"}] (services/paper/exams.py).
    entered_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("user.id", ondelete="SET NULL"))
    history: Mapped[list[Any] | None] = mapped_column(sa.JSON(none_as_null=True))

    exercise: Mapped[Exercise] = relationship()
    user: Mapped[User] = relationship(foreign_keys=[user_id])
    entered_by: Mapped[User | None] = relationship(foreign_keys=[entered_by_id])

    # The one list of what a grade fills (a `gametree.Grade.to_dict()`) and of what an attempt
    # copies from its exercise: for storing, regrading and the API alike.
    GRADED: ClassVar[tuple[str, ...]] = (
        "score",
        "parts",
        "feedback",
        "diagnosis",
        "diagnosis_text",
        "first_wrong",
        "scoring",
    )
    FROM_EXERCISE: ClassVar[tuple[str, ...]] = ("kind", "seed", "generator_version", "conventions")

    @property
    def credited(self) -> float:
        """The score after the late penalty: what the gradebook counts."""
        return self.score * (1.0 - self.penalty)


class Regrade(Base):
    """The audit log of regrades: who changed what in a slot and what it did to the scores."""

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


# -- engines: uploads graded by the queue's workers (grader/jobs.py) ---------------------------

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
QUEUED, RUNNING, DONE, FAILED, SUPERSEDED = "queued", "running", "done", "failed", "superseded"
SUBMISSION_STATUSES = (QUEUED, RUNNING, DONE, FAILED, SUPERSEDED)


class Blob(Base):
    """An upload's bytes, stored once under their SHA-256 (the workers read them from here, so
    a worker on another machine needs nothing but the database and the queue)."""

    __tablename__ = "blob"

    sha256: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    size: Mapped[int]
    data: Mapped[bytes] = mapped_column(sa.LargeBinary)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class WorkerBeat(Base):
    """The last sign of life of each `grader worker` (its sweep writes it), for /healthz and
    `grader worker --check`."""

    __tablename__ = "worker_beat"

    name: Mapped[str] = mapped_column(sa.String(100), primary_key=True)  # host:pid
    host: Mapped[str] = mapped_column(sa.String(100), index=True)
    started_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    seen_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class Submission(Base):
    """An engine uploaded to an engine slot, and where its grading stands.

    The status here is the truth; a queue message is only a wake-up. A worker claims a queued
    submission by a conditional UPDATE that sets the lease (`lease_owner`, `lease_expires_at`),
    renews it while grading (`heartbeat_at`), and writes the result only while it still holds
    the lease; a lease that expires (the worker died) sends the submission back to the queue.
    """

    __tablename__ = "submission"
    __table_args__ = (
        sa.Index("ix_submission_slot_owner", "slot_id", "owner_id"),
        sa.Index("ix_submission_status", "status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)
    slot_id: Mapped[int] = mapped_column(sa.ForeignKey("slot.id", ondelete="CASCADE"))
    sha256: Mapped[str] = mapped_column(sa.String(64))
    # The bytes are the Blob of sha256; this is the name of a worker's local copy, relative to
    # its GRADER_UPLOADS_DIR (the suffix says .py or .zip).
    stored_path: Mapped[str] = mapped_column(sa.String(300))
    filename: Mapped[str] = mapped_column(sa.String(200))  # as uploaded, for people
    size: Mapped[int]
    suite: Mapped[str] = mapped_column(sa.String(100))
    status: Mapped[str] = mapped_column(sa.String(16), default=QUEUED)
    priority: Mapped[int] = mapped_column(default=0)  # higher first; regrade-all is low
    attempts: Mapped[int] = mapped_column(default=0)  # claims by a worker (IE and dead workers)
    lease_owner: Mapped[str | None] = mapped_column(sa.String(100))
    lease_expires_at: Mapped[dt.datetime | None]
    heartbeat_at: Mapped[dt.datetime | None]
    enqueued_at: Mapped[dt.datetime | None]  # the last wake-up message sent
    progress: Mapped[JSON | None] = mapped_column(sa.JSON(none_as_null=True))
    score: Mapped[float | None]
    max_score: Mapped[float | None]
    error: Mapped[str | None] = mapped_column(sa.Text)  # why it failed (never the engine's fault)
    tournament_opt_in: Mapped[bool] = mapped_column(default=False)
    days_late: Mapped[int] = mapped_column(default=0)
    penalty: Mapped[float] = mapped_column(default=0.0)
    slip_days: Mapped[int] = mapped_column(default=0, server_default="0")  # as Attempt's
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    started_at: Mapped[dt.datetime | None]
    finished_at: Mapped[dt.datetime | None]

    owner: Mapped[User] = relationship()
    slot: Mapped[Slot] = relationship()


class EngineResult(Base):
    """The one result of a submission (the unique key makes a second one impossible)."""

    __tablename__ = "engine_result"

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        sa.ForeignKey("submission.id", ondelete="CASCADE"), unique=True
    )
    worker: Mapped[str] = mapped_column(sa.String(100))
    gradescope: Mapped[JSON] = mapped_column(sa.JSON)  # results.json
    rich: Mapped[JSON] = mapped_column(sa.JSON)  # every test's measurements, every game's PDN
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class Tournament(Base):
    """A round-robin among the opted-in students' latest graded engines of a slot."""

    __tablename__ = "tournament"

    id: Mapped[int] = mapped_column(primary_key=True)
    slot_id: Mapped[int] = mapped_column(sa.ForeignKey("slot.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(sa.String(16), default=QUEUED)  # queued|running|done
    params: Mapped[JSON] = mapped_column(sa.JSON)  # ballots, time per move, max plies
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[dt.datetime | None]

    slot: Mapped[Slot] = relationship()
    games: Mapped[list[TournamentGame]] = relationship(
        back_populates="tournament", order_by="TournamentGame.id"
    )


class TournamentGame(Base):
    """One game of a tournament: a queue job of its own, leased, renewed and swept like a
    submission (services/leases/)."""

    __tablename__ = "tournament_game"

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(
        sa.ForeignKey("tournament.id", ondelete="CASCADE"), index=True
    )
    black_id: Mapped[int] = mapped_column(sa.ForeignKey("submission.id", ondelete="CASCADE"))
    white_id: Mapped[int] = mapped_column(sa.ForeignKey("submission.id", ondelete="CASCADE"))
    ballot: Mapped[str] = mapped_column(sa.String(20))
    opening: Mapped[list[Any]] = mapped_column(sa.JSON)
    status: Mapped[str] = mapped_column(sa.String(16), default=QUEUED)
    attempts: Mapped[int] = mapped_column(default=0)
    lease_owner: Mapped[str | None] = mapped_column(sa.String(100))
    lease_expires_at: Mapped[dt.datetime | None]
    heartbeat_at: Mapped[dt.datetime | None]
    enqueued_at: Mapped[dt.datetime | None]  # the last wake-up message sent
    started_at: Mapped[dt.datetime | None]
    result: Mapped[str | None] = mapped_column(sa.String(8))  # 1-0, 0-1, 1/2-1/2, *
    termination: Mapped[str | None] = mapped_column(sa.String(200))
    pdn: Mapped[str | None] = mapped_column(sa.Text)
    finished_at: Mapped[dt.datetime | None]

    tournament: Mapped[Tournament] = relationship(back_populates="games")
    black: Mapped[Submission] = relationship(foreign_keys=[black_id])
    white: Mapped[Submission] = relationship(foreign_keys=[white_id])


# -- academic integrity: checks the staff ask for, run by the workers (services/integrity/) ------

ENGINES_CHECK, ANSWERS_CHECK = "engines", "answers"  # IntegrityCheck.kind


class IntegrityCheck(Base):
    """A similarity check of an engine slot's submissions, or the answers check of an
    assignment: asked by the staff, run as a queue job under a lease (services/leases/), its
    result kept for the integrity pages. Nothing it finds changes a score."""

    __tablename__ = "integrity_check"
    __table_args__ = (sa.Index("ix_integrity_check_assignment_kind", "assignment_id", "kind"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(sa.String(16))  # ENGINES_CHECK or ANSWERS_CHECK
    assignment_id: Mapped[int] = mapped_column(sa.ForeignKey("assignment.id", ondelete="CASCADE"))
    slot_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("slot.id", ondelete="CASCADE"), index=True
    )  # the engine slot; None for the answers check (the whole assignment)
    params: Mapped[JSON] = mapped_column(sa.JSON)  # {"earlier": bool}: earlier offerings too
    requested_by_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("user.id", ondelete="SET NULL")
    )
    status: Mapped[str] = mapped_column(sa.String(16), default=QUEUED)
    attempts: Mapped[int] = mapped_column(default=0)  # claims by a worker
    lease_owner: Mapped[str | None] = mapped_column(sa.String(100))
    lease_expires_at: Mapped[dt.datetime | None]
    heartbeat_at: Mapped[dt.datetime | None]
    enqueued_at: Mapped[dt.datetime | None]  # the last wake-up message sent
    progress: Mapped[JSON | None] = mapped_column(sa.JSON(none_as_null=True))
    result: Mapped[JSON | None] = mapped_column(sa.JSON(none_as_null=True))
    error: Mapped[str | None] = mapped_column(sa.Text)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    started_at: Mapped[dt.datetime | None]
    finished_at: Mapped[dt.datetime | None]


class SimilarityPair(Base):
    """Two uploads compared once: by their contents' SHA-256 (`sha_a` < `sha_b`) under one
    `basis` (the boilerplate and the fingerprint settings, hashed), so a later check of the
    same bytes reads the figures instead of comparing them again."""

    __tablename__ = "similarity_pair"
    __table_args__ = (sa.UniqueConstraint("basis", "sha_a", "sha_b"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    basis: Mapped[str] = mapped_column(sa.String(64))
    sha_a: Mapped[str] = mapped_column(sa.String(64))
    sha_b: Mapped[str] = mapped_column(sa.String(64))
    similarity: Mapped[float]
    a_share: Mapped[float]  # the share of a's fingerprinted code that matches b
    b_share: Mapped[float]
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


# -- LTI 1.3: the course's LMS launches the service and receives its grades (services/lti/) --


class LtiKey(Base):
    """The tool's RSA key pair, made once: it signs deep-linking replies and service tokens.

    Kept in the database (not the instance folder) so that every web process and every worker,
    on any machine, signs with the same key the platforms know from the JWKS endpoint.
    """

    __tablename__ = "lti_key"

    id: Mapped[int] = mapped_column(primary_key=True)
    kid: Mapped[str] = mapped_column(sa.String(100), unique=True)
    private_pem: Mapped[str] = mapped_column(sa.Text)
    public_pem: Mapped[str] = mapped_column(sa.Text)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class LtiRegistration(Base):
    """A platform (one LMS and the client id it gave this tool), registered by an instructor."""

    __tablename__ = "lti_registration"
    __table_args__ = (sa.UniqueConstraint("issuer", "client_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    issuer: Mapped[str] = mapped_column(sa.String(255))
    client_id: Mapped[str] = mapped_column(sa.String(255))
    auth_login_url: Mapped[str] = mapped_column(sa.String(500))  # the platform's OIDC auth
    auth_token_url: Mapped[str] = mapped_column(sa.String(500))  # OAuth2 client credentials
    key_set_url: Mapped[str] = mapped_column(sa.String(500))  # the platform's JWKS
    auth_audience: Mapped[str | None] = mapped_column(sa.String(500))  # else the token URL
    # Accounts get the LMS's e-mail addresses (when free here) only if an administrator said the
    # platform vouches for them (CLI --trust-emails); else addresses that receive no mail.
    trust_emails: Mapped[bool] = mapped_column(default=False)
    created_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    deployments: Mapped[list[LtiDeployment]] = relationship(
        back_populates="registration", order_by="LtiDeployment.id", cascade="all, delete-orphan"
    )


class LtiDeployment(Base):
    __tablename__ = "lti_deployment"
    __table_args__ = (sa.UniqueConstraint("registration_id", "deployment_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    registration_id: Mapped[int] = mapped_column(
        sa.ForeignKey("lti_registration.id", ondelete="CASCADE")
    )
    deployment_id: Mapped[str] = mapped_column(sa.String(255))

    registration: Mapped[LtiRegistration] = relationship(back_populates="deployments")


class LtiUser(Base):
    """A platform's user (its `sub`) and the account provisioned for them."""

    __tablename__ = "lti_user"
    __table_args__ = (sa.UniqueConstraint("registration_id", "sub"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    registration_id: Mapped[int] = mapped_column(
        sa.ForeignKey("lti_registration.id", ondelete="CASCADE")
    )
    sub: Mapped[str] = mapped_column(sa.String(255))
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)


class LtiContext(Base):
    """An LMS course (context) and the course it opens here, with its service endpoints."""

    __tablename__ = "lti_context"
    __table_args__ = (sa.UniqueConstraint("registration_id", "context_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    registration_id: Mapped[int] = mapped_column(
        sa.ForeignKey("lti_registration.id", ondelete="CASCADE")
    )
    context_id: Mapped[str] = mapped_column(sa.String(255))
    course_id: Mapped[int] = mapped_column(
        sa.ForeignKey("course.id", ondelete="CASCADE"), index=True
    )
    deployment_id: Mapped[str] = mapped_column(sa.String(255))
    title: Mapped[str | None] = mapped_column(sa.String(255))
    lineitems_url: Mapped[str | None] = mapped_column(sa.String(500))  # AGS, from the last launch
    ags_scopes: Mapped[list[Any] | None] = mapped_column(sa.JSON(none_as_null=True))
    memberships_url: Mapped[str | None] = mapped_column(sa.String(500))  # NRPS
    synced_at: Mapped[dt.datetime | None]

    registration: Mapped[LtiRegistration] = relationship()
    course: Mapped[Course] = relationship()


class LtiResourceLink(Base):
    """A link placed in the LMS (by deep linking, or by its instructor's first launch through
    it): an assignment, or one of its slots, and the gradebook column (AGS line item) its
    scores go to."""

    __tablename__ = "lti_resource_link"
    __table_args__ = (sa.UniqueConstraint("context_id", "resource_link_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    context_id: Mapped[int] = mapped_column(
        sa.ForeignKey("lti_context.id", ondelete="CASCADE"), index=True
    )
    resource_link_id: Mapped[str] = mapped_column(sa.String(255))
    assignment_id: Mapped[int] = mapped_column(
        sa.ForeignKey("assignment.id", ondelete="CASCADE"), index=True
    )
    slot_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("slot.id", ondelete="CASCADE"), index=True
    )  # None: the whole assignment
    lineitem_url: Mapped[str | None] = mapped_column(sa.String(500))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    context: Mapped[LtiContext] = relationship()
    assignment: Mapped[Assignment] = relationship()
    slot: Mapped[Slot | None] = relationship()


class LtiPassback(Base):
    """A student's score of a slot on its way to the LMS: marked in the transaction that changed
    it (so a crash after the commit loses nothing), deleted once every platform took it; the
    worker's sweep queues again what is still here after a while (a lost message, an outage)."""

    __tablename__ = "lti_passback"
    __table_args__ = (sa.UniqueConstraint("user_id", "slot_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"))
    slot_id: Mapped[int] = mapped_column(sa.ForeignKey("slot.id", ondelete="CASCADE"), index=True)
    marked_at: Mapped[dt.datetime]  # the latest change to send
    enqueued_at: Mapped[dt.datetime] = mapped_column(index=True)  # the last wake-up sent
    failures: Mapped[int] = mapped_column(default=0)
    error: Mapped[str | None] = mapped_column(sa.Text)  # the platform's last refusal


class LtiLaunchData(Base):
    """pylti1p3's launch data storage (OIDC nonces and state, validated launches), shared by
    every web process instead of the browser session, which a cross-site POST does not carry."""

    __tablename__ = "lti_launch_data"

    key: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    value: Mapped[Any] = mapped_column(sa.JSON)
    expires_at: Mapped[dt.datetime] = mapped_column(index=True)


class LtiNonce(Base):
    """The nonce of every accepted launch: the unique key refuses a replayed id_token."""

    __tablename__ = "lti_nonce"
    __table_args__ = (sa.UniqueConstraint("registration_id", "nonce"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    registration_id: Mapped[int] = mapped_column(
        sa.ForeignKey("lti_registration.id", ondelete="CASCADE")
    )
    nonce: Mapped[str] = mapped_column(sa.String(255))
    expires_at: Mapped[dt.datetime] = mapped_column(index=True)


PAPER_SIZES = ("a4", "letter")


class ExamPrint(Base):
    """An assignment printed as exam sheets: a queue job, leased like a submission
    (services/leases/), whose result is an archive of PDFs (the Blob of `result_sha256`): one
    per sheet, all sheets in one file for the print shop, and the key."""

    __tablename__ = "exam_print"

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(
        sa.ForeignKey("assignment.id", ondelete="CASCADE"), index=True
    )
    requested_by_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("user.id", ondelete="SET NULL")
    )
    paper: Mapped[str] = mapped_column(sa.String(8), default="a4")
    anonymous: Mapped[int | None]  # N numbered sheets, tied to students when entered; None: roster
    status: Mapped[str] = mapped_column(sa.String(16), default=QUEUED)
    attempts: Mapped[int] = mapped_column(default=0)
    lease_owner: Mapped[str | None] = mapped_column(sa.String(100))
    lease_expires_at: Mapped[dt.datetime | None]
    heartbeat_at: Mapped[dt.datetime | None]
    enqueued_at: Mapped[dt.datetime | None]
    progress: Mapped[JSON | None] = mapped_column(sa.JSON(none_as_null=True))
    error: Mapped[str | None] = mapped_column(sa.Text)
    result_sha256: Mapped[str | None] = mapped_column(sa.String(64))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    started_at: Mapped[dt.datetime | None]
    finished_at: Mapped[dt.datetime | None]

    assignment: Mapped[Assignment] = relationship()
    sheets: Mapped[list[ExamSheet]] = relationship(
        back_populates="print_run", order_by="ExamSheet.number"
    )


class ExamSheet(Base):
    """One printed sheet: a student's (or, anonymous, a number's) exercises of an assignment,
    found again by its code (printed as text and as a QR code)."""

    __tablename__ = "exam_sheet"
    __table_args__ = (sa.UniqueConstraint("print_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(sa.String(16), unique=True)  # random: reveals nothing
    print_id: Mapped[int] = mapped_column(sa.ForeignKey("exam_print.id", ondelete="CASCADE"))
    number: Mapped[int]  # 1.. within its print run
    user_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("user.id", ondelete="CASCADE"), index=True
    )  # None: an anonymous sheet not yet tied to a student
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    print_run: Mapped[ExamPrint] = relationship(back_populates="sheets")
    user: Mapped[User | None] = relationship()
    items: Mapped[list[ExamItem]] = relationship(
        back_populates="sheet", order_by="ExamItem.slot_index"
    )


class ExamItem(Base):
    """One exercise of a sheet: the tree printed (the student's stored variant, or an anonymous
    sheet's own, which becomes the student's variant when the sheet is tied)."""

    __tablename__ = "exam_item"
    __table_args__ = (sa.UniqueConstraint("sheet_id", "slot_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    sheet_id: Mapped[int] = mapped_column(sa.ForeignKey("exam_sheet.id", ondelete="CASCADE"))
    slot_id: Mapped[int] = mapped_column(sa.ForeignKey("slot.id", ondelete="CASCADE"))
    slot_index: Mapped[int]
    exercise_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("exercise.id", ondelete="SET NULL")
    )
    seed: Mapped[str | None] = mapped_column(sa.String(64))
    generator_version: Mapped[str | None] = mapped_column(sa.String(32))
    params: Mapped[JSON | None] = mapped_column(sa.JSON(none_as_null=True))
    tree: Mapped[JSON] = mapped_column(sa.JSON)  # {"tree": nested, "players": [...]}
    # The answer written on the sheet, once entered: the student's attempt on paper.
    attempt_id: Mapped[int | None] = mapped_column(sa.ForeignKey("attempt.id", ondelete="SET NULL"))

    sheet: Mapped[ExamSheet] = relationship(back_populates="items")
    slot: Mapped[Slot] = relationship()
    exercise: Mapped[Exercise | None] = relationship()


# -- a term's data: backups ------------------------------------------------------------------


class BackupRun(Base):
    """One backup, taken by `grader db backup` or by a worker's schedule (GRADER_BACKUP_HOURS):
    when, where, how large, and whether it succeeded. A scheduled run holds its `period` (the
    hours since the epoch, divided by GRADER_BACKUP_HOURS), unique, so two workers' sweeps
    never take the same period's backup twice."""

    __tablename__ = "backup_run"

    id: Mapped[int] = mapped_column(primary_key=True)
    period: Mapped[int | None] = mapped_column(sa.BigInteger, unique=True)
    started_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[dt.datetime | None]
    status: Mapped[str] = mapped_column(sa.String(16))  # running, ok, failed
    path: Mapped[str | None] = mapped_column(sa.Text)
    size: Mapped[int | None] = mapped_column(sa.BigInteger)
    error: Mapped[str | None] = mapped_column(sa.Text)


# -- account recovery and the second factor ------------------------------------------------------


class PasswordReset(Base):
    """A forgot-password link: single use, expiring, stored as its sha256 (the link is only in
    the e-mail sent to the account's address)."""

    __tablename__ = "password_reset"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[dt.datetime]
    used_at: Mapped[dt.datetime | None]


class RecoveryCode(Base):
    """One of an account's single-use codes that stand for a TOTP code (a lost phone), stored
    as its sha256 (80 random bits each, so a plain digest is enough)."""

    __tablename__ = "recovery_code"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), index=True)
    code_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    used_at: Mapped[dt.datetime | None]


# -- a person's data: erasure and its audit (services/data/) -----------------------------------

ANONYMIZE, DELETE = "anonymize", "delete"  # GRADER_ERASURE_ATTEMPTS: what erasure does to attempts


class AccountErasure(Base):
    """The audit of an erasure: who erased which account id, when, and what became of its
    attempts. It holds nothing of the erased data (no address, no name)."""

    __tablename__ = "account_erasure"

    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(index=True)  # the erased User's id (the row stays)
    # The administrator who erased it; None: the server's operator (`grader user erase`).
    erased_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("user.id", ondelete="SET NULL"))
    erased_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    attempts: Mapped[str] = mapped_column(sa.String(16))  # ANONYMIZE or DELETE

    erased_by: Mapped[User | None] = relationship(foreign_keys=[erased_by_id])


class ErasureRequest(Base):
    """A person's request, from their account page, that the administrators erase the account."""

    __tablename__ = "erasure_request"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("user.id", ondelete="CASCADE"), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    user: Mapped[User] = relationship()


# -- LTI dynamic registration -------------------------------------------------------------------


class LtiRegistrationUrl(Base):
    """A one-time registration URL an administrator made: the LMS's administrator pastes it
    into the LMS, which opens it to register the tool (LTI Dynamic Registration). Only the
    SHA-256 of its secret is stored; it serves once (``used_at``) and until ``expires_at``."""

    __tablename__ = "lti_registration_url"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    created_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[dt.datetime]
    used_at: Mapped[dt.datetime | None]
    registration_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("lti_registration.id", ondelete="SET NULL")
    )  # the registration it made

    registration: Mapped[LtiRegistration | None] = relationship()


# -- problem reports ----------------------------------------------------------------------------

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


# -- deadlines: extensions and accommodations (services/courses/deadlines.py) ------------------


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
