"""Academic integrity: checks the staff ask for, run by the workers (services/integrity/)."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from grader.models.base import JSON, Base, JobColumns, utcnow

ENGINES_CHECK, ANSWERS_CHECK = "engines", "answers"  # IntegrityCheck.kind


class IntegrityCheck(JobColumns, Base):
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
    result: Mapped[JSON | None] = mapped_column(sa.JSON(none_as_null=True))


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
