"""`grader checkers ...`: perft, legal moves and games from the command line."""

import click


@click.group()
def checkers() -> None:
    """English draughts: perft, legal moves, games between engines."""
