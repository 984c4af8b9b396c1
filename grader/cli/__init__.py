"""The `grader` command. Each room adds its own group of subcommands in a module of this package.

What a student runs (`tree`, `checkers`, `engine`) needs neither an app nor the server's
packages: the student kit installs the package without its `server` extra, and there `main` is a
plain click group of these three, importing no Flask, SQLAlchemy or service module. With the
extra installed (`server_installed`), `main` is a Flask group: the operator's commands that need
the database (`db`, `user`, `course`, `assignment`, `demo`, `gradebook`, `worker`, `lti`, `exam`,
`integrity`) run in the application's context, on the app `make_app` builds (`create_app` with
these groups added by `init_app`). `create_app` itself never imports this package: a web worker
loads neither the harness nor rich. `flask --app grader db ...` still works (Flask-Migrate adds
`db` to any app).
"""

from __future__ import annotations

import re
from importlib import metadata
from typing import TYPE_CHECKING, Any

import click

from grader.cli.checkers import checkers
from grader.cli.engine import engine
from grader.cli.tree import tree

if TYPE_CHECKING:
    from flask import Flask

SERVER_EXTRA = "server"


def server_installed() -> bool:
    """Whether every distribution of grader's `server` extra is installed (the student kit's
    install has none of them). A checkout run without installing grader counts as a server."""
    try:
        requirements = metadata.requires("grader") or []
    except metadata.PackageNotFoundError:
        return True
    marker = re.compile(rf"""extra\s*==\s*["']{SERVER_EXTRA}["']""")
    for requirement in requirements:
        if marker.search(requirement):
            name = re.match(r"[A-Za-z0-9._-]+", requirement)
            try:
                metadata.distribution(name.group(0) if name else requirement)
            except metadata.PackageNotFoundError:
                return False
    return True


def init_app(app: Flask) -> None:
    """Adds the groups that need the application to its `app.cli` (the `grader` command does
    it through `make_app`; tests do it on their own app before `app.test_cli_runner()`)."""
    from grader.cli import admin, data, exam, integrity, worker
    from grader.cli import lti as lti_cli

    admin.init_app(app)
    exam.init_app(app)
    worker.init_app(app)
    lti_cli.init_app(app)
    integrity.init_app(app)
    data.init_app(app)


def make_app() -> Flask:
    """The application of the `grader` command: `create_app()` with the command's groups; the
    process holds an app from here, so its end skips the collector's passes (`freeze_at_exit`)."""
    from grader import create_app, freeze_at_exit

    freeze_at_exit()
    app = create_app()
    init_app(app)
    return app


def _group_options() -> dict[str, Any]:
    """The command's group: a Flask group (the operator's commands) where the server extra is
    installed, else a plain click group of the student's commands."""
    options: dict[str, Any] = {"context_settings": {"help_option_names": ["-h", "--help"]}}
    if not server_installed():
        options["help"] = "Alpha-Beta Grader: game trees and checkers engines."
        return options
    from flask.cli import FlaskGroup

    return {
        **options,
        "cls": FlaskGroup,
        "create_app": make_app,
        "add_version_option": False,
        "load_dotenv": False,
        "set_debug_flag": False,
        "help": "Alpha-Beta Grader: game trees, checkers and the course service.",
    }


@click.group(**_group_options())
@click.version_option(package_name="grader")
def main() -> None:
    pass


main.add_command(tree)
main.add_command(checkers)
main.add_command(engine)
