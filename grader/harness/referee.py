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

import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from grader.checkers import (
    Board,
    Forfeit,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    play_game,
    player_from_name,
)
from grader.harness.sandbox import (
    EngineProcess,
    SandboxConfig,
    SandboxError,
    claim_slot,
    prepare_submission,
)
from grader.harness.suite import TestCase, TestResult, result_of
from grader.harness.verdicts import DESCRIPTIONS, Verdict


def pick_ballots(ballots: list[tuple[str, tuple[str, ...]]], count: int,
                 seed: int) -> list[tuple[str, tuple[str, ...]]]:
    """`count` distinct ballots drawn with random.Random(seed), in draw order."""
    return random.Random(seed).sample(ballots, min(count, len(ballots)))


class SandboxedPlayer:
    """The student's engine as a player: every move asked of the sandboxed process and checked
    against the harness's own board. A verdict or an illegal move forfeits the game."""

    def __init__(self, process: EngineProcess, test: TestCase, name: str = "engine") -> None:
        self.process = process
        self.test = test
        self.name = name
        self.cpu = self.wall = 0.0
        self.moves = 0  # legal moves the engine made (a game with none was not played)
        self.forfeit: tuple[Verdict, str] | None = None

    def _lose(self, verdict: Verdict, why: str) -> Forfeit:
        self.forfeit = (verdict, why)
        return Forfeit(f"{verdict.value} ({DESCRIPTIONS[verdict]})")

    def choose_move(self, board: Board) -> Move:
        fen = board.fen()
        test = self.test
        outcome = self.process.call(
            "choose_move", [fen, test.params["time_per_move"]], test.cpu, test.wall
        )
        self.cpu += outcome.cpu
        self.wall += outcome.wall
        if outcome.verdict is not None:
            why = outcome.detail or ""
            if outcome.traceback:
                why += "\n" + outcome.traceback
            raise self._lose(outcome.verdict, f"choose_move on {fen}: {why}")
        text = outcome.result
        if not isinstance(text, str):
            raise self._lose(
                Verdict.PROTOCOL,
                f"choose_move must return a string, got {type(text).__name__} on {fen}",
            )
        try:
            move = board.parse_pdn(text)
        except (InvalidMoveError, IllegalMoveError) as exc:
            raise self._lose(Verdict.ILLEGAL_MOVE, f"{text[:60]!r} on {fen}: {exc}") from None
        self.moves += 1
        return move


def play_test(test: TestCase, process: EngineProcess) -> TestResult:
    p = test.params
    student_black = p["colour"] == "black"
    opponent = player_from_name(p["opponent"], seed=p["seed"])
    student = SandboxedPlayer(process, test)
    black, white = (student, opponent) if student_black else (opponent, student)
    game = play_game(
        black,
        white,
        opening=tuple(p["opening"]),
        max_plies=p["max_plies"],
        headers={
            "Event": "Alpha-Beta Grader engine check",
            "Opening": f"ballot {p['ballot']}: {' '.join(p['opening'])}",
        },
    )
    if student.forfeit:
        verdict, why = student.forfeit
    else:
        verdict = Verdict.PASSED
        if game.result == "*":
            game.headers["Termination"] += " (counted as a draw)"
    score = _score(game.result, student_black)
    text = (f"{'won' if score == 1 else 'lost' if score == 0 else 'drew'} "
            f"({game.result}, {game.headers['Termination']}) in {len(game.moves)} plies")
    if student.forfeit:
        text = f"lost by forfeit: {verdict.value}: {why}"
    extra: dict[str, Any] = {"opponent": p["opponent"], "colour": p["colour"],
                             "ballot": p["ballot"], "result": game.result,
                             "points": score, "plies": len(game.moves), "pdn": game.pdn(),
                             "engine_moves": student.moves}
    return result_of(test, verdict, text, test.points if verdict is Verdict.PASSED else 0.0,
                     student.cpu, student.wall, **extra)


def _score(result: str, student_black: bool) -> float:
    """1 for a win of the engine, 0 for a loss, 0.5 for a draw or an unfinished game."""
    if result == "1-0":
        return 1.0 if student_black else 0.0
    if result == "0-1":
        return 0.0 if student_black else 1.0
    return 0.5


@contextmanager
def local_engine(path: Path, config: SandboxConfig, time_per_move: float = 0.5,
                 margin: float = 0.25, start_cpu: float = 5.0) -> Iterator[SandboxedPlayer]:
    """A student's engine file (or zip, or folder) as a player, in a sandbox slot of its own,
    under the limits a graded game sets: `grader checkers play --black engine.py` uses it.
    One engine process plays every game of the match (the grader starts one per game)."""
    with claim_slot(config) as slot:
        folder = prepare_submission(Path(path), slot.workdir / "submission")
        process = EngineProcess(config, slot, folder)
        try:
            hello = process.start(start_cpu, 2 * start_cpu)
            if not hello.answered:
                detail = f" ({hello.detail})" if hello.detail else ""
                trace = f"\n{hello.traceback}" if hello.traceback else ""
                raise SandboxError(f"{path}: the engine failed while being imported: "
                                   f"{hello.verdict.value if hello.verdict else '?'}"
                                   f"{detail}{trace}")
            test = TestCase(f"local game: {path}", "play", 1.0,
                            {"time_per_move": time_per_move}, time_per_move + margin,
                            3 * (time_per_move + margin) + 1)
            yield SandboxedPlayer(process, test, name=Path(path).stem)
        finally:
            process.close()
