"""The paper exam pages' forms: a print run, a sheet's code."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import IntegerField, SelectField, StringField
from wtforms.validators import DataRequired, Length, NumberRange, Optional

from grader.web.forms import SelectChoice


class ExamPrintForm(FlaskForm):
    """An assignment printed as paper exam sheets (services/paper/printing.py)."""

    paper = SelectField(
        "Paper",
        choices=[SelectChoice("a4", "A4"), SelectChoice("letter", "US Letter")],
        default="a4",
    )
    anonymous = IntegerField(
        "Anonymous sheets (leave empty for one per student)",
        validators=[Optional(), NumberRange(min=1)],  # the service bounds a run's sheets
    )


class SheetCodeForm(FlaskForm):
    """A sheet's code, typed or scanned (a GET form: nothing changes, so no CSRF token)."""

    class Meta:
        csrf = False

    code = StringField("Sheet code", validators=[DataRequired(), Length(max=40)])
