"""A game between two students' engines, each in a sandbox of its own, the harness owning the
board (the referee's rules: an illegal or unreadable move, a timeout or a crash loses at once).
Tournaments (services/engines/tournaments.py) play their games with it, one queue job per game.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.checkers import play_game
from grader.harness.referee import MoveLimit, SandboxedPlayer
from grader.harness.sandbox import (
    EngineProcess,
    SandboxConfig,
    SandboxError,
    SubmissionError,
    claim_slot,
    machine_window,
    prepare_submission,
)
from grader.harness.verdicts import Verdict

START_CPU, START_WALL = 5.0, 10.0


@dataclass(frozen=True)
class MatchGame:
    result: str  # 1-0 (black won), 0-1, 1/2-1/2, or * (cut at max_plies: a draw)
    termination: str
    pdn: str
    plies: int
    internal_error: str = ""  # the harness failed: replay the game, nobody is charged


def play_pair(
    black: Path,
    white: Path,
    opening: list[str],
    *,
    names: tuple[str, str],
    time_per_move: float = 0.1,
    margin: float = 0.25,
    max_plies: int = 160,
    config: SandboxConfig | None = None,
    event: str = "tournament",
) -> MatchGame:
    """Play one game, `black` against `white`, from the ballot `opening`, in the machine's
    window (`machine_window`): a timing test waits for the game to end."""
    config = config or SandboxConfig()
    config.check()
    limit = MoveLimit(time_per_move, margin)
    with claim_slot(config) as slot, machine_window():
        processes: list[EngineProcess] = []
        try:
            players = []
            for colour, path, name in (("black", black, names[0]), ("white", white, names[1])):
                folder = prepare_submission(path, slot.workdir / colour)
                process = EngineProcess(config, slot, folder)
                processes.append(process)
                hello = process.start(START_CPU, START_WALL)
                if hello.verdict is Verdict.IE:
                    return MatchGame("*", "", "", 0, f"engine start: {hello.detail}")
                if hello.verdict is not None:
                    result = "0-1" if colour == "black" else "1-0"
                    return MatchGame(
                        result, f"forfeit: {name} did not start ({hello.verdict.value})", "", 0
                    )
                players.append(SandboxedPlayer(process, limit, name))
            game = play_game(
                players[0],
                players[1],
                opening=tuple(opening),
                max_plies=max_plies,
                headers={"Event": event},
            )
        except SubmissionError as exc:
            return MatchGame("*", "", "", 0, f"submission: {exc}")
        except SandboxError as exc:
            return MatchGame("*", "", "", 0, f"sandbox: {exc}")
        finally:
            for process in processes:
                process.close()
    for player in players:
        if player.forfeit and player.forfeit[0] is Verdict.IE:
            return MatchGame("*", "", "", 0, f"choose_move: {player.forfeit[1][:200]}")
    termination = game.headers.get("Termination") or f"unfinished after {max_plies} plies (a draw)"
    return MatchGame(game.result, termination, game.pdn(), len(game.moves))
