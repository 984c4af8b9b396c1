"""The course pages' forms: a new course, its time zone, a copy for the next term."""

from __future__ import annotations

import datetime as dt
from typing import Any

from flask_wtf import FlaskForm
from wtforms import (
    DateTimeLocalField,
    IntegerField,
    RadioField,
    SelectField,
    StringField,
    SubmitField,
)
from wtforms.validators import DataRequired, Length, NumberRange, Optional, ValidationError

from grader.services import Invalid
from grader.services.courses import zones
from grader.web.forms import DATE_FORMATS, SelectChoice, utc_from_zone


def iana_zone(_form: FlaskForm, field: StringField) -> None:
    """A zone field's check, beside the field: the service's own (`zones.zone`)."""
    if (field.data or "").strip():
        try:
            zones.zone(field.data or "")
        except Invalid as error:
            raise ValidationError(str(error)) from None


class CourseForm(FlaskForm):
    name = StringField("Course name", validators=[DataRequired(), Length(max=200)])
    timezone = StringField(
        "Time zone (IANA, for example America/New_York; empty: the server's)",
        validators=[Optional(), Length(max=64), iana_zone],
    )


class TimezoneForm(FlaskForm):
    timezone = StringField(
        "Time zone (IANA, for example America/New_York)",
        validators=[DataRequired(), Length(max=64), iana_zone],
    )


class CopyCourseForm(FlaskForm):
    """The next term: the new offering's name and how its dates move."""

    name = StringField("The new course's name", validators=[DataRequired(), Length(max=200)])
    how = RadioField(
        "Move the dates",
        choices=[
            SelectChoice("shift", "by a number of days"),
            SelectChoice("first_due", "so that the first due date falls on a date"),
        ],
        default="shift",
    )
    shift_days = IntegerField(
        "Days (negative: earlier)",
        validators=[Optional(), NumberRange(min=-3660, max=3660)],
    )
    first_due = DateTimeLocalField(
        "The first due date (UTC)", format=DATE_FORMATS, validators=[Optional()]
    )

    # the button that shows the new dates before anything is made
    preview = SubmitField("Preview the new dates")

    def first_due_at(self, zone: str) -> dt.datetime | None:
        """The first due date typed, in the course's zone, as UTC."""
        return utc_from_zone(self.first_due, zone)

    def how_dates_move(self, zone: str) -> dict[str, Any]:
        """The copy's keyword arguments for how its dates move: days, or the first due date."""
        if self.how.data == "shift":
            return {"shift_days": self.shift_days.data or 0, "first_due_at": None}
        return {"shift_days": None, "first_due_at": self.first_due_at(zone)}


class CopyAssignmentForm(FlaskForm):
    assignment = SelectField("Assignment", validators=[DataRequired()])
    target = SelectField("Into the course", validators=[DataRequired()])
    shift_days = IntegerField(
        "Move its dates by (days)",
        default=0,
        validators=[Optional(), NumberRange(min=-3660, max=3660)],
    )
