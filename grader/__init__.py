"""Alpha-Beta Grader: teaches, exercises and grades alpha-beta pruning."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # Flask is the server extra's: the student kit's `grader` never imports it
    from flask import Flask


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The web application: settings, extensions, the job queue, blueprints. Wiring only: the
    `grader` command adds its groups itself (grader.cli), so a web worker never loads them."""
    from flask import Flask

    from grader import config as settings
    from grader import extensions, jobs, web

    app = Flask(
        __name__,
        instance_path=settings.instance_path(),
        instance_relative_config=True,
        template_folder="web/templates",
        static_folder="web/static",
    )
    settings.private_dir(app.instance_path)
    app.config.from_mapping(settings.load(app.instance_path, config))
    database = settings.sqlite_file(app.config["SQLALCHEMY_DATABASE_URI"])
    if database is not None:
        settings.private_file(database)
    extensions.init_app(app)
    jobs.init_app(app)
    web.init_app(app)
    return app
