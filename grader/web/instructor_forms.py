"""The dashboard's forms (Flask-WTF: each carries its CSRF token). Dates are UTC. The slot
editor's form maps to the editor's `SlotInput` and back (`slot_input`, `from_slot`)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
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
from wtforms.validators import DataRequired, Length, NumberRange, Optional

from grader.gametree import KINDS, Conventions, Tree
from grader.gametree.exact import fmt
from grader.gametree.games import GAMES
from grader.gametree.generator import MAX_MISCONCEPTION_ERRORS
from grader.gametree.kinds import default_kind
from grader.models import COURSE_ROLES, SCORE_POLICIES, Slot
from grader.services.courses import extensions, zones
from grader.services.teaching import editor
from grader.services.trees import game_practice
from grader.web.forms import SelectChoice, TreeSettings, nested_list
from grader.web.words import kind_name

DATE_FORMATS = ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]


def _utc(value: dt.datetime | None, zone: str) -> dt.datetime | None:
    """A date typed in the course's zone, stored in UTC (a skipped or repeated time: Invalid)."""
    return zones.to_utc(value, zone) if value is not None else None


def in_zone(form: FlaskForm, zone: str, *, stored: bool = False) -> FlaskForm:
    """The form's date fields labelled with the course's zone, which they are typed in; with
    `stored`, their values (read from the database, UTC) shown in it."""
    for item in form:
        if isinstance(item, DateTimeLocalField):
            item.label.text = item.label.text.replace("(UTC", f"({zone}")
            if stored and item.data is not None:
                item.data = zones.field_value(item.data, zone)
    return form


ROLE_CHOICES = [SelectChoice(r, {"ta": "TA"}.get(r, r)) for r in COURSE_ROLES]


class CourseForm(FlaskForm):
    name = StringField("Course name", validators=[DataRequired(), Length(max=200)])
    timezone = StringField(
        "Time zone (IANA, for example America/New_York; empty: the server's)",
        validators=[Optional(), Length(max=64)],
    )


class SlipDaysForm(FlaskForm):
    slip_days = IntegerField(
        "Slip days per student (0: none)", validators=[NumberRange(0, 366)], default=0
    )


class TimezoneForm(FlaskForm):
    timezone = StringField(
        "Time zone (IANA, for example America/New_York)",
        validators=[DataRequired(), Length(max=64)],
    )


class MemberForm(FlaskForm):
    email = EmailField("E-mail", validators=[DataRequired(), Length(max=254)])
    name = StringField("Name", validators=[Optional(), Length(max=200)])
    role = SelectField("Role", choices=ROLE_CHOICES, default="student")


class ImportForm(FlaskForm):
    csv_text = TextAreaField(
        "Students as CSV (email,name per line, or a header row)",
        validators=[Optional(), Length(max=500_000)],
    )


class ExtensionForm(FlaskForm):
    """One extension on an assignment: for a student (an e-mail) or a named group, the whole
    assignment or one exercise; a later date or days, extra attempts, the penalty waived."""

    email = StringField("Student's e-mail", validators=[Optional(), Length(max=320)])
    group = StringField("or a group's name", validators=[Optional(), Length(max=100)])
    slot = SelectField("For", choices=[], validate_choice=False)
    due_at = DateTimeLocalField("New due date (UTC)", format=DATE_FORMATS, validators=[Optional()])
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
            due_at=_utc(self.due_at.data, zone),
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
    name = StringField("Group name", validators=[DataRequired(), Length(max=100)])
    emails = TextAreaField(
        "Its students' e-mails (one a line)", validators=[Optional(), Length(max=200_000)]
    )


class RoleForm(FlaskForm):
    role = SelectField("Role", choices=ROLE_CHOICES)


class ExpireForm(FlaskForm):
    """A date for the join code to stop working, or (confirmed, with `now`) at once."""

    expires_at = DateTimeLocalField(
        "Expires at (UTC)", format=DATE_FORMATS, validators=[Optional()]
    )
    now = HiddenField()


class AssignmentForm(FlaskForm):
    title = StringField("Title", validators=[DataRequired(), Length(max=200)])
    preset = SelectField("Start from a preset", choices=[], validate_choice=False)
    release_at = DateTimeLocalField("Release (UTC)", format=DATE_FORMATS, validators=[Optional()])
    due_at = DateTimeLocalField("Due (UTC)", format=DATE_FORMATS, validators=[Optional()])
    late_percent_per_day = FloatField(
        "Late penalty, percent per day (empty: no late attempts)",
        validators=[Optional(), NumberRange(0, 100)],
    )
    score_policy = SelectField(
        "Score counted", choices=[SelectChoice(p, f"{p} attempt") for p in SCORE_POLICIES]
    )
    hold_scores = BooleanField("Hold scores and keys from students until their release")
    scores_release_at = DateTimeLocalField(
        "Scores released on (UTC; empty: each student's due date)",
        format=DATE_FORMATS,
        validators=[Optional()],
    )

    def assignment_input(self, zone: str) -> editor.AssignmentInput:
        return editor.AssignmentInput(
            title=self.title.data or "",
            release_at=_utc(self.release_at.data, zone),
            due_at=_utc(self.due_at.data, zone),
            late_percent_per_day=self.late_percent_per_day.data,
            score_policy=self.score_policy.data,
            hold_scores=bool(self.hold_scores.data),
            scores_release_at=_utc(self.scores_release_at.data, zone),
        )


class PresetAssignmentForm(FlaskForm):
    """A new assignment from a preset, made and placed in the LMS in one submit."""

    preset = SelectField("Preset", choices=[], validators=[DataRequired()])
    title = StringField("Title", validators=[DataRequired(), Length(max=200)])
    due_at = DateTimeLocalField(
        "Due (in the course's time zone; empty: no due date)",
        format=DATE_FORMATS,
        validators=[Optional()],
    )

    def assignment_input(self, zone: str) -> editor.AssignmentInput:
        return editor.AssignmentInput(
            title=self.title.data or "", due_at=_utc(self.due_at.data, zone)
        )


class EngineSlotForm(FlaskForm):
    """An engine slot for the assignment: its title and the suite its uploads are graded with
    (the choices: `submissions.engine_suites`, set by the view)."""

    title = StringField("Title (empty: Checkers engine)", validators=[Optional(), Length(max=200)])
    suite = SelectField("Graded with the suite", choices=[])


class SlotForm(TreeSettings):
    title = StringField("Title", validators=[Optional(), Length(max=200)])
    kind = SelectField(
        "Kind", choices=[SelectChoice(k, kind_name(k)) for k in KINDS], default=default_kind()
    )
    source = RadioField(
        "Tree",
        default="generate",
        choices=[
            SelectChoice("generate", "Generate a variant per student"),
            SelectChoice("leaves", "Fixed: leaf values"),
            SelectChoice("nested", "Fixed: nested list"),
            SelectChoice("draw", "Fixed: draw it"),
            SelectChoice("cs188", "Fixed: CS188 .test file"),
            SelectChoice("game", "Fixed: from a game"),
        ],
    )
    game = SelectField("Game", choices=[SelectChoice(g) for g in GAMES], default="tic-tac-toe")
    game_start = StringField(
        "Start position (empty: the initial one; random: a random reachable one)",
        default="random",
        validators=[Optional(), Length(max=200)],
    )
    game_depth = IntegerField(
        "Depth in plies", default=2, validators=[Optional(), NumberRange(1, 8)]
    )
    game_branching = IntegerField(
        "Branching cap (the first N moves in canonical order)",
        default=3,
        validators=[Optional(), NumberRange(1, 9)],
    )
    min_cutoffs = IntegerField(
        "At least this many cutoffs", default=2, validators=[Optional(), NumberRange(0, 50)]
    )
    min_deep_cutoffs = IntegerField(
        "At least this many deep cutoffs", default=0, validators=[Optional(), NumberRange(0, 50)]
    )
    misconception_errors = IntegerField(
        "Chance trees: each misconception costs at least this many errors (2: none passes for "
        "a slip)",
        validators=[Optional(), NumberRange(0, MAX_MISCONCEPTION_ERRORS)],
    )
    distinct = BooleanField("Distinct leaf values")
    discriminating = BooleanField("Discriminating (every misconception gives its own answer)")
    leaves = StringField(
        "Leaf values, comma-separated",
        default="3,12,8,2,4,6,14,5,2",
        validators=[Optional(), Length(max=8000)],
    )
    leaf_branching = IntegerField(
        "Uniform branching", default=3, validators=[Optional(), NumberRange(1, 8)]
    )
    leaf_depth = IntegerField(
        "Uniform depth", default=2, validators=[Optional(), NumberRange(1, 8)]
    )
    nested = TextAreaField(
        "Nested list",
        default="[[3, 12, 8], [2, 4, 6], [14, 5, 2]]",
        validators=[Optional(), Length(max=20000)],
    )
    drawn = HiddenField("Drawn tree", default="[[0, 0], [0, 0]]")
    cs188 = TextAreaField("CS188 GraphGameTreeTest", validators=[Optional(), Length(max=100_000)])
    cs188_file = FileField("or a file")
    attempts_allowed = IntegerField(
        "Attempts allowed (empty: unlimited)",
        default=3,
        validators=[Optional(), NumberRange(1, 1000)],
    )
    practice_allowed = BooleanField("Practice variants", default=True)
    replay_allowed = BooleanField("Key and replay after the attempts", default=True)
    due_at = DateTimeLocalField(
        "Due (UTC; empty: the assignment's)", format=DATE_FORMATS, validators=[Optional()]
    )
    allow_lower = BooleanField("If this regrades attempts, allow scores to go down")

    def generator_params(self) -> dict[str, Any]:
        return {
            **super().generator_params(),
            "min_deep_cutoffs": self.min_deep_cutoffs.data or 0,
            "distinct": bool(self.distinct.data),
            "discriminating": bool(self.discriminating.data),
            **({"misconception_errors": n} if (n := self.misconception_errors.data) else {}),
        }

    def fixed_tree(self, source: str, players: list[str] | None) -> tuple[dict[str, Any], Tree]:
        """The editor's further sources: a game's tree, a drawn tree, a CS188 file."""
        if source == "game":
            found, params = game_practice.game_source(
                self.game.data,
                self.game_start.data or None,
                self.game_depth.data or 2,
                self.game_branching.data or 3,
            )
            return params, found.tree
        if source == "draw":
            return {}, editor.build_tree(
                source, nested=nested_list(self.drawn.data, "drawn tree"), players=players
            )
        if source == "cs188":
            return {}, editor.build_tree(source, cs188=self._cs188_text(), players=players)
        return super().fixed_tree(source, players)

    def _cs188_text(self) -> str:
        upload = self.cs188_file.data
        if upload and upload.filename:
            return upload.read().decode("utf-8", errors="replace")
        return self.cs188.data or ""

    def slot_input(self, zone: str) -> editor.SlotInput:
        """The form as the editor's SlotInput."""
        choice = self.tree_choice()
        return editor.SlotInput(
            kind=choice.kind,
            conventions=choice.conventions,
            params=choice.params,
            tree=choice.tree,
            title=self.title.data,
            attempts_allowed=self.attempts_allowed.data or None,
            practice_allowed=bool(self.practice_allowed.data),
            replay_allowed=bool(self.replay_allowed.data),
            due_at=_utc(self.due_at.data, zone),
        )

    @classmethod
    def from_slot(cls, slot: Slot) -> SlotForm:
        """The form filled from a stored slot (the way back of `slot_input`)."""
        form = cls(formdata=None)
        form.title.data, form.kind.data = slot.title, slot.kind
        conventions = Conventions.from_dict(slot.conventions)
        form.ties.data, form.values_rule.data = conventions.ties, conventions.values
        form.order.data = conventions.order
        form.depth_limit.data = conventions.depth
        if conventions.bounds is not None:
            form.bounds.data = "..".join(fmt(b) for b in conventions.bounds)
        form.attempts_allowed.data = slot.attempts_allowed
        form.practice_allowed.data = slot.practice_allowed
        form.replay_allowed.data = slot.replay_allowed
        form.due_at.data = slot.due_at
        params = slot.params or {}
        if slot.tree is not None:
            tree = Tree.from_dict(slot.tree)
            form.source.data = "game" if params.get("game") else "nested"
            if params.get("game"):
                form.game.data, form.game_start.data = params["game"], params["start"]
                form.game_depth.data = params["depth"]
                form.game_branching.data = params["branching"]
            form.nested.data = form.drawn.data = json.dumps(tree.to_nested())
            form.players.data = ",".join(tree.players)
            return form
        form.source.data = "generate"
        form.depth.data = params.get("depth", 3)
        form.branching.data = "-".join(str(x) for x in params.get("branching", [2, 3]))
        form.values.data = "..".join(str(x) for x in params.get("values", [-9, 9]))
        form.min_cutoffs.data = params.get("min_cutoffs", 0)
        form.min_deep_cutoffs.data = params.get("min_deep_cutoffs", 0)
        form.distinct.data = params.get("distinct", False)
        form.discriminating.data = params.get("discriminating", False)
        form.evaluations.data = params.get("evaluations", False)
        form.min_star1_cutoffs.data = params.get("min_star1_cutoffs") or None
        form.misconception_errors.data = params.get("misconception_errors") or None
        form.players.data = ",".join(params.get("players", ["max", "min"]))
        return form


class RegradeForm(FlaskForm):
    """The regrade button with its one choice (a plain button is ``forms.ActionForm``)."""

    allow_lower = BooleanField("Allow scores to go down")


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


class SimilarityForm(FlaskForm):
    """The engine similarity check's button, with its one choice."""

    earlier = BooleanField(
        "Also compare with earlier offerings (your other courses' engine slots on the same suite)"
    )


class IntegrityAccessForm(FlaskForm):
    """Whether the course's TAs may read the academic-integrity pages."""

    ta_may_read = BooleanField("The course's TAs may read the academic-integrity pages")
    back = HiddenField()  # the page the form is on, to return to


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

    def first_due_at(self, zone: str) -> dt.datetime | None:
        """The first due date typed, in the course's zone, as UTC."""
        return _utc(self.first_due.data, zone)


class CopyAssignmentForm(FlaskForm):
    assignment = SelectField("Assignment", validators=[DataRequired()])
    target = SelectField("Into the course", validators=[DataRequired()])
    shift_days = IntegerField(
        "Move its dates by (days)",
        default=0,
        validators=[Optional(), NumberRange(min=-3660, max=3660)],
    )
