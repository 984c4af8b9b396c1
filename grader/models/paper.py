"""Paper exams: print runs, their sheets and each sheet's exercises (services/paper/)."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from grader.models.accounts import User
from grader.models.base import JSON, Base, JobColumns, utcnow
from grader.models.courses import Assignment, Slot
from grader.models.exercises import Exercise

PAPER_SIZES = ("a4", "letter")


class ExamPrint(JobColumns, Base):
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
    result_sha256: Mapped[str | None] = mapped_column(sa.String(64))

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
