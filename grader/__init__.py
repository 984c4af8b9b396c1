"""Alpha-Beta Grader: teaches, exercises and grades alpha-beta pruning."""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # Flask is the server extra's: the student kit's `grader` never imports it
    from flask import Flask

_FREEZE_AT_EXIT: list[bool] = []  # registered once a process


def freeze_at_exit() -> None:
    """Process policy of the service's long-running processes that hold an app, set where they
    start (a `grader` command's `make_app`, a gunicorn worker by `grader.gunicorn_conf`, and so
    the queue's workers), never on import: the student kit, and any program that imports the
    package, keep the interpreter's own.

    A process's end: the interpreter clears its modules and collects garbage again and again,
    walking every tracked object each time (an app's are about 180,000: 0.6 to 0.9 s of CPU at
    the end of each `grader` command, gunicorn worker and queue worker). gc.freeze, run as an
    exit handler before that teardown, moves them out of the collector's reach: what the
    teardown frees by reference counting it frees as before, and cycles still left are the
    operating system's to reclaim with the process, as after os._exit."""
    if not _FREEZE_AT_EXIT:
        _FREEZE_AT_EXIT.append(True)
        atexit.register(gc.freeze)


@contextmanager
def _collection_paused() -> Iterator[None]:
    """The cyclic collector off while an app is built, back on after (left off if the caller had
    turned it off). A process's first build imports about 1,100 modules whose objects live as
    long as the process, and the collector's passes over them while they load free next to
    nothing: about 10% of the build's CPU (1.50 s against 1.69 s, medians of 12 alternated
    builds in new processes). Garbage the build leaves in cycles is collected once it is back."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The web application: settings, extensions, the job queue, blueprints. Wiring only: the
    `grader` command adds its groups itself (grader.cli), so a web worker never loads them."""
    with _collection_paused():
        return _build(config)


def _build(config: Mapping[str, Any] | None) -> Flask:
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
