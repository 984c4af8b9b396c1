"""Exam sheets' HTML rendered to PDF, in processes of their own (`python -m
grader.services.paper.exam_pdf FOLDER INDEX COUNT`): WeasyPrint paints one page at a time on one
core, so services/paper/exams.py writes a print run's sheets (and its key's chunks) as HTML files into
FOLDER and starts one such process a core; process INDEX of COUNT renders every COUNT-th file,
writing NAME.pdf. Standard library and WeasyPrint only: it needs neither the app nor the
database.
"""

from __future__ import annotations

import sys
from pathlib import Path


def render(source: Path) -> None:
    from weasyprint import HTML

    pdf = source.with_suffix(".pdf")
    partial = pdf.with_suffix(".part")
    HTML(filename=str(source)).write_pdf(partial)
    partial.rename(pdf)  # last: a .pdf present is a file done


def main(argv: list[str]) -> None:
    folder, index, count = Path(argv[0]), int(argv[1]), int(argv[2])
    for source in sorted(folder.glob("*.html"))[index::count]:
        render(source)


if __name__ == "__main__":
    main(sys.argv[1:])
