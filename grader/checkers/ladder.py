"""Opponents by name: `random`, `greedy`, `ref:N` (N plies), `ref:best` (time-limited)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from grader.checkers.board import Board, Move
from grader.checkers.engine import ReferenceEngine, alphabeta

LADDER = ("random", "greedy", "ref:2", "ref:4", "ref:6", "ref:8", "ref:best")
BEST_TIME = 1.0  # seconds per move for ref:best


class Player(Protocol):
    """A player. The ladder's also say whether their move is a function of the position
    alone (`positional`: no state kept between moves, no clock), so that it may be remembered
    by position."""

    name: str

    def choose_move(self, board: Board) -> Move:
        """A legal move for the side to move (the board has at least one)."""
        ...


@dataclass
class RandomPlayer:
    """A uniformly random legal move, from a seeded random.Random."""

    rng: random.Random = field(default_factory=lambda: random.Random(0))
    name: str = "random"
    positional: ClassVar[bool] = False  # the generator's state moves on with every move

    def choose_move(self, board: Board) -> Move:
        return self.rng.choice(board.generate_legal_moves())


@dataclass
class GreedyPlayer:
    """One ply: the first move (canonical order) with the best evaluation after it."""

    name: str = "greedy"
    positional: ClassVar[bool] = True

    def choose_move(self, board: Board) -> Move:
        move = alphabeta(board, 1).best_move
        assert move is not None
        return move


@dataclass
class ReferencePlayer:
    """The enhanced reference engine at a fixed depth, or deepening until `time_limit`."""

    depth: int = 64
    time_limit: float | None = None
    name: str = "ref"
    engine: ReferenceEngine = field(default_factory=ReferenceEngine)

    @property
    def positional(self) -> bool:
        """At a fixed depth: each search starts afresh and sees the position only."""
        return self.time_limit is None

    def choose_move(self, board: Board) -> Move:
        move = self.engine.search(board, self.depth, self.time_limit).best_move
        assert move is not None
        return move


def player_from_name(name: str, seed: int = 0) -> Player:
    """The opponent called `name` (see LADDER); raises ValueError for an unknown name."""
    key = name.strip().lower()
    if key == "random":
        return RandomPlayer(random.Random(seed))
    if key == "greedy":
        return GreedyPlayer()
    if key == "ref:best":
        return ReferencePlayer(time_limit=BEST_TIME, name=key)
    if key.startswith("ref:") and key[4:].isdigit() and int(key[4:]) >= 1:
        return ReferencePlayer(depth=int(key[4:]), name=key)
    raise ValueError(f"unknown engine {name!r}: expected one of {', '.join(LADDER)} or ref:N")
