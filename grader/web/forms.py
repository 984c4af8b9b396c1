"""HTML forms (Flask-WTF: each carries its CSRF token)."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    EmailField,
    IntegerField,
    PasswordField,
    RadioField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, EqualTo, Length, NumberRange, Optional

from grader.gametree import KINDS
from grader.services.accounts import MAX_TOKEN_DAYS, MIN_PASSWORD, TOKEN_DAYS


class ActionForm(FlaskForm):
    """A button that changes something (log out, new variant): only the CSRF token."""


class LoginForm(FlaskForm):
    email = EmailField("E-mail", validators=[DataRequired(), Length(max=254)])
    password = PasswordField("Password", validators=[DataRequired()])
    remember = BooleanField("Keep me signed in")


class SignupForm(FlaskForm):
    email = EmailField("E-mail", validators=[DataRequired(), Length(max=254)])
    password = PasswordField("Password", validators=[DataRequired(), Length(min=MIN_PASSWORD)])
    confirm = PasswordField("Password again",
                            validators=[DataRequired(), EqualTo("password", "Passwords differ")])
    join_code = StringField("Course join code", validators=[DataRequired(), Length(max=32)])


class ClaimForm(FlaskForm):
    """An invite link's form for an account that has no password yet."""

    password = PasswordField("Choose a password",
                             validators=[DataRequired(), Length(min=MIN_PASSWORD)])
    confirm = PasswordField("Password again",
                            validators=[DataRequired(), EqualTo("password", "Passwords differ")])


class PasswordForm(FlaskForm):
    current = PasswordField("Current password", validators=[DataRequired()])
    password = PasswordField("New password", validators=[DataRequired(),
                                                         Length(min=MIN_PASSWORD)])
    confirm = PasswordField("New password again",
                            validators=[DataRequired(), EqualTo("password", "Passwords differ")])


class TokenForm(FlaskForm):
    name = StringField("Name (what uses it)", default="token",
                       validators=[DataRequired(), Length(max=100)])
    days = IntegerField("Lifetime in days", default=TOKEN_DAYS,
                        validators=[DataRequired(), NumberRange(1, MAX_TOKEN_DAYS)])


class JoinForm(FlaskForm):
    join_code = StringField("Course join code", validators=[DataRequired(), Length(max=32)])


class TreeSettings(FlaskForm):
    """The generator's shape and the conventions, shared by the practice page and the slot
    editor (each adds its own fields)."""

    depth = IntegerField("Depth", default=3, validators=[Optional(), NumberRange(1, 8)])
    branching = StringField("Branching (e.g. 2-3)", default="2-3",
                            validators=[Optional(), Length(max=20)])
    values = StringField("Leaf values (e.g. -9..9)", default="-9..9",
                         validators=[Optional(), Length(max=40)])
    players = StringField("Players per level", default="max,min",
                          validators=[Optional(), Length(max=100)])
    ties = SelectField("Ties", choices=[
        SelectChoice("prune", "prune when alpha >= beta (AIMA)"),
        SelectChoice("explore", "prune only when strictly outside (CS188)")])
    values_rule = SelectField("Cut nodes report", choices=[
        SelectChoice("soft", "their best value so far"), SelectChoice("hard", "the bound")])
    order = SelectField("Children", choices=[
        SelectChoice("ltr", "left to right"), SelectChoice("rtl", "right to left")])
    depth_limit = IntegerField("Depth limit in plies (empty: to the leaves)",
                               validators=[Optional(), NumberRange(1, 64)])
    evaluations = BooleanField("Evaluations on internal nodes (generated trees)")


class PracticeForm(TreeSettings):
    kind = SelectField("Exercise", choices=list(KINDS), default="prune")
    source = RadioField("Tree", default="generate", choices=[
        SelectChoice("generate", "Generate one"), SelectChoice("leaves", "Type leaf values"),
        SelectChoice("nested", "Type a nested list")])
    min_cutoffs = IntegerField("At least this many cutoffs", default=1,
                               validators=[Optional(), NumberRange(0, 50)])
    leaves = StringField("Leaf values, comma-separated", default="3,12,8,2,4,6,14,5,2",
                         validators=[Optional(), Length(max=8000)])
    leaf_branching = IntegerField("Branching", default=3, validators=[Optional(),
                                                                      NumberRange(1, 8)])
    leaf_depth = IntegerField("Depth", default=2, validators=[Optional(), NumberRange(1, 8)])
    nested = TextAreaField("Nested list", default="[[3, 12, 8], [2, 4, 6], [14, 5, 2]]",
                           validators=[Optional(), Length(max=8000)])
