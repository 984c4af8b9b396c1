"""The deadlines' forms: slip days, an extension, the accommodations list, a named group."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    DateTimeLocalField,
    IntegerField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import DataRequired, Length, NumberRange, Optional

from grader.services.courses import extensions
from grader.web.forms import DATE_FORMATS, utc_from_zone


class SlipDaysForm(FlaskForm):
    slip_days = IntegerField(
        "Slip days per student (0: none)", validators=[NumberRange(0, 366)], default=0
    )


class ExtensionForm(FlaskForm):
    """One extension on an assignment: for a student (an e-mail) or a named group, the whole
    assignment or one exercise; a later date or days, extra attempts, the penalty waived."""

    email = StringField("Student's e-mail", validators=[Optional(), Length(max=320)])
    group = StringField("or a group's name", validators=[Optional(), Length(max=100)])
    slot = SelectField("For", choices=[], validate_choice=False)
    due_at = DateTimeLocalField(  # an id of its own: the assignment's form is on the same page
        "New due date (UTC)", format=DATE_FORMATS, validators=[Optional()], id="extension-due_at"
    )
    days = IntegerField("or days later", validators=[Optional(), NumberRange(1, 366)])
    extra_attempts = IntegerField(
        "Extra attempts", default=0, validators=[Optional(), NumberRange(0, 1000)]
    )
    waive_penalty = BooleanField("Waive the late penalty")

    def extension_input(self, assignment_id: int, zone: str) -> extensions.ExtensionInput:
        return extensions.ExtensionInput(
            assignment_id=assignment_id,
            email=(self.email.data or "").strip() or None,
            group=(self.group.data or "").strip() or None,
            slot_index=int(self.slot.data) if (self.slot.data or "").isdigit() else None,
            due_at=utc_from_zone(self.due_at, zone),
            days=self.days.data,
            extra_attempts=self.extra_attempts.data or 0,
            waive_penalty=bool(self.waive_penalty.data),
        )


class AccommodationsForm(FlaskForm):
    csv_text = TextAreaField(
        "Accommodations as CSV: email, days or date (YYYY-MM-DD HH:MM), extra attempts",
        validators=[DataRequired(), Length(max=500_000)],
    )


class GroupForm(FlaskForm):
    # Ids of their own: the roster's form to add a person is on the same page.
    name = StringField("Group name", validators=[DataRequired(), Length(max=100)], id="group-name")
    emails = TextAreaField(
        "Its students' e-mails (one a line)",
        validators=[Optional(), Length(max=200_000)],
        id="group-emails",
    )
