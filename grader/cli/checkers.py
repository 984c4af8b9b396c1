"""`grader checkers ...`: the reference at a student's fingertips: perft and divide, legal
moves, the graded search (and its misconception variants), games between engines, a student's
engine file among them (in the sandbox, through the grader's referee)."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from pathlib import Path

import click
from rich.console import Console
from rich.text import Text

from grader import data
from grader.checkers import (
    Board,
    InvalidFenError,
    divide,
    load_ballots,
    perft,
    play_match,
    player_from_name,
    write_games,
)
from grader.checkers.board import BLACK, Move
from grader.checkers.engine import CONTRACT, INFINITY, search
from grader.checkers.ladder import LADDER, Player
from grader.checkers.variants import VARIANTS


def _board(fen: str | None) -> Board:
    try:
        return Board(fen) if fen else Board()
    except InvalidFenError as exc:
        raise click.BadParameter(str(exc), param_hint="--fen") from exc


@click.group()
def checkers() -> None:
    """English draughts: perft, legal moves, games between engines."""


@checkers.command("perft")
@click.option("--depth", "-d", type=click.IntRange(min=0), required=True, help="Plies.")
@click.option("--fen", default=None, help="Start position (default: the initial position).")
@click.option("--divide", "split", is_flag=True, help="Also print the count below each move.")
def perft_command(depth: int, fen: str | None, split: bool) -> None:
    """Count the move paths of DEPTH plies (bulk counting at the last ply)."""
    board = _board(fen)
    start = time.perf_counter()
    if split and depth >= 1:
        rows = divide(board, depth)
        for move, count in rows:
            click.echo(f"{move.pdn()} {count}")
        total = sum(count for _, count in rows)
    else:
        total = perft(board, depth)
    elapsed = time.perf_counter() - start
    click.echo(f"{total}")
    rate = f", {total / elapsed:,.0f} leaves/s" if elapsed > 0 else ""
    click.echo(f"depth {depth}: {total} leaves in {elapsed:.3f} s{rate}", err=True)


@checkers.command("divide")
@click.option("--depth", "-d", type=click.IntRange(min=1), required=True, help="Plies.")
@click.option("--fen", default=None, help="Start position (default: the initial position).")
def divide_command(depth: int, fen: str | None) -> None:
    """Perft split by root move: the count below each move, then the total (compare with your
    own to find the move that your move generator gets wrong)."""
    rows = divide(_board(fen), depth)
    for move, count in rows:
        click.echo(f"{move.pdn()} {count}")
    click.echo(f"total {sum(count for _, count in rows)}")


@checkers.command("search")
@click.option("--fen", default=None, help="Position (default: the initial position).")
@click.option(
    "--depth", "-d", type=click.IntRange(min=0, max=12), required=True, help="Plies (at most 12)."
)
@click.option(
    "--alpha",
    type=int,
    default=-INFINITY,
    show_default="-infinity",
    help="The root window's alpha.",
)
@click.option(
    "--beta", type=int, default=INFINITY, show_default="+infinity", help="The root window's beta."
)
@click.option("--minimax", "plain", is_flag=True, help="Plain minimax (no pruning).")
@click.option(
    "--variant",
    type=click.Choice(list(VARIANTS)),
    default=None,
    help="A misconception: the search as that mistake makes it.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON, as your search returns it.")
def search_command(
    fen: str | None,
    depth: int,
    alpha: int,
    beta: int,
    plain: bool,
    variant: str | None,
    as_json: bool,
) -> None:
    """The graded fixed-depth search (ASSIGNMENT.md's contract): value, best move, leaves."""
    board = _board(fen)
    if alpha >= beta:
        raise click.BadParameter(
            f"the window needs alpha < beta, got ({alpha}, {beta})", param_hint="--alpha/--beta"
        )
    if plain and variant:
        raise click.UsageError("--minimax is the no-pruning variant: give one of them")
    name = "no-pruning" if plain else variant
    chosen = VARIANTS[name] if name else None
    if chosen is not None:
        board = chosen.board(board.fen())
    result = search(board, depth, chosen.rules if chosen else CONTRACT, alpha, beta)
    move = result.best_move.pdn() if result.best_move else None
    if as_json:
        click.echo(json.dumps({"value": result.value, "move": move, "leaves": result.leaves}))
    else:
        click.echo(f"value {result.value}\nmove {move}\nleaves {result.leaves}")
    what = chosen.code if chosen else "the contract (fail-soft alpha-beta, ties prune)"
    window = "" if (alpha, beta) == (-INFINITY, INFINITY) else f", window ({alpha}, {beta})"
    click.echo(
        f"{what}, depth {depth}{window}: {result.nodes} nodes in "
        f"{result.elapsed:.3f} s; position {board.fen()}",
        err=True,
    )


@checkers.command("moves")
@click.option("--fen", default=None, help="Position (default: the initial position).")
def moves_command(fen: str | None) -> None:
    """Print the legal moves one per line, in canonical order."""
    for move in _board(fen).legal_moves:
        click.echo(move.pdn())


def board_text(board: Board, last: Move | None = None) -> Text:
    """The board drawn for a terminal: Black at the top, square numbers on empty dark squares."""
    marked = set(last.path) if last else set()
    text = Text()
    for r in range(8):
        for c in range(8):
            dark = (c % 2 == 1) if r % 2 == 0 else (c % 2 == 0)
            if not dark:
                text.append("    ", style="on grey93")
                continue
            square = 4 * r + c // 2 + 1
            piece = board.piece_at(square)
            background = "on dark_goldenrod" if square in marked else "on grey30"
            if piece is None:
                text.append(f" {square:>2} ", style=f"grey62 {background}")
            else:
                symbol = {"b": " ● ", "B": " ♚ ", "w": " ● ", "W": " ♚ "}[piece]
                color = "bold red" if piece in "bB" else "bold white"
                text.append(f"{symbol} ", style=f"{color} {background}")
        text.append("\n")
    side = "Black" if board.turn == BLACK else "White"
    text.append(f"{side} to move   FEN {board.fen()}")
    return text


@checkers.command("play")
@click.option(
    "--black",
    "black_name",
    default="ref:4",
    show_default=True,
    help="Engine for Black: random, greedy, ref:N, ref:best, or your engine file "
    "(engine.py, a zip or a folder).",
)
@click.option(
    "--white",
    "white_name",
    default="random",
    show_default=True,
    help="Engine for White (the same choices).",
)
@click.option("--games", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--ballot", is_flag=True, help="Start each game from a drawn 3-move ballot.")
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Seed for ballots and the random engine."
)
@click.option(
    "--pdn",
    "pdn_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the games to this PDN file.",
)
@click.option("--watch", is_flag=True, help="Draw the board after every move.")
@click.option(
    "--time-per-move",
    type=click.FloatRange(min=0.01, max=60),
    default=0.5,
    show_default=True,
    help="time_left given to an engine file's choose_move.",
)
@click.option(
    "--sandbox/--no-sandbox",
    default=None,
    help="Run engine files in bubblewrap (refuse where it cannot run) / without it (your own "
    "machine only). Default: bubblewrap where it is installed, else without.",
)
def play_command(
    black_name: str,
    white_name: str,
    games: int,
    ballot: bool,
    seed: int,
    pdn_path: Path | None,
    watch: bool,
    time_per_move: float,
    sandbox: bool | None,
) -> None:
    """Play games between two engines: a result line per game, then the last final board.
    An engine file plays in the sandbox through the grader's referee: an illegal move, a
    timeout or a crash forfeits the game, as in a graded game."""
    with contextlib.ExitStack() as stack:
        try:
            black = _player(stack, black_name, seed, time_per_move, sandbox)
            white = _player(stack, white_name, seed + 1, time_per_move, sandbox)
        except ValueError as exc:
            raise click.BadParameter(str(exc)) from exc
        _play(black, white, games, ballot, seed, pdn_path, watch)


def _player(
    stack: contextlib.ExitStack, name: str, seed: int, time_per_move: float, sandbox: bool | None
) -> Player:
    """A ladder engine by name, or an engine file in a sandbox slot held by `stack`."""
    if (
        name.strip().lower() in LADDER
        or name.strip().lower().startswith("ref:")
        or not Path(name).exists()
    ):
        return player_from_name(name, seed=seed)
    from grader.cli.engine import student_sandbox
    from grader.harness.referee import local_engine
    from grader.harness.sandbox import SandboxConfig, SandboxError, SandboxUnavailable

    config = student_sandbox(SandboxConfig(), sandbox, lambda line: click.echo(line, err=True))
    try:
        config.check()
        return stack.enter_context(local_engine(Path(name), config, time_per_move))
    except SandboxUnavailable as exc:
        click.echo(f"refusing to run {name}: {exc} (--no-sandbox runs it unisolated)", err=True)
        sys.exit(2)
    except (SandboxError, OSError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc


def _play(
    black: Player,
    white: Player,
    games: int,
    ballot: bool,
    seed: int,
    pdn_path: Path | None,
    watch: bool,
) -> None:
    console = Console(highlight=False)

    def show(board: Board, move: Move) -> None:
        console.print(f"{len(board.move_stack)}. {move.pdn()}")
        console.print(board_text(board, move))

    def after(board: Board, move: Move) -> None:
        if watch:
            show(board, move)

    ballots = load_ballots(data.ballots_file()) if ballot else ()
    played = play_match(black, white, games, ballots=ballots, seed=seed, on_move=after)
    for player in (black, white):  # why an engine file forfeited (its last forfeit)
        forfeit = getattr(player, "forfeit", None)
        if forfeit:
            console.print(f"{player.name} forfeited: {forfeit[0].value}: {forfeit[1]}")
    score = {"1-0": 0.0, "0-1": 0.0, "1/2-1/2": 0.0}
    for number, game in enumerate(played, 1):
        opening = f"  [{game.headers['Opening']}]" if "Opening" in game.headers else ""
        reason = game.headers.get("Termination", "unfinished")
        console.print(
            f"game {number}: {black.name} (Black) vs {white.name} (White) "
            f"{game.result} by {reason} after {len(game.moves)} plies{opening}"
        )
        if game.result in score:
            score[game.result] += 1
    if not watch:  # the final board of the last game
        end = played[-1].end_board()
        console.print(board_text(end, end.peek() if end.move_stack else None))
    if games > 1:
        console.print(
            f"Black {black.name} wins {score['1-0']:g}, White {white.name} wins "
            f"{score['0-1']:g}, draws {score['1/2-1/2']:g}"
        )
    if pdn_path is not None:
        pdn_path.write_text(write_games(played), encoding="utf-8")
        console.print(f"PDN written to {pdn_path}")
