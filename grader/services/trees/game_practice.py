"""Practice trees from real games (`grader.gametree.games`): stored like a typed tree (no
generator seed, so nothing regenerates them) with the game, the start position, the depth and the
branching cap in the exercise's parameters, from which the board at every node is rebuilt."""

from __future__ import annotations

import random
import secrets
from typing import Any

from grader.extensions import db
from grader.gametree import KINDS
from grader.gametree.games import GAMES, GameError, GameTree, game_tree, random_start
from grader.models import Exercise, User
from grader.services import Invalid, costly
from grader.services.transactions import writing
from grader.services.trees.exercises import (
    _check_kind,
    _conventions,
    _refuse_open_graded_tree,
    practice_room,
    practice_try,
)

RANDOM = "random"


def create_game_practice(
    user: User,
    kind: str,
    game: str,
    *,
    start: str | None = None,
    depth: int = 2,
    branching: int = 3,
    conventions: dict[str, Any] | None = None,
) -> Exercise:
    """A practice exercise on a game's tree; ``start`` None: the initial position, "random": a
    position reached by random moves (seeded, the seed kept)."""
    _check_kind(kind)
    conv = _conventions(conventions)
    if conv.depth is not None:
        raise Invalid("a game tree is cut at its own depth: leave the depth limit out")
    practice_try(user)
    found, params = game_source(game, start, depth, branching)
    try:
        KINDS[kind].check_tree(found.tree)
    except ValueError as exc:
        raise Invalid(f"{game}: {exc}") from exc
    _refuse_open_graded_tree(user, found.tree)
    data = found.tree.to_dict()
    with writing() as session:
        practice_room(session, user)
        exercise = Exercise(
            owner_id=user.id,
            kind=kind,
            seed=None,
            generator_version=None,
            params=params,
            tree=data["tree"],
            players=list(data["players"]),
            conventions=conv.to_dict(),
            **costly.grading_facts(kind, found.tree),
        )
        session.add(exercise)
        return exercise


def game_source(
    game: str, start: str | None, depth: int, branching: int
) -> tuple[GameTree, dict[str, Any]]:
    """The game's tree (a "random" start resolved once, seeded) and the parameters that rebuild
    it and its boards: the practice page's and the slot editor's "from a game"."""
    if game not in GAMES:
        raise Invalid(f"game must be one of {', '.join(GAMES)}, not {game!r}")
    seed = None
    if start is not None and start.strip().lower() == RANDOM:
        seed = secrets.token_hex(8)
        start = random_start(game, random.Random(f"grader-game-start:{seed}"))
    try:
        found = game_tree(game, start or None, depth=depth, branching=branching)
    except GameError as exc:
        raise Invalid(f"{game}: {exc}") from exc
    return found, {
        "game": game,
        "start": found.start,
        "depth": depth,
        "branching": branching,
        "start_seed": seed,
    }


def game_params(params: dict[str, Any] | None) -> dict[str, Any]:
    """Of a fixed slot's parameters, only what rebuilds its game's boards ({} for other trees)."""
    params = params or {}
    if params.get("game") not in GAMES:
        return {}
    return {k: params.get(k) for k in ("game", "start", "depth", "branching", "start_seed")}


def boards(exercise: Exercise) -> dict[str, Any] | None:
    """The game and the position at every node of a game exercise (None for any other)."""
    params = game_params(exercise.slot.params if exercise.slot is not None else exercise.params)
    if not params:
        return None
    found = game_tree(
        params["game"], params["start"], depth=params["depth"], branching=params["branching"]
    )
    return found.to_dict()


def boards_of(exercise_id: int) -> dict[str, Any] | None:
    """`boards` of a stored exercise, by id (for the exercise page, which has checked access)."""
    exercise = db.session.get(Exercise, exercise_id)
    return boards(exercise) if exercise is not None else None
