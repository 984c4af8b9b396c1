"""The referee: the student's engine as a player, the harness owning the board and validating
every move.

The engine is asked ``choose_move(fen, time_left)`` with ``time_left`` the per-move limit; it
may use that much CPU time plus a small margin (TLE past it). The wall clock allows three times
that plus a second (TLE_WALL past it), so that a busy machine does not cost a game. An illegal
or unreadable move, a timeout or a crash loses the game at once (the PDN's Termination header
says which). Graded games are the `play` test kind (testkinds/play.py); tournament games are
match.py's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from grader.checkers import Board, Forfeit, IllegalMoveError, InvalidMoveError, Move
from grader.harness.sandbox import (
    EngineProcess,
    SandboxConfig,
    SandboxError,
    claim_slot,
    prepare_submission,
)
from grader.harness.verdicts import DESCRIPTIONS, Verdict


@dataclass(frozen=True)
class MoveLimit:
    """What one move may take: the engine is told `time_per_move`; it may use that much CPU
    plus `margin` (TLE past it) and three times that plus a second of wall clock (TLE_WALL)."""

    time_per_move: float = 0.5
    margin: float = 0.25

    @property
    def cpu(self) -> float:
        return self.time_per_move + self.margin

    @property
    def wall(self) -> float:
        return 3 * self.cpu + 1


class SandboxedPlayer:
    """The student's engine as a player: every move asked of the sandboxed process and checked
    against the harness's own board. A verdict or an illegal move forfeits the game."""

    def __init__(self, process: EngineProcess, limit: MoveLimit, name: str = "engine") -> None:
        self.process = process
        self.limit = limit
        self.name = name
        self.cpu = self.wall = 0.0
        self.moves = 0  # legal moves the engine made (a game with none was not played)
        self.forfeit: tuple[Verdict, str] | None = None

    def _lose(self, verdict: Verdict, why: str) -> Forfeit:
        self.forfeit = (verdict, why)
        return Forfeit(f"{verdict.value} ({DESCRIPTIONS[verdict]})")

    def choose_move(self, board: Board) -> Move:
        fen = board.fen()
        limit = self.limit
        outcome = self.process.call(
            "choose_move", [fen, limit.time_per_move], limit.cpu, limit.wall
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


@contextmanager
def local_engine(
    path: Path,
    config: SandboxConfig,
    time_per_move: float = 0.5,
    margin: float = 0.25,
    start_cpu: float = 5.0,
) -> Iterator[SandboxedPlayer]:
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
                raise SandboxError(
                    f"{path}: the engine failed while being imported: "
                    f"{hello.verdict.value if hello.verdict else '?'}"
                    f"{detail}{trace}"
                )
            yield SandboxedPlayer(process, MoveLimit(time_per_move, margin), name=Path(path).stem)
        finally:
            process.close()
