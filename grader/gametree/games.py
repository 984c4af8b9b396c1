"""Game trees from real games: tic-tac-toe (exact values), Connect-4 and checkers cut at a depth
with the prescribed evaluation at the horizon. Each node keeps its position, so an exercise can
show the board at every node; the tree is graded like any other.

Values are from the point of view of the player to move at the root (MAX); the first
``branching`` legal moves in canonical order are the children (tic-tac-toe: cells 1-9 in reading
order; Connect-4: columns 1-7 from the left; checkers: the rules' canonical order).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from grader.checkers import STARTING_FEN, Board, InvalidFenError
from grader.checkers import evaluate as checkers_evaluate
from grader.gametree.tree import Node, Tree, child_path

MAX_LEAVES = 5000  # as the generator: branching ** depth at most
RANDOM_START_TRIES = 100  # walks from the start before random_start settles for the start


class GameError(ValueError):
    """An unknown game, an invalid position or a tree too large."""


# -- tic-tac-toe: a position is 9 characters, X, O or '.', in reading order ---------------------

_LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def _ttt_winner(cells: str) -> str | None:
    for a, b, c in _LINES:
        if cells[a] != "." and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return None


def _ttt_turn(cells: str) -> str:
    return "X" if cells.count("X") == cells.count("O") else "O"


@functools.cache
def _ttt_exact(cells: str) -> int:
    """The exact value for the player to move: 1 win, 0 draw, -1 loss (perfect play)."""
    winner = _ttt_winner(cells)
    if winner is not None:
        return 1 if winner == _ttt_turn(cells) else -1
    moves = [i for i, c in enumerate(cells) if c == "."]
    if not moves:
        return 0
    turn = _ttt_turn(cells)
    return max(-_ttt_exact(cells[:i] + turn + cells[i + 1 :]) for i in moves)


class TicTacToe:
    name = "tic-tac-toe"
    start = "." * 9

    def parse(self, text: str) -> str:
        cells = "".join(text.split()).upper().replace("-", ".").replace("_", ".")
        if len(cells) != 9 or set(cells) - set("XO."):
            raise GameError("a tic-tac-toe position is 9 cells of X, O or '.', row by row")
        if cells.count("X") - cells.count("O") not in (0, 1):
            raise GameError("X moves first: X has as many marks as O, or one more")
        return cells

    def moves(self, cells: str) -> list[int]:
        if _ttt_winner(cells) is not None:
            return []
        return [i for i, c in enumerate(cells) if c == "."]

    def play(self, cells: str, move: int) -> str:
        return cells[:move] + _ttt_turn(cells) + cells[move + 1 :]

    def move_text(self, cells: str, move: int) -> str:
        return f"{_ttt_turn(cells)} on {move + 1}"

    def value(self, cells: str) -> int:
        """Exact at the horizon and at the end alike, for the player to move."""
        return _ttt_exact(cells)

    def board(self, cells: str) -> list[str]:
        return [cells[r * 3 : r * 3 + 3] for r in range(3)]

    def text(self, cells: str) -> str:
        return cells


# -- Connect-4: a position is the columns played so far, "4453" (1-7), on 7 x 6 ------------------

C4_COLUMNS, C4_ROWS, C4_WIN = 7, 6, 100


def _c4_grid(moves: str) -> list[list[str]]:
    grid = [["." for _ in range(C4_COLUMNS)] for _ in range(C4_ROWS)]  # row 0 at the bottom
    heights = [0] * C4_COLUMNS
    for n, ch in enumerate(moves):
        col = int(ch) - 1
        grid[heights[col]][col] = "X" if n % 2 == 0 else "O"
        heights[col] += 1
    return grid


def _c4_windows(grid: list[list[str]]) -> Iterator[list[str]]:
    for r in range(C4_ROWS):
        for c in range(C4_COLUMNS):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (-1, 1)):
                end_r, end_c = r + 3 * dr, c + 3 * dc
                if 0 <= end_r < C4_ROWS and 0 <= end_c < C4_COLUMNS:
                    yield [grid[r + i * dr][c + i * dc] for i in range(4)]


class ConnectFour:
    name = "connect-4"
    start = ""

    def parse(self, text: str) -> str:
        moves = "".join(text.split())
        if set(moves) - set("1234567"):
            raise GameError("a Connect-4 position is the columns played so far, 1-7 (e.g. 4453)")
        heights = [0] * C4_COLUMNS
        for n, ch in enumerate(moves):
            heights[int(ch) - 1] += 1
            if heights[int(ch) - 1] > C4_ROWS:
                raise GameError(f"column {ch} is full at move {n + 1}")
            if self._winner(moves[: n + 1]) and n + 1 < len(moves):
                raise GameError(f"the game was over after move {n + 1}")
        return moves

    def _winner(self, moves: str) -> str | None:
        for window in _c4_windows(_c4_grid(moves)):
            if window[0] != "." and window.count(window[0]) == 4:
                return window[0]
        return None

    def moves(self, moves: str) -> list[str]:
        if self._winner(moves) is not None:
            return []
        return [str(c + 1) for c in range(C4_COLUMNS) if moves.count(str(c + 1)) < C4_ROWS]

    def play(self, moves: str, move: str) -> str:
        return moves + move

    def move_text(self, moves: str, move: str) -> str:
        return f"{'X' if len(moves) % 2 == 0 else 'O'} in column {move}"

    def value(self, moves: str) -> int:
        """For the player to move: -C4_WIN when the last move won, 0 for a full board (a draw),
        else the prescribed evaluation: per window of four holding one player's discs only, 3
        discs 5 points and 2 discs 2, and 3 per disc in the centre column; own minus opponent's."""
        if self._winner(moves) is not None:  # the last move won: the player to move has lost
            return -C4_WIN
        if len(moves) == C4_COLUMNS * C4_ROWS:
            return 0
        me = "X" if len(moves) % 2 == 0 else "O"
        grid = _c4_grid(moves)
        score = 0
        for window in _c4_windows(grid):
            for player, sign in ((me, 1), ("O" if me == "X" else "X", -1)):
                mine = window.count(player)
                if mine and mine + window.count(".") == 4:
                    score += sign * {1: 0, 2: 2, 3: 5}.get(mine, 0)
        centre = [grid[r][C4_COLUMNS // 2] for r in range(C4_ROWS)]
        return score + 3 * (centre.count(me) - centre.count("O" if me == "X" else "X"))

    def board(self, moves: str) -> list[str]:
        return ["".join(row) for row in reversed(_c4_grid(moves))]

    def text(self, moves: str) -> str:
        return moves


# -- checkers: a position is a FEN; the assignment's material evaluation ------------------------

CHECKERS_WIN = 1000


class Checkers:
    name = "checkers"
    start = STARTING_FEN

    def parse(self, text: str) -> str:
        try:
            return Board(text.strip() or STARTING_FEN).fen()
        except (InvalidFenError, ValueError) as error:
            raise GameError(f"not a checkers FEN: {error}") from None

    def moves(self, fen: str) -> list[str]:
        return [m.pdn() for m in Board(fen).generate_legal_moves()]

    def play(self, fen: str, move: str) -> str:
        board = Board(fen)
        board.push_pdn(move)
        return board.fen()

    def move_text(self, fen: str, move: str) -> str:
        return move

    def value(self, fen: str) -> int:
        """-CHECKERS_WIN when the player to move has no move (a loss), else the material
        evaluation. A FEN carries no history, so neither draw (threefold repetition, the 40-move
        rule) can be reached in a tree built from positions alone."""
        board = Board(fen)
        if not board.legal_moves:
            return -CHECKERS_WIN
        return checkers_evaluate(board)

    def board(self, fen: str) -> list[str]:
        return str(Board(fen)).split("\n")

    def text(self, fen: str) -> str:
        return fen


GAMES: dict[str, Any] = {g.name: g for g in (TicTacToe(), ConnectFour(), Checkers())}


@dataclass(frozen=True)
class GameTree:
    """A tree from a game and, per node path, its position: the board's rows, the move that led
    to it (None at the root) and the position's text (to start another exercise from it)."""

    game: str
    start: str
    tree: Tree
    positions: dict[str, dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "start": self.start, "positions": self.positions}


def _game(name: str) -> Any:
    if name not in GAMES:
        raise GameError(f"unknown game {name!r} ({', '.join(GAMES)})")
    return GAMES[name]


def random_start(name: str, rng: random.Random, plies: tuple[int, int] = (2, 6)) -> str:
    """A position reached by ``plies[0]`` to ``plies[1]`` random moves from the start (seeded;
    each count and each legal move equally likely) where the game goes on; after
    ``RANDOM_START_TRIES`` walks that each ended the game, the start."""
    game = _game(name)
    for _ in range(RANDOM_START_TRIES):
        position = game.start
        # int(rng.random() * n) is below n: rng.random() is below 1, and (1 - 2**-53) * n
        # rounds below n.
        for _ in range(plies[0] + int(rng.random() * (plies[1] - plies[0] + 1))):
            moves = game.moves(position)
            if not moves:
                break
            position = game.play(position, moves[int(rng.random() * len(moves))])
        if game.moves(position):
            return game.text(position)
    return game.text(game.start)


def game_tree(name: str, start: str | None = None, depth: int = 2, branching: int = 3) -> GameTree:
    """The tree of ``name`` from ``start`` (the initial position when None), ``depth`` plies
    deep, each node's first ``branching`` moves in canonical order as its children; a node where
    the game is over, or at the depth, is a leaf holding its value."""
    game = _game(name)
    if not 1 <= depth <= 8 or not 1 <= branching <= 9:
        raise GameError(f"depth must be 1..8 and branching 1..9, got {depth} and {branching}")
    if branching**depth > MAX_LEAVES:
        raise GameError(
            f"{branching}^{depth} leaves is too many for an exercise (at most {MAX_LEAVES})"
        )
    position = game.parse(game.start if start is None else start)
    if not game.moves(position):
        raise GameError("the game is over in that position: there is no move to search")
    positions: dict[str, dict[str, Any]] = {}

    def build(pos: Any, path: str, ply: int, move: str | None) -> Node:
        positions[path] = {"board": game.board(pos), "move": move, "position": game.text(pos)}
        moves = game.moves(pos) if ply < depth else []
        if not moves:
            value = game.value(pos)
            return Node(value if ply % 2 == 0 else -value)  # from the root player's side
        return Node(
            None,
            tuple(
                build(game.play(pos, m), child_path(path, i), ply + 1, game.move_text(pos, m))
                for i, m in enumerate(moves[:branching])
            ),
        )

    root = build(position, "", 0, None)
    # MAX at the root, then MIN (a Tree's players unless told otherwise)
    return GameTree(name, game.text(position), Tree(root), positions)
