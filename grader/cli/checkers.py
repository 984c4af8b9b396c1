"""`grader checkers ...`: perft, legal moves and games from the command line."""

from __future__ import annotations

import time
from pathlib import Path

import click
from rich.console import Console
from rich.text import Text

from grader.checkers import (
    Board,
    InvalidFenError,
    divide,
    perft,
    play_match,
    player_from_name,
    write_games,
)
from grader.checkers.board import BLACK, Move


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
@click.option("--black", "black_name", default="ref:4", show_default=True,
              help="Engine for Black: random, greedy, ref:N or ref:best.")
@click.option("--white", "white_name", default="random", show_default=True,
              help="Engine for White.")
@click.option("--games", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--ballot", is_flag=True, help="Start each game from a drawn 3-move ballot.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed for ballots and the random engine.")
@click.option("--pdn", "pdn_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Write the games to this PDN file.")
@click.option("--watch", is_flag=True, help="Draw the board after every move.")
def play_command(black_name: str, white_name: str, games: int, ballot: bool, seed: int,
                 pdn_path: Path | None, watch: bool) -> None:
    """Play games between two engines: a result line per game, then the last final board."""
    try:
        black = player_from_name(black_name, seed=seed)
        white = player_from_name(white_name, seed=seed + 1)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    console = Console(highlight=False)

    def show(board: Board, move: Move) -> None:
        console.print(f"{len(board.move_stack)}. {move.pdn()}")
        console.print(board_text(board, move))

    played = play_match(black, white, games, ballot=ballot, seed=seed,
                        on_move=show if watch else None)
    score = {"1-0": 0.0, "0-1": 0.0, "1/2-1/2": 0.0}
    for number, game in enumerate(played, 1):
        opening = f"  [{game.headers['Opening']}]" if "Opening" in game.headers else ""
        reason = game.headers.get("Termination", "unfinished")
        console.print(f"game {number}: {black.name} (Black) vs {white.name} (White) "
                      f"{game.result} by {reason} after {len(game.moves)} plies{opening}")
        if game.result in score:
            score[game.result] += 1
    if not watch:  # the final board of the last game
        end = played[-1].end_board()
        console.print(board_text(end, end.peek() if end.move_stack else None))
    if games > 1:
        console.print(f"Black {black.name} wins {score['1-0']:g}, White {white.name} wins "
                      f"{score['0-1']:g}, draws {score['1/2-1/2']:g}")
    if pdn_path is not None:
        pdn_path.write_text(write_games(played), encoding="utf-8")
        console.print(f"PDN written to {pdn_path}")
