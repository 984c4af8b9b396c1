"""English draughts (American checkers): rules, formats, perft and reference engines.

Pure Python, standard library only. The rules are documented once, in
exercises/checkers/RULES.md; the evaluation and the graded search contract in
exercises/checkers/ASSIGNMENT.md.
"""

from grader.checkers.board import (
    BLACK,
    STARTING_FEN,
    WHITE,
    Bitboard,
    Board,
    Color,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    LegalMoveGenerator,
    Move,
    Outcome,
    Square,
    Termination,
)
from grader.checkers.engine import (
    WIN,
    ReferenceEngine,
    SearchOutcome,
    alphabeta,
    minimax,
)
from grader.checkers.evaluation import KING_VALUE, MAN_VALUE, evaluate
from grader.checkers.ladder import LADDER, Player, player_from_name
from grader.checkers.parallel import root_parallel
from grader.checkers.pdn import Game, InvalidPdnError, read_game, read_games, write_games
from grader.checkers.perft import divide, perft
from grader.checkers.play import Forfeit, load_ballots, pick_ballots, play_game, play_match

__all__ = [
    "BLACK",
    "KING_VALUE",
    "LADDER",
    "MAN_VALUE",
    "STARTING_FEN",
    "WHITE",
    "WIN",
    "Bitboard",
    "Board",
    "Color",
    "Forfeit",
    "Game",
    "IllegalMoveError",
    "InvalidFenError",
    "InvalidMoveError",
    "InvalidPdnError",
    "LegalMoveGenerator",
    "Move",
    "Outcome",
    "Player",
    "ReferenceEngine",
    "SearchOutcome",
    "Square",
    "Termination",
    "alphabeta",
    "divide",
    "evaluate",
    "load_ballots",
    "minimax",
    "perft",
    "pick_ballots",
    "play_game",
    "play_match",
    "player_from_name",
    "read_game",
    "read_games",
    "root_parallel",
    "write_games",
]
