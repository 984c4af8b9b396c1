"""PDN games: read and write English draughts games (`GameType "21"`).

Movetext is numbered as in `1. 11-15 23-19 2. 8-11`; a game from a position carries
`[SetUp "1"]` and `[FEN "..."]` and, if White moves first, starts with `1... 23-19`.
Results: `1-0` Black wins, `0-1` White wins, `1/2-1/2` draw, `*` unfinished.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from grader.checkers.board import (
    BLACK,
    STARTING_FEN,
    Board,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    Move,
)

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
GAME_TYPE = "21"  # English draughts in the PDN GameType numbering
SEVEN_TAGS = ("Event", "Site", "Date", "Round", "Black", "White", "Result")


class InvalidPdnError(ValueError):
    """PDN text that cannot be read as games of English draughts."""


@dataclass
class Game:
    """A game: tag pairs, the moves from the starting position, and the result."""

    headers: dict[str, str] = field(default_factory=dict)
    moves: list[Move] = field(default_factory=list)
    result: str = "*"

    @property
    def fen(self) -> str:
        """The starting position: the FEN tag when SetUp is 1, else the standard start."""
        if "FEN" in self.headers and self.headers.get("SetUp", "1") == "1":
            return self.headers["FEN"]
        return STARTING_FEN

    def board(self) -> Board:
        """A board at the starting position."""
        return Board(self.fen)

    def end_board(self) -> Board:
        """A board after all the moves (with the moves on its stack, for repetition)."""
        board = self.board()
        for move in self.moves:
            board.push(move)
        return board

    def pdn(self) -> str:
        """The game as PDN text, ending with a blank line."""
        headers = {"GameType": GAME_TYPE, **self.headers, "Result": self.result}
        if headers.get("FEN") and headers["FEN"] != STARTING_FEN:
            headers["SetUp"] = "1"
        lines = [f'[{k} "{_escape(v)}"]' for k, v in _ordered(headers)]
        tokens: list[str] = []
        board = self.board()
        number = 1
        for i, move in enumerate(self.moves):
            if board.turn == BLACK:  # a move number stays on the line of its move
                tokens.append(f"{number}. {move.pdn()}")
            elif i == 0:
                tokens.append(f"{number}... {move.pdn()}")
            else:
                tokens.append(move.pdn())
            if board.turn != BLACK:
                number += 1
            board.push(move)
        tokens.append(self.result)
        lines.append("")
        lines.extend(_wrap(tokens))
        return "\n".join(lines) + "\n"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _ordered(headers: dict[str, str]) -> list[tuple[str, str]]:
    first = [(k, headers[k]) for k in SEVEN_TAGS if k in headers]
    return first + [(k, v) for k, v in headers.items() if k not in SEVEN_TAGS]


def _wrap(tokens: list[str], width: int = 79) -> list[str]:
    lines, line = [], ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > width:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    if line:
        lines.append(line)
    return lines


_TAG = re.compile(r'\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_TOKEN = re.compile(
    r"""(?P<tag>\[[^\]]*\])|(?P<comment>\{[^}]*\})|(?P<open>\()|(?P<close>\))
      |(?P<result>1-0|0-1|1/2-1/2|2-0|0-2|1-1|0-0|\*)(?![\d\-x])
      |(?P<number>\d+\.(\.\.)?)|(?P<move>\d+(?:[-x]\d+)+)[!?]*
      |(?P<nag>\$\d+)|(?P<space>\s+)|(?P<other>\S+)""",
    re.VERBOSE,
)
_OTHER_RESULTS = {"2-0": "1-0", "0-2": "0-1", "1-1": "1/2-1/2", "0-0": "*"}


def read_games(text: str) -> list[Game]:
    """Every game in a PDN text; raises InvalidPdnError with the offending text."""
    games: list[Game] = []
    game: Game | None = None
    board: Board | None = None
    depth = 0  # variation nesting: moves inside ( ) are skipped
    for m in _TOKEN.finditer(text):
        kind, token = m.lastgroup, m.group()
        if kind == "space" or kind == "nag" or kind == "comment":
            continue
        if kind == "open":
            depth += 1
            continue
        if kind == "close":
            if depth == 0:
                raise InvalidPdnError(f"unbalanced ')' at offset {m.start()}: {_near(text, m)}")
            depth -= 1
            continue
        if depth:
            continue
        if kind == "tag":
            tag = _TAG.fullmatch(token)
            if tag is None:
                raise InvalidPdnError(f"bad tag {token!r}")
            if game is None or board is not None:
                if game is not None:
                    games.append(game)
                game, board = Game(), None
            game.headers[tag[1]] = re.sub(r"\\(.)", r"\1", tag[2])
            continue
        if game is None:
            game = Game()
        if board is None:
            board = _start(game)
        if kind == "number":
            continue
        if kind == "move":
            try:
                game.moves.append(board.push_pdn(m.group("move")))
            except (IllegalMoveError, InvalidMoveError) as exc:
                raise InvalidPdnError(f"move {len(game.moves) + 1} {token!r}: {exc}") from exc
            continue
        if kind == "result":
            game.result = _OTHER_RESULTS.get(token, token)
            games.append(game)
            game, board = None, None
            continue
        raise InvalidPdnError(f"unexpected {token!r} at offset {m.start()}: {_near(text, m)}")
    if depth:
        raise InvalidPdnError("unclosed '(' variation at the end of the PDN text")
    if game is not None:
        game.result = game.headers.get("Result", "*")
        games.append(game)
    for g in games:
        if g.result not in RESULTS:
            raise InvalidPdnError(f"bad result {g.result!r}")
        g.headers.pop("Result", None)
    return games


def _start(game: Game) -> Board:
    try:
        return game.board()
    except InvalidFenError as exc:
        raise InvalidPdnError(f"bad FEN tag {game.headers.get('FEN')!r}: {exc}") from exc


def _near(text: str, m: re.Match[str]) -> str:
    return repr(text[max(0, m.start() - 20) : m.end() + 20])


def read_game(text: str) -> Game:
    """The single game of a PDN text."""
    games = read_games(text)
    if len(games) != 1:
        raise InvalidPdnError(f"expected one game, found {len(games)} in {text[:80]!r}")
    return games[0]


def write_games(games: list[Game]) -> str:
    return "\n".join(game.pdn() for game in games)
