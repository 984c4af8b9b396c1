"""The referee: games between a student's engine and a ladder engine, the harness owning the
board and validating every move.

The engine is asked ``choose_move(fen, time_left)`` with ``time_left`` the per-move limit; it
may use that much CPU time plus a small margin (TLE past it). The wall clock allows three times
that plus a second (TLE_WALL past it), so that a busy machine does not cost a game. An illegal or unreadable
move, a timeout or a crash loses the game at once (the PDN's Termination header says which).
A game cut at ``max_plies`` is recorded as unfinished (``*``) and counts as a draw. The
test's score is for playing the game through, whatever its result; results feed the Elo.
"""

from __future__ import annotations

import datetime
import random
from typing import Any

from grader.checkers import (
    BLACK,
    Board,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    player_from_name,
)
from grader.harness.sandbox import EngineProcess
from grader.harness.suite import TestCase, TestResult, result_of
from grader.harness.verdicts import DESCRIPTIONS, Verdict


def pick_ballots(ballots: list[tuple[str, tuple[str, ...]]], count: int,
                 seed: int) -> list[tuple[str, tuple[str, ...]]]:
    """`count` distinct ballots drawn with random.Random(seed), in draw order."""
    return random.Random(seed).sample(ballots, min(count, len(ballots)))


def play_test(test: TestCase, process: EngineProcess) -> TestResult:
    p = test.params
    student_black = p["colour"] == "black"
    opponent = player_from_name(p["opponent"], seed=p["seed"])
    engine_name = "engine"
    game = Game(headers={
        "Event": "Alpha-Beta Grader engine check",
        "Date": datetime.date.today().strftime("%Y.%m.%d"),
        "Black": engine_name if student_black else opponent.name,
        "White": opponent.name if student_black else engine_name,
        "Opening": f"ballot {p['ballot']}: {' '.join(p['opening'])}",
    })
    board = Board()
    for text in p["opening"]:
        game.moves.append(board.push_pdn(text))
    cpu = wall = 0.0
    forfeit: tuple[Verdict, str] | None = None
    while board.outcome() is None and len(game.moves) < p["max_plies"]:
        if (board.turn == BLACK) == student_black:
            fen = board.fen()
            outcome = process.call("choose_move", [fen, p["time_per_move"]], test.cpu,
                                   test.wall)
            cpu += outcome.cpu
            wall += outcome.wall
            if outcome.verdict is not None:
                why = f"{outcome.detail}" if outcome.detail else ""
                if outcome.traceback:
                    why += "\n" + outcome.traceback
                forfeit = (outcome.verdict, f"choose_move on {fen}: {why}")
                break
            text = outcome.result
            if not isinstance(text, str):
                forfeit = (Verdict.PROTOCOL, f"choose_move must return a string, got "
                           f"{type(text).__name__} on {fen}")
                break
            try:
                move = board.parse_pdn(text)
            except (InvalidMoveError, IllegalMoveError) as exc:
                forfeit = (Verdict.ILLEGAL_MOVE, f"{text[:60]!r} on {fen}: {exc}")
                break
        else:
            move = opponent.choose_move(board)
        board.push(move)
        game.moves.append(move)
    if forfeit:
        verdict, why = forfeit
        game.result = "0-1" if student_black else "1-0"
        game.headers["Termination"] = f"forfeit: {verdict.value} ({DESCRIPTIONS[verdict]})"
    else:
        verdict = Verdict.PASSED
        end = board.outcome()
        game.result = end.result() if end else "*"
        game.headers["Termination"] = end.termination.value if end else \
            f"unfinished after {p['max_plies']} plies (counted as a draw)"
    score = _score(game.result, student_black)
    text = (f"{'won' if score == 1 else 'lost' if score == 0 else 'drew'} "
            f"({game.result}, {game.headers['Termination']}) in {len(game.moves)} plies")
    if forfeit:
        text = f"lost by forfeit: {forfeit[0].value}: {forfeit[1]}"
    extra: dict[str, Any] = {"opponent": p["opponent"], "colour": p["colour"],
                             "ballot": p["ballot"], "result": game.result,
                             "points": score, "plies": len(game.moves), "pdn": game.pdn()}
    return result_of(test, verdict, text, test.points if verdict is Verdict.PASSED else 0.0,
                     cpu, wall, **extra)


def _score(result: str, student_black: bool) -> float:
    """1 for a win of the engine, 0 for a loss, 0.5 for a draw or an unfinished game."""
    if result == "1-0":
        return 1.0 if student_black else 0.0
    if result == "0-1":
        return 0.0 if student_black else 1.0
    return 0.5
