"""The accommodations list: a CSV of extensions for an assignment, checked whole before
anything is applied."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from grader.extensions import db
from grader.models import Course, User
from grader.services import Invalid
from grader.services.courses import zones
from grader.services.courses.extensions import ExtensionInput, check_input, grant_in, student_in
from grader.services.courses.staff import staff_for_assignment
from grader.services.transactions import writing

MAX_IMPORT_ROWS = 5000


@dataclass
class ImportOutcome:
    applied: int = 0
    errors: list[str] = field(default_factory=list)


def _int(text: str, what: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise Invalid(f"{what} {text[:20]!r} is not a whole number") from None


def import_accommodations(
    actor: User, assignment_id: int, text: str, *, slot_index: int | None = None
) -> ImportOutcome:
    """An accommodations list for an assignment: CSV rows `email, days or date, extra attempts`
    (a header row naming `email` is skipped; a date is read in the course's time zone). Every
    row is checked first; with any unknown e-mail or bad row, nothing is applied and each is
    listed with its line number."""
    as_staff, assignment = staff_for_assignment(actor, assignment_id, change=True)
    course = as_staff.course
    lines = list(csv.reader(io.StringIO(text or "")))
    if len(lines) > MAX_IMPORT_ROWS:
        raise Invalid(f"at most {MAX_IMPORT_ROWS} rows at a time", field="text")
    outcome = ImportOutcome()
    wanted: list[ExtensionInput] = []
    for number, row in enumerate(lines, start=1):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if number == 1 and cells[0].lower() in {"email", "e-mail"}:
            continue
        try:
            if len(cells) > 3:
                raise Invalid("a row has at most 3 cells: email, days or date, extra attempts")
            email, when, extra = [*cells, "", "", ""][:3]
            if not email:
                raise Invalid("no e-mail")
            days = due = None
            if when:
                if when.lstrip("+").isdigit():
                    days = _int(when, "days")
                else:
                    due = zones.parse(when, course.timezone, end_of_day=True)
            data = ExtensionInput(
                assignment_id=assignment.id,
                email=email,
                slot_index=slot_index,
                due_at=due,
                days=days,
                extra_attempts=_int(extra, "extra attempts") or 0,
            )
            check_input(data, assignment)
            student_in(db.session, course.id, email)
        except Invalid as error:
            outcome.errors.append(f"line {number}: {error}")
            continue
        wanted.append(data)
    if outcome.errors:
        return outcome
    if not wanted:
        raise Invalid("the list has no rows", field="text")
    with writing() as session:
        fresh = session.get_one(Course, course.id)
        for data in wanted:
            grant_in(session, actor.id, fresh, data)
    outcome.applied = len(wanted)
    return outcome
