"""The assignment editor's forms (Flask-WTF: each carries its CSRF token). Dates are typed in
the course's zone and stored in UTC. The slot editor's form maps to the editor's `SlotInput` and
back (`slot_input`, `from_slot`)."""

from __future__ import annotations

import json
from typing import Any

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import (
    BooleanField,
    DateTimeLocalField,
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
from grader.gametree.generator import MAX_MISCONCEPTION_ERRORS, MAX_TRIES, range_text
from grader.gametree.kinds import default_kind
from grader.models import SCORE_POLICIES, Slot
from grader.services.teaching import editor
from grader.services.trees import game_practice
from grader.web.forms import DATE_FORMATS, SelectChoice, TreeSettings, nested_list, utc_from_zone
from grader.web.words import kind_name


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
            release_at=utc_from_zone(self.release_at, zone),
            due_at=utc_from_zone(self.due_at, zone),
            late_percent_per_day=self.late_percent_per_day.data,
            score_policy=self.score_policy.data,
            hold_scores=bool(self.hold_scores.data),
            scores_release_at=utc_from_zone(self.scores_release_at, zone),
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
            title=self.title.data or "", due_at=utc_from_zone(self.due_at, zone)
        )


class EngineSlotForm(FlaskForm):
    """An engine slot for the assignment: its title and the suite its uploads are graded with
    (the choices: `submissions.engine_suites`, set by the view)."""

    # Ids of their own: the assignment's form is on the same page.
    title = StringField(
        "Title (empty: Checkers engine)",
        validators=[Optional(), Length(max=200)],
        id="engine-title",
    )
    suite = SelectField("Graded with the suite", choices=[], id="engine-suite")


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
        "Each misconception costs at least this many errors (2: none passes for a slip)",
        validators=[Optional(), NumberRange(0, MAX_MISCONCEPTION_ERRORS)],
    )
    # A band of difficulty (docs/game-trees.md, "Difficulty across a class"): empty, no band.
    pruned_nodes = StringField(
        "Band: nodes to mark pruned, e.g. 8-10", validators=[Optional(), Length(max=20)]
    )
    leaves_evaluated = StringField(
        "Band: leaves evaluated, e.g. 22-26", validators=[Optional(), Length(max=20)]
    )
    answers = StringField(
        "Band: answers to give, e.g. 9-11", validators=[Optional(), Length(max=20)]
    )
    max_cutoffs = IntegerField(
        "Band: at most this many cutoffs", validators=[Optional(), NumberRange(0, 50)]
    )
    never_key = StringField(
        "Band: misconceptions that never give the key, e.g. no-pruning,leaves-only",
        validators=[Optional(), Length(max=400)],
    )
    max_tries = IntegerField(
        "Candidate trees tried per student at most (empty: the generator's default)",
        validators=[Optional(), NumberRange(1, MAX_TRIES)],
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
            # The band, where asked (the generator reads the ranges and the codes as text).
            **{
                name: text
                for name in ("pruned_nodes", "leaves_evaluated", "answers", "never_key")
                if (text := (getattr(self, name).data or "").strip())
            },
            **({"max_cutoffs": n} if (n := self.max_cutoffs.data) is not None else {}),
            **({"max_tries": n} if (n := self.max_tries.data) else {}),
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
            due_at=utc_from_zone(self.due_at, zone),
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
        for name in ("pruned_nodes", "leaves_evaluated", "answers"):
            band = params.get(name)
            getattr(form, name).data = range_text(tuple(band)) if band else None
        form.never_key.data = ",".join(params.get("never_key", [])) or None
        form.max_cutoffs.data = params.get("max_cutoffs")
        form.max_tries.data = params.get("max_tries")
        form.players.data = ",".join(params.get("players", ["max", "min"]))
        return form


class RegradeForm(FlaskForm):
    """The regrade button with its one choice (a plain button is ``forms.ActionForm``)."""

    allow_lower = BooleanField("Allow scores to go down")
