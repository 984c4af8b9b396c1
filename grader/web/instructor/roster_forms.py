"""The roster's forms: a member added or imported, a role, the join code's expiry."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import (
    DateTimeLocalField,
    EmailField,
    HiddenField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import DataRequired, Length, Optional

from grader.models import COURSE_ROLES
from grader.web.forms import DATE_FORMATS, SelectChoice

ROLE_CHOICES = [SelectChoice(r, {"ta": "TA"}.get(r, r)) for r in COURSE_ROLES]


class MemberForm(FlaskForm):
    email = EmailField("E-mail", validators=[DataRequired(), Length(max=254)])
    name = StringField("Name", validators=[Optional(), Length(max=200)])
    role = SelectField("Role", choices=ROLE_CHOICES, default="student")


class ImportForm(FlaskForm):
    csv_text = TextAreaField(
        "Students as CSV (email,name per line, or a header row)",
        validators=[Optional(), Length(max=500_000)],
    )


class RoleForm(FlaskForm):
    role = SelectField("Role", choices=ROLE_CHOICES)


class ExpireForm(FlaskForm):
    """A date for the join code to stop working, or (confirmed, with `now`) at once."""

    expires_at = DateTimeLocalField(
        "Expires at (UTC)", format=DATE_FORMATS, validators=[Optional()]
    )
    now = HiddenField()
