"""The dashboard's forms (Flask-WTF: each carries its CSRF token). Dates are UTC."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    DateTimeLocalField,
    EmailField,
    FloatField,
    HiddenField,
    IntegerField,
    RadioField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length, NumberRange, Optional

from grader.gametree import KINDS
from grader.gametree.games import GAMES
from grader.models import COURSE_ROLES, SCORE_POLICIES
from grader.web.forms import TreeSettings

DATE_FORMATS = ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]
ROLE_CHOICES = [SelectChoice(r, {"ta": "TA"}.get(r, r)) for r in COURSE_ROLES]


class CourseForm(FlaskForm):
    name = StringField("Course name", validators=[DataRequired(), Length(max=200)])


class MemberForm(FlaskForm):
    email = EmailField("E-mail", validators=[DataRequired(), Length(max=254)])
    name = StringField("Name", validators=[Optional(), Length(max=200)])
    role = SelectField("Role", choices=ROLE_CHOICES, default="student")


class ImportForm(FlaskForm):
    csv_text = TextAreaField("Students as CSV (email,name per line, or a header row)",
                             validators=[Optional(), Length(max=500_000)])


class RoleForm(FlaskForm):
    role = SelectField("Role", choices=ROLE_CHOICES)


class ExpireForm(FlaskForm):
    """A date for the join code to stop working, or (confirmed, with `now`) at once."""

    expires_at = DateTimeLocalField("Expires at (UTC)", format=DATE_FORMATS,
                                    validators=[Optional()])
    now = HiddenField()


class AssignmentForm(FlaskForm):
    title = StringField("Title", validators=[DataRequired(), Length(max=200)])
    preset = SelectField("Start from a preset", choices=[], validate_choice=False)
    release_at = DateTimeLocalField("Release (UTC)", format=DATE_FORMATS, validators=[Optional()])
    due_at = DateTimeLocalField("Due (UTC)", format=DATE_FORMATS, validators=[Optional()])
    late_percent_per_day = FloatField(
        "Late penalty, percent per day (empty: no late attempts)",
        validators=[Optional(), NumberRange(0, 100)])
    score_policy = SelectField("Score counted", choices=[
        SelectChoice(p, f"{p} attempt") for p in SCORE_POLICIES])


class SlotForm(TreeSettings):
    title = StringField("Title", validators=[Optional(), Length(max=200)])
    kind = SelectField("Kind", choices=list(KINDS), default="prune")
    source = RadioField("Tree", default="generate", choices=[
        SelectChoice("generate", "Generate a variant per student"),
        SelectChoice("leaves", "Fixed: leaf values"),
        SelectChoice("nested", "Fixed: nested list"),
        SelectChoice("draw", "Fixed: draw it"),
        SelectChoice("cs188", "Fixed: CS188 .test file"),
        SelectChoice("game", "Fixed: from a game")])
    game = SelectField("Game", choices=list(GAMES), default="tic-tac-toe")
    game_start = StringField("Start position (empty: the initial one; random: a random "
                             "reachable one)", default="random",
                             validators=[Optional(), Length(max=200)])
    game_depth = IntegerField("Depth in plies", default=2, validators=[Optional(),
                                                                       NumberRange(1, 8)])
    game_branching = IntegerField("Branching cap (the first N moves in canonical order)",
                                  default=3, validators=[Optional(), NumberRange(1, 9)])
    min_cutoffs = IntegerField("At least this many cutoffs", default=2,
                               validators=[Optional(), NumberRange(0, 50)])
    min_deep_cutoffs = IntegerField("At least this many deep cutoffs", default=0,
                                    validators=[Optional(), NumberRange(0, 50)])
    distinct = BooleanField("Distinct leaf values")
    discriminating = BooleanField("Discriminating (every misconception gives its own answer)")
    leaves = StringField("Leaf values, comma-separated", default="3,12,8,2,4,6,14,5,2",
                         validators=[Optional(), Length(max=8000)])
    leaf_branching = IntegerField("Uniform branching", default=3, validators=[Optional(),
                                                                      NumberRange(1, 8)])
    leaf_depth = IntegerField("Uniform depth", default=2, validators=[Optional(), NumberRange(1, 8)])
    nested = TextAreaField("Nested list", default="[[3, 12, 8], [2, 4, 6], [14, 5, 2]]",
                           validators=[Optional(), Length(max=20000)])
    drawn = HiddenField("Drawn tree", default="[[0, 0], [0, 0]]")
    cs188 = TextAreaField("CS188 GraphGameTreeTest", validators=[Optional(), Length(max=100_000)])
    attempts_allowed = IntegerField("Attempts allowed (empty: unlimited)", default=3,
                                    validators=[Optional(), NumberRange(1, 1000)])
    practice_allowed = BooleanField("Practice variants", default=True)
    replay_allowed = BooleanField("Key and replay after the attempts", default=True)
    due_at = DateTimeLocalField("Due (UTC; empty: the assignment's)", format=DATE_FORMATS,
                                validators=[Optional()])
    allow_lower = BooleanField("If this regrades attempts, allow scores to go down")


class RegradeForm(FlaskForm):
    allow_lower = BooleanField("Allow scores to go down")
