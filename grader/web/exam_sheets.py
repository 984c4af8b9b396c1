"""The paper exam's documents as HTML: a print run's data (`services.paper.sheets.PrintView`)
written with the print template, for `exam_pdf` to render. `web.init_app` puts `sheet_html`
on the app, where the print job's service finds it (`sheets.SHEET_HTML`)."""

from __future__ import annotations

from flask import render_template

from grader.services.paper.sheets import PrintView


def sheet_html(view: PrintView) -> str:
    return render_template(
        "exams/print.html",
        assignment=view.assignment,
        paper=view.paper,
        key=view.key,
        skipped=view.skipped,
        sheets=view.sheets,
    )
