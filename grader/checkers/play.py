"""Games between two players, returned as PDN games; balloted three-move openings."""

from __future__ import annotations

import datetime
import random
from collections.abc import Callable, Sequence
from pathlib import Path

from grader.checkers.board import BLACK, Board, Move
from grader.checkers.ladder import Player
from grader.checkers.pdn import Game

MAX_PLIES = 400  # a safety net; the 40-move rule and repetition end real games long before


class Forfeit(Exception):
    """Raised by a player's ``choose_move`` to lose the game at once: an engine that crashed, ran
    out of time or answered an illegal move. ``reason`` goes into the PDN's Termination header."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def load_ballots(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """(name, three PDN moves) per ballot line of the file at `path` (the shipped one is
    `grader.data.ballots_file()`); lines starting with # are comments."""
    ballots = []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if parts and not parts[0].startswith("#"):
            ballots.append((parts[0], tuple(parts[1:])))
    return ballots


def pick_ballots(
    ballots: list[tuple[str, tuple[str, ...]]], count: int, seed: int
) -> list[tuple[str, tuple[str, ...]]]:
    """`count` distinct ballots drawn with random.Random(seed), in draw order."""
    return random.Random(seed).sample(ballots, min(count, len(ballots)))


def play_game(
    black: Player,
    white: Player,
    *,
    fen: str | None = None,
    opening: tuple[str, ...] = (),
    headers: dict[str, str] | None = None,
    on_move: Callable[[Board, Move], None] | None = None,
    max_plies: int = MAX_PLIES,
) -> Game:
    """Play one game to its end (Board.outcome) and return it as a PDN game.

    `opening` moves are played first, for both sides (a ballot). A game cut by `max_plies`
    is recorded with the result `*`. A player whose `choose_move` raises `Forfeit` loses at once.
    """
    board = Board(fen) if fen else Board()
    game = Game(
        headers={
            "Event": "Alpha-Beta Grader match",
            "Date": datetime.date.today().strftime("%Y.%m.%d"),
            "Black": black.name,
            "White": white.name,
            **({"SetUp": "1", "FEN": board.fen()} if fen else {}),
            **(headers or {}),
        }
    )
    for text in opening:
        move = board.push_pdn(text)
        game.moves.append(move)
        if on_move:
            on_move(board, move)
    while (outcome := board.outcome()) is None and len(game.moves) < max_plies:
        player = black if board.turn == BLACK else white
        try:
            move = player.choose_move(board)
        except Forfeit as forfeit:
            game.result = "0-1" if board.turn == BLACK else "1-0"
            game.headers["Termination"] = f"forfeit: {forfeit.reason}"
            return game
        if not board.is_legal(move):
            raise RuntimeError(f"{player.name} chose the illegal move {move.pdn()!r}")
        board.push(move)
        game.moves.append(move)
        if on_move:
            on_move(board, move)
    game.result = outcome.result() if outcome else "*"
    game.headers["Termination"] = (
        outcome.termination.value if outcome else f"unfinished after {max_plies} plies"
    )
    return game


def play_match(
    black: Player,
    white: Player,
    games: int = 1,
    *,
    ballots: Sequence[tuple[str, tuple[str, ...]]] = (),
    seed: int = 0,
    on_move: Callable[[Board, Move], None] | None = None,
) -> list[Game]:
    """`games` games between the same two players; given `ballots` (`load_ballots`), each starts
    from a three-move ballot drawn from them with random.Random(seed)."""
    rng = random.Random(seed)
    out = []
    for number in range(1, games + 1):
        opening: tuple[str, ...] = ()
        headers = {"Round": str(number)}
        if ballots:
            name, opening = rng.choice(ballots)
            headers["Opening"] = f"ballot {name}: {' '.join(opening)}"
        out.append(play_game(black, white, opening=opening, headers=headers, on_move=on_move))
    return out
