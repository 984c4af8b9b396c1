"""Exercises: the tree given to one person and the graded answers to it."""

from __future__ import annotations

import datetime as dt
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from grader.gametree import KINDS
from grader.models.accounts import User
from grader.models.base import JSON, Base, grader_version, utcnow
from grader.models.courses import Slot


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
    # What gave the score: the grader's version and the kind's rule (`ExerciseKind.rule_version`);
    # None for attempts graded before revision c54a7e1f2b38 recorded them (shown as unknown).
    grader_version: Mapped[str | None] = mapped_column(sa.String(40))
    rule_version: Mapped[str | None] = mapped_column(sa.String(40))
    # An answer written on a printed exam sheet, typed in by a TA or instructor (None: the
    # student's own), and every entry of it, oldest first, the last the current one:
    # [{"answer", "score", "entered_by", "entered_at"}] (services/paper/entry.py).
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

    @staticmethod
    def graded_by(kind: str) -> dict[str, str]:
        """The versions that grade an attempt of `kind` now, stored beside its score."""
        return {"grader_version": grader_version(), "rule_version": KINDS[kind].rule_version}

    @property
    def credited(self) -> float:
        """The score after the late penalty: what the gradebook counts."""
        return self.score * (1.0 - self.penalty)
