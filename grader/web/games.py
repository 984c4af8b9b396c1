"""Practice "from a game": a form for the game, the start position (or a random one, seeded),
the depth and the branching cap; and the boards the exercise page shows beside each node."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from flask_wtf import FlaskForm
from wtforms import IntegerField, SelectField, StringField
from wtforms.validators import DataRequired, Length, NumberRange, Optional

from grader.gametree import KINDS
from grader.gametree.games import GAMES
from grader.services import ServiceError, game_practice
from grader.web.forms import SelectChoice

bp = Blueprint("games", __name__)


class GamePracticeForm(FlaskForm):
    kind = SelectField(
        "Exercise",
        choices=[SelectChoice(k) for k, kind in KINDS.items() if kind.in_game_practice],
        default="minimax",
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
    ties = SelectField(
        "Ties",
        choices=[
            SelectChoice("prune", "prune when alpha >= beta (AIMA)"),
            SelectChoice("explore", "prune only when strictly outside (CS188)"),
        ],
    )


@bp.before_request
@login_required
def _signed_in() -> None:
    """Every page here needs a signed-in user."""


@bp.route("/practice/game", methods=["GET", "POST"])
def practice_game() -> Any:
    form = GamePracticeForm()
    if form.validate_on_submit():
        try:
            created = game_practice.create_game_practice(
                current_user,
                form.kind.data,
                form.game.data,
                start=form.start.data or None,
                depth=form.depth.data or 2,
                branching=form.branching.data or 3,
                conventions={"ties": form.ties.data},
            )
        except ServiceError as error:
            flash(str(error), "error")
        else:
            return redirect(url_for("pages.exercise", exercise_id=created.id))
    status = 400 if request.method == "POST" else 200
    return render_template("games/practice_game.html", form=form), status


@bp.app_context_processor
def _boards() -> dict[str, Any]:
    """`game_boards(exercise_id)` for the exercise page: the positions of a game exercise."""

    return {"game_boards": game_practice.boards_of}
