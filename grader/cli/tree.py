"""`grader tree ...`: generate, solve, grade and draw game trees."""

import click


@click.group()
def tree() -> None:
    """Game trees: generate, solve, grade, best order, show."""
