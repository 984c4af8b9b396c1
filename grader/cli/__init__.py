"""The `grader` command. Each room adds its own group of subcommands in a module of this package.

`main` is a Flask group: commands that need the database (`db`, `user`, `course`, `assignment`,
`demo`, `gradebook`, `worker`, `lti`, `exam`, `integrity`) run in the application's context, on
the app `make_app` builds (`create_app` with these groups added by `init_app`); `tree`,
`checkers` and `engine` need no app. `create_app` itself never imports this package: a web
worker loads neither the
harness nor rich. `flask --app grader db ...` still works (Flask-Migrate adds `db` to any app).
"""

from __future__ import annotations

import click
from flask import Flask
from flask.cli import FlaskGroup

from grader import create_app
from grader.cli import admin, data, exam, integrity, worker
from grader.cli import lti as lti_cli
from grader.cli.checkers import checkers
from grader.cli.engine import engine
from grader.cli.tree import tree


def init_app(app: Flask) -> None:
    """Adds the groups that need the application to its `app.cli` (the `grader` command does
    it through `make_app`; tests do it on their own app before `app.test_cli_runner()`)."""
    admin.init_app(app)
    exam.init_app(app)
    worker.init_app(app)
    lti_cli.init_app(app)
    integrity.init_app(app)
    data.init_app(app)


def make_app() -> Flask:
    """The application of the `grader` command: `create_app()` with the command's groups."""
    app = create_app()
    init_app(app)
    return app


@click.group(
    cls=FlaskGroup,
    create_app=make_app,
    add_version_option=False,
    load_dotenv=False,
    set_debug_flag=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(package_name="grader")
def main() -> None:
    """Alpha-Beta Grader: game trees, checkers and the course service."""


main.add_command(tree)
main.add_command(checkers)
main.add_command(engine)
