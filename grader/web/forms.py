"""HTML forms (Flask-WTF: each carries its CSRF token), and the one mapping of the tree forms
(practice, the slot editor) to what the services take."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    DateTimeLocalField,
    EmailField,
    Field,
    IntegerField,
    PasswordField,
    RadioField,
    SelectField,
    StringField,
    TextAreaField,
)

# New in WTForms 3.3, where raw (value, label) tuples are deprecated.
from wtforms.fields.choices import SelectChoice  # type: ignore[attr-defined]  # stubs are 3.2
from wtforms.validators import DataRequired, EqualTo, Length, NumberRange, Optional

from grader.gametree import KINDS, Tree, TreeFormatError, parse_nested, parse_range
from grader.gametree.games import GAMES
from grader.gametree.generator import DEFAULTS, MAX_DEPTH, range_text
from grader.gametree.kinds import default_kind
from grader.services import Invalid, ServiceError
from grader.services.accounts import MAX_TOKEN_DAYS, MIN_PASSWORD, SCOPES, TOKEN_DAYS
from grader.services.courses import zones
from grader.services.teaching import editor
from grader.web.inputs import strict_loads
from grader.web.words import CHILDREN, CUT_NODES_REPORT, TIES, kind_name


def refused_beside(
    form: FlaskForm, refused: ServiceError, fields: Mapping[str, str] | None = None
) -> None:
    """A service's refusal put on the form that asked, to show it again as typed: beside the
    field it names (`Invalid.field`, the service's name for an input, which `fields` maps to
    the form's where they differ), or in the form's own errors when it names none of the form's
    (`form_errors`, which `_form.html`'s `form_errors` shows at the form's top)."""
    name = getattr(refused, "field", None)
    name = (fields or {}).get(name, name) if name else None
    if name is not None and name in form:
        form[name].errors = [*form[name].errors, str(refused)]
    else:
        form.form_errors.append(str(refused))


def refuse_bad_rows(errors: list[str], undone: str) -> None:
    """The imports' one rule (the roster's and the accommodations'): a list with any bad row is
    refused whole, `undone` ("imported", "applied") naming what did not happen, and its bad rows
    named beside the box (the service's `text`)."""
    if errors:
        raise Invalid(
            f"Nothing was {undone}; fix these rows and import again: " + "; ".join(errors),
            field="text",
        )


class ActionForm(FlaskForm):
    """A button that changes something (log out, new variant): only the CSRF token."""


class ErasureRequestForm(FlaskForm):
    ask_erasure = BooleanField(
        "I ask the administrators to erase my account and my personal data",
        validators=[DataRequired()],
    )


class EraseAccountForm(FlaskForm):
    """An administrator's confirmation: the account's e-mail address typed again."""

    email = StringField(
        "Type the account's e-mail address to confirm", validators=[DataRequired(), Length(max=254)]
    )


class LoginForm(FlaskForm):
    email = EmailField("E-mail", validators=[DataRequired(), Length(max=254)])
    password = PasswordField("Password", validators=[DataRequired()])
    remember = BooleanField("Keep me signed in")


class SignupForm(FlaskForm):
    email = EmailField("E-mail", validators=[DataRequired(), Length(max=254)])
    password = PasswordField("Password", validators=[DataRequired(), Length(min=MIN_PASSWORD)])
    confirm = PasswordField(
        "Password again", validators=[DataRequired(), EqualTo("password", "Passwords differ")]
    )
    join_code = StringField("Course join code", validators=[DataRequired(), Length(max=32)])


class ClaimForm(FlaskForm):
    """An invite link's form for an account that has no password yet."""

    password = PasswordField(
        "Choose a password", validators=[DataRequired(), Length(min=MIN_PASSWORD)]
    )
    confirm = PasswordField(
        "Password again", validators=[DataRequired(), EqualTo("password", "Passwords differ")]
    )


class PasswordForm(FlaskForm):
    current = PasswordField("Current password", validators=[DataRequired()])
    password = PasswordField("New password", validators=[DataRequired(), Length(min=MIN_PASSWORD)])
    confirm = PasswordField(
        "New password again", validators=[DataRequired(), EqualTo("password", "Passwords differ")]
    )


class TokenForm(FlaskForm):
    name = StringField(
        "Name (what uses it)", default="token", validators=[DataRequired(), Length(max=100)]
    )
    days = IntegerField(
        "Lifetime in days",
        default=TOKEN_DAYS,
        validators=[DataRequired(), NumberRange(1, MAX_TOKEN_DAYS)],
    )
    # One box a scope (accounts.SCOPES); only `read` is ticked at first: least privilege.
    read = BooleanField("read: see your exercises, attempts, assignments, engines", default=True)
    submit = BooleanField("submit: answer exercises, make practice exercises, upload engines")
    staff = BooleanField("staff: the gradebook, statistics and other instructor/TA operations")

    def scopes(self) -> list[str]:
        return [scope for scope in SCOPES if self[scope].data]


class ForgotForm(FlaskForm):
    email = EmailField("E-mail", validators=[DataRequired(), Length(max=254)])


class ResetForm(FlaskForm):
    password = PasswordField("New password", validators=[DataRequired(), Length(min=MIN_PASSWORD)])
    confirm = PasswordField(
        "New password again", validators=[DataRequired(), EqualTo("password", "Passwords differ")]
    )


class CodeForm(FlaskForm):
    """A code from the authenticator app, or a recovery code."""

    code = StringField("Code", validators=[DataRequired(), Length(max=64)])


class JoinForm(FlaskForm):
    join_code = StringField("Course join code", validators=[DataRequired(), Length(max=32)])


def nested_list(text: str | None, what: str) -> Any:
    """A nested list typed (or drawn) on a form, read as strict JSON; Invalid says what is wrong
    in words where the list is wrong, else the strict reader's reason (NaN, depth...)."""
    try:
        return strict_loads(text or "")
    except ValueError as error:
        try:
            parse_nested(text or "")
        except TreeFormatError as words:
            raise Invalid(f"the {what}: {words}") from None
        raise Invalid(f"the {what} is not valid: {getattr(error, 'msg', error)}") from None


@dataclass(frozen=True)
class TreeChoice:
    """What a tree form asks for, in the services' terms: the kind and the conventions, and
    either generator parameters (``tree`` None) or a fixed tree (``params`` then keeps only what
    rebuilds a game's boards)."""

    kind: str
    conventions: dict[str, Any]
    params: dict[str, Any]
    tree: Tree | None


# The generator's defaults as the forms write them ("2-3", "-9..9").
_BRANCHING = range_text(DEFAULTS["branching"])
_VALUES = range_text(DEFAULTS["values"], "..")


class TreeSettings(FlaskForm):
    """The generator's shape and the conventions, shared by the practice page and the slot
    editor (each adds its own fields and tree sources), and the one mapping of those forms to
    the services' parameters (`tree_choice`)."""

    # Declared by each subclass, with its own labels, defaults and choices.
    kind: SelectField
    source: RadioField
    min_cutoffs: IntegerField
    leaves: StringField
    leaf_branching: IntegerField
    leaf_depth: IntegerField
    nested: TextAreaField

    depth = IntegerField(
        "Depth", default=DEFAULTS["depth"], validators=[Optional(), NumberRange(1, MAX_DEPTH)]
    )
    branching = StringField(
        f"Branching (e.g. {_BRANCHING})",
        default=_BRANCHING,
        validators=[Optional(), Length(max=20)],
    )
    values = StringField(
        f"Leaf values (e.g. {_VALUES})", default=_VALUES, validators=[Optional(), Length(max=40)]
    )
    players = StringField(
        "Players per level (max, min, chance; e.g. max,chance)",
        default="max,min",
        validators=[Optional(), Length(max=100)],
    )
    bounds = StringField(
        "Leaf bounds L..U, stated to the student (chance trees: Star1 cuts with them; generated "
        "leaves lie within them)",
        validators=[Optional(), Length(max=40)],
    )
    min_star1_cutoffs = IntegerField(
        "At least this many Star1 cutoffs (at chance nodes)",
        validators=[Optional(), NumberRange(0, 50)],
    )
    ties = SelectField("Ties", choices=[SelectChoice(*c) for c in TIES.items()])
    values_rule = SelectField(
        "Cut nodes report", choices=[SelectChoice(*c) for c in CUT_NODES_REPORT.items()]
    )
    order = SelectField("Children", choices=[SelectChoice(*c) for c in CHILDREN.items()])
    depth_limit = IntegerField(
        "Depth limit in plies (empty: to the leaves)", validators=[Optional(), NumberRange(1, 64)]
    )
    evaluations = BooleanField("Evaluations on internal nodes (generated trees)")

    def tree_choice(self) -> TreeChoice:
        """The form as the services take it; Invalid (a ServiceError) when a typed tree is not
        one. Generated: the generator's parameters; fixed: the tree, built and bounded by the
        editor's `build_tree` (the one builder of typed trees)."""
        players = [p.strip() for p in (self.players.data or "").split(",") if p.strip()] or None
        conventions: dict[str, Any] = {
            "ties": self.ties.data,
            "values": self.values_rule.data,
            "order": self.order.data,
        }
        if self.depth_limit.data:
            conventions["depth"] = self.depth_limit.data
        if (self.bounds.data or "").strip():
            try:
                conventions["bounds"] = list(parse_range(self.bounds.data))
            except ValueError as error:
                raise Invalid(f"leaf bounds: {error}") from None
        if self.source.data == "generate":
            params = self.generator_params()
            if players:
                params["players"] = players
            return TreeChoice(self.kind.data, conventions, params, None)
        params, tree = self.fixed_tree(self.source.data, players)
        return TreeChoice(self.kind.data, conventions, params, tree)

    def generator_params(self) -> dict[str, Any]:
        """The generator's parameters on the form (an empty field: the generator's default)."""
        return {
            "depth": self.depth.data or DEFAULTS["depth"],
            "branching": self.branching.data or _BRANCHING,
            "values": self.values.data or _VALUES,
            "min_cutoffs": self.min_cutoffs.data or 0,
            "evaluations": bool(self.evaluations.data),
            # Only where asked: MAX/MIN parameters stay as they were (a chance level needs it).
            **({"min_star1_cutoffs": n} if (n := self.min_star1_cutoffs.data) else {}),
        }

    def fixed_tree(self, source: str, players: list[str] | None) -> tuple[dict[str, Any], Tree]:
        """A fixed tree typed on the form (leaf values or a nested list), and its parameters."""
        nested = nested_list(self.nested.data, "nested list") if source == "nested" else None
        return {}, editor.build_tree(
            source,
            leaves=self.leaves.data or "",
            branching=self.leaf_branching.data,
            depth=self.leaf_depth.data,
            nested=nested,
            players=players,
        )


class PracticeForm(TreeSettings):
    kind = SelectField(
        "Exercise", choices=[SelectChoice(k, kind_name(k)) for k in KINDS], default=default_kind()
    )
    source = RadioField(
        "Tree",
        default="generate",
        choices=[
            SelectChoice("generate", "Generate one"),
            SelectChoice("leaves", "Type leaf values"),
            SelectChoice("nested", "Type a nested list"),
        ],
    )
    min_cutoffs = IntegerField(
        "At least this many cutoffs", default=1, validators=[Optional(), NumberRange(0, 50)]
    )
    leaves = StringField(
        "Leaf values, comma-separated",
        default="3,12,8,2,4,6,14,5,2",
        validators=[Optional(), Length(max=8000)],
    )
    leaf_branching = IntegerField(
        "Branching", default=3, validators=[Optional(), NumberRange(1, 8)]
    )
    leaf_depth = IntegerField("Depth", default=2, validators=[Optional(), NumberRange(1, 8)])
    nested = TextAreaField(
        "Nested list",
        default="[[3, 12, 8], [2, 4, 6], [14, 5, 2]]",
        validators=[Optional(), Length(max=8000)],
    )

    def practice_args(self) -> dict[str, Any]:
        """`exercises.create_practice`'s arguments: generator parameters, or the typed tree."""
        choice = self.tree_choice()
        args: dict[str, Any] = {"kind": choice.kind, "conventions": choice.conventions}
        if choice.tree is None:
            return {**args, "params": choice.params}
        return {**args, "tree": choice.tree.to_nested(), "players": list(choice.tree.players)}


# The account link of an LTI launch: the account here, proved by its password.
class LinkAccountForm(FlaskForm):
    email = EmailField("E-mail of your account here", validators=[DataRequired(), Length(max=254)])
    password = PasswordField("Its password", validators=[DataRequired(), Length(max=200)])
    code = StringField(
        "Its second-factor code (only if it has one)", validators=[Optional(), Length(max=64)]
    )


_GAME_KINDS = [name for name, kind in KINDS.items() if kind.in_game_practice]


class GamePracticeForm(FlaskForm):
    kind = SelectField(
        "Exercise",
        choices=[SelectChoice(k, kind_name(k)) for k in _GAME_KINDS],
        # a game's own values first: the first kind offered whose search prunes nothing
        default=next((k for k in _GAME_KINDS if not KINDS[k].prunes), _GAME_KINDS[0]),
    )
    game = SelectField("Game", choices=[SelectChoice(g) for g in GAMES], default="tic-tac-toe")
    start = StringField(
        "Start position (empty: the initial one; random: a random reachable one)",
        default="random",
        validators=[Optional(), Length(max=200)],
    )
    depth = IntegerField(
        "Depth in plies", default=2, validators=[DataRequired(), NumberRange(1, 8)]
    )
    branching = IntegerField(
        "Branching cap (the first N moves in canonical order)",
        default=3,
        validators=[DataRequired(), NumberRange(1, 9)],
    )
    ties = SelectField("Ties", choices=[SelectChoice(*c) for c in TIES.items()])


# -- dates typed in a course's zone (the dashboard's forms) ------------------------------------

DATE_FORMATS = ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]


def utc_from_zone(field: Field, zone: str) -> dt.datetime | None:
    """A date field's value, typed in the course's zone, stored in UTC (a skipped or repeated
    time: Invalid, naming the field)."""
    if field.data is None:
        return None
    try:
        return zones.to_utc(field.data, zone)
    except Invalid as refused:
        raise Invalid(str(refused), field=field.short_name) from None


def in_zone(form: FlaskForm, zone: str, *, stored: bool = False) -> FlaskForm:
    """The form's date fields labelled with the course's zone, which they are typed in; with
    `stored`, their values (read from the database, UTC) shown in it."""
    for item in form:
        if isinstance(item, DateTimeLocalField):
            item.label.text = item.label.text.replace("(UTC", f"({zone}")
            if stored and item.data is not None:
                item.data = zones.field_value(item.data, zone)
    return form
