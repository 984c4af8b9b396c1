"""The `grader` command. Each room adds its own group of subcommands in a module of this package."""

from __future__ import annotations

import click

from grader.cli.checkers import checkers
from grader.cli.tree import tree


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="grader")
def main() -> None:
    """Alpha-Beta Grader: game trees, checkers and the course service."""


main.add_command(tree)
main.add_command(checkers)
