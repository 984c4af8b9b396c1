"""Benchmarks: each prints its figure as a ratio against a peer measured in the same run."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flask import Flask


def migrate(app: Flask) -> None:
    """The app's database at the latest schema, migrated in this process (the code of `grader db
    upgrade`, without a process of its own), Alembic's log kept quiet. Inside an app context."""
    import contextlib
    import io

    from flask_migrate import upgrade

    with contextlib.redirect_stderr(io.StringIO()):
        upgrade(directory=app.config["GRADER_MIGRATIONS_DIR"])
