"""A print run's sheets as data: each sheet's cover (its code as printed, its QR code, whom it
is for) and its questions (the tree drawn for paper, the prompt, the conventions, the key in
words). The web layer writes them as the HTML that `exam_pdf` renders."""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import current_app

from grader.gametree import KINDS, Conventions, Tree
from grader.gametree.drawing import tree_in_words, tree_svg
from grader.models import Assignment, ExamPrint, ExamSheet, Slot
from grader.services.paper.codes import shown_code

# The key of `app.extensions` under which the web layer puts its writer of a document's HTML.
SHEET_HTML = "grader.exam_sheet_html"
# The printable area of a landscape page (its margins are 10 mm, the header takes the rest).
PAGE_MM = {"a4": (297.0, 210.0), "letter": (279.4, 215.9)}
TREE_TOP_MM = 52.0  # the header, the question and the conventions above a tree


@dataclass(frozen=True)
class PrintView:
    """What one document of a run prints: its sheets' covers and questions (each a dict of
    what the page shows), on ``paper``, as the key or for the students."""

    assignment: Assignment
    paper: str
    key: bool
    skipped: list[Slot]  # the run's slots not on paper (engines), named on the cover
    sheets: list[dict[str, Any]]


def print_view(
    run: ExamPrint, sheets: list[ExamSheet], trees: list[Slot], skipped: list[Slot], *, key: bool
) -> PrintView:
    """``sheets`` of ``run`` as one document's data, each question's tree drawn for paper."""
    width, height = PAGE_MM[run.paper]
    area = (width - 20, height - 20 - TREE_TOP_MM)
    return PrintView(
        assignment=run.assignment,
        paper=run.paper,
        key=key,
        skipped=skipped,
        sheets=[_sheet_view(sheet, trees, area, key=key) for sheet in sheets],
    )


def sheet_html(view: PrintView) -> str:
    """The document's HTML, written by the writer the web layer puts on the app under
    SHEET_HTML (`web.init_app`): the service gives the data, the web the page."""
    write: Callable[[PrintView], str] = current_app.extensions[SHEET_HTML]
    return write(view)


def _sheet_view(
    sheet: ExamSheet, trees: list[Slot], area: tuple[float, float], *, key: bool
) -> dict[str, Any]:
    import segno  # the QR code: only where sheets are printed

    items = {item.slot_id: item for item in sheet.items}
    questions = []
    for number, slot in enumerate(trees, start=1):
        item = items.get(slot.id)
        if item is None:  # a slot added after the run was made: not on this sheet
            continue
        tree = Tree.from_dict(item.tree)
        kind = KINDS[slot.kind]
        conventions = Conventions.from_dict(slot.conventions)
        answer = kind.key(tree, conventions) if key else None
        paper = kind.paper(tree, answer)
        questions.append(
            {
                "number": number,
                "title": slot.title or f"Exercise {slot.index + 1}",
                "prompt": kind.prompt,
                "instruction": paper.instruction,
                "words": tree_in_words(tree),
                "leaf_boxes": any(tree.node(p).is_leaf for p in paper.boxes.paths),
                "conventions": kind.conventions_words(conventions, tree),
                "svg": _data_uri(
                    tree_svg(
                        tree,
                        width_mm=area[0],
                        height_mm=area[1],
                        boxes=paper.boxes,
                        marks=paper.marks,
                        struck=paper.struck,
                        lines=paper.lines,
                        title=f"Question {number}: the game tree",
                    )
                ),
                "key_words": kind.describe(answer, tree.labels()) if answer else "",
            }
        )
    qr = segno.make(sheet.code, error="m")
    return {
        "code": sheet.code,
        "shown_code": shown_code(sheet.code),
        "number": sheet.number,
        "name": (sheet.user.name or "") if sheet.user else "",
        "email": sheet.user.email if sheet.user else "",
        "qr": qr.svg_data_uri(scale=1, unit="mm", border=1, omitsize=False),
        "questions": questions,
    }


def _data_uri(svg: str) -> str:
    """An SVG as an image's URL: WeasyPrint reads it with its XML parser, ten times faster
    than the same drawing inline in the page's HTML."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
