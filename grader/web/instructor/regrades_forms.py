"""A term regrade's forms: what to regrade and why, and the staff's choice on its preview."""

from __future__ import annotations

from typing import Any

from flask_wtf import FlaskForm
from wtforms import RadioField, SelectField, StringField
from wtforms.validators import DataRequired, Length

from grader.models import DISCARD, KEEP_HIGHER, REPLACE
from grader.web.forms import SelectChoice


class StartRegradeForm(FlaskForm):
    """The scope (the course, an assignment, one exercise) and the reason each student whose
    score changes is told."""

    scope = SelectField("What to regrade", choices=[], validate_choice=True)
    reason = StringField(
        "Why the grading changed (each student whose score changes reads “… was regraded "
        "because” and these words)",
        validators=[DataRequired(), Length(max=300)],
    )

    def for_course(self, assignments: list[Any]) -> StartRegradeForm:
        self.scope.choices = [SelectChoice("course", "the whole course")]
        for assignment in assignments:
            self.scope.choices.append(SelectChoice(f"a{assignment.id}", f"“{assignment.title}”"))
            self.scope.choices.extend(
                SelectChoice(
                    f"a{assignment.id}.{slot.index}",
                    f"“{assignment.title}”, exercise {slot.index + 1}: {slot.name}",
                )
                for slot in assignment.slots
            )
        return self

    def target(self) -> dict[str, int | None]:
        """The service's scope: `assignment_id` and `index`, None for the course."""
        value = self.scope.data or "course"
        if value == "course":
            return {"assignment_id": None, "index": None}
        assignment, _, index = value[1:].partition(".")
        return {"assignment_id": int(assignment), "index": int(index) if index else None}


class ChoiceForm(FlaskForm):
    choice = RadioField(
        "Apply the preview",
        choices=[
            SelectChoice(REPLACE, "Replace: every changed score takes its new value"),
            SelectChoice(KEEP_HIGHER, "Keep the higher: raised scores change, none goes down"),
            SelectChoice(DISCARD, "Discard: nothing changes"),
        ],
        default=KEEP_HIGHER,
        validators=[DataRequired()],
    )
