"""Practice "from a game": a form for the game, the start position (or a random one, seeded),
the depth and the branching cap; and the boards the exercise page shows beside each node."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required

from grader.services import ServiceError
from grader.services.trees import game_practice
from grader.web.forms import GamePracticeForm

bp = Blueprint("games", __name__)


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
