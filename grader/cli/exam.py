"""`grader exam print`: an assignment printed as paper exam sheets (services/paper/printing.py).

Runs in the application's context, as the operator: the sheets are made and rendered here,
without the queue (the assignment page's button queues the same work for a worker), under the
same bounds as the page's (GRADER_EXAM_SHEETS_*: a run's sheets, a course's and the service's
in 24 hours, one run of a course at a time).
"""

from __future__ import annotations

from pathlib import Path

import click
from flask import Flask
from flask.cli import AppGroup

from grader.models import PAPER_SIZES

exam = AppGroup("exam", help="Paper exams: print an assignment's sheets, their key.")


@exam.command("print")
@click.option("--assignment", "assignment_id", type=int, required=True, help="Assignment id.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Folder for sheets/, all-sheets.pdf and key.pdf.",
)
@click.option(
    "--anonymous",
    type=click.IntRange(min=1),
    help="N numbered sheets, tied to students when their answers are entered (no roster); "
    "at most GRADER_EXAM_SHEETS_PER_PRINT.",
)
@click.option("--paper", type=click.Choice(PAPER_SIZES), default="a4", show_default=True)
def print_command(assignment_id: int, out: Path, anonymous: int | None, paper: str) -> None:
    """Print an assignment: one PDF per student (each their own stored trees), all sheets in
    one PDF for the print shop, and the key."""
    from grader.services import ServiceError
    from grader.services.paper import printing

    def progress(phase: str, done: int, total: int) -> None:
        if done == total or done % 25 == 0:
            click.echo(f"{phase}: {done}/{total}", err=True)

    try:
        run, files = printing.print_to_dir(
            assignment_id, out, paper=paper, anonymous=anonymous, progress=progress
        )
    except ServiceError as error:
        raise click.ClickException(str(error)) from error
    click.echo(
        f"printed {len(files.sheets)} sheets (run {run.id}) to {out}: sheets/, "
        "all-sheets.pdf, key.pdf"
    )


def init_app(app: Flask) -> None:
    app.cli.add_command(exam)
