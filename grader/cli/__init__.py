"""The `grader` command. Each room adds its own group of subcommands in a module of this package.

`main` is a Flask group: commands that need the database (`db`, `user`, `course`, `assignment`,
`demo`) come from the application and run in its context; `tree`, `checkers` and `engine` need no app.
"""

from __future__ import annotations

import click
from flask.cli import FlaskGroup

from grader import create_app
from grader.cli.checkers import checkers
from grader.cli.engine import engine
from grader.cli.tree import tree


@click.group(cls=FlaskGroup, create_app=create_app, add_version_option=False,
             load_dotenv=False, set_debug_flag=False,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="grader")
def main() -> None:
    """Alpha-Beta Grader: game trees, checkers and the course service."""


main.add_command(tree)
main.add_command(checkers)
main.add_command(engine)
