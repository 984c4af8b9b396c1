"""Reading printed sheets back (poppler's pdftotext) and printing a class, for the paper exams' tests."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.models import ExamItem, ExamSheet, Slot
from tests.instructor_support import user

STUDENTS = [f"s{i}@example.com" for i in range(1, 6)]


_WORD = re.compile(
    r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>'
)


_PAGE = re.compile(r"<page [^>]*>(.*?)</page>", re.S)


def pages(pdf: bytes, tmp_path: Path) -> list[list[tuple[float, float, float, float, str]]]:
    """Each page's words with their boxes (points), as poppler reads them."""
    source = tmp_path / "read.pdf"
    source.write_bytes(pdf)
    html = subprocess.run(
        ["pdftotext", "-bbox", str(source), "-"], check=True, capture_output=True, text=True
    ).stdout
    return [
        [(float(a), float(b), float(c), float(d), w) for a, b, c, d, w in _WORD.findall(page)]
        for page in _PAGE.findall(html)
    ]


def number(word: str) -> float | None:
    text = word.replace("\u2212", "-")
    try:
        return float(text)
    except ValueError:
        return None


def tree_words(page: list[tuple[float, float, float, float, str]]) -> list[tuple]:
    """The words of a question page's drawing: below the "Conventions:" line, above the key in
    words (on a key page) and the footer (the page number)."""
    top = next(y1 for _, _, _, y1, w in page if w == "Conventions:")
    bottom = min(
        [y0 for _, y0, _, _, w in page if w == "Key:"] or [max(y0 for _, y0, _, _, _ in page)]
    )
    return [w for w in page if w[1] > top + 12 and w[1] < bottom - 1]


def print_class(app: Any, room: Any, tmp_path: Path, **kw: Any) -> Any:
    from grader.services.paper import printing

    with app.app_context():
        run, files = printing.print_to_dir(room.assignment_id, tmp_path / "out", **kw)
        return run.id, files


def sheets_made(app: Any, room: Any, **kw: Any) -> int:
    """A print run's sheets made (each student's variants, the codes), not rendered: what an
    answer's entry reads. The run's id."""
    from grader.services.paper import printing

    with app.app_context():
        run = printing.create_print(room.assignment_id, enqueue=False, **kw)
        printing.make_sheets(run.id)
        return run.id


def textbook_item(app: Any, run_id: int, email: str | None = None) -> tuple[str, int]:
    with app.app_context():
        query = (
            sa.select(ExamSheet.code, ExamItem.slot_index)
            .join(ExamItem)
            .join(Slot)
            .where(ExamSheet.print_id == run_id, Slot.title == "Textbook tree")
        )
        if email is not None:
            query = query.where(ExamSheet.user_id == user(email).id)
        return db.session.execute(query.order_by(ExamSheet.number).limit(1)).one()
