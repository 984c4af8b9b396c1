"""gunicorn's settings for the service's web workers, which every way of serving names
(`gunicorn -c python:grader.gunicorn_conf 'grader:create_app()'`: the image, `make run`, the
tests' live server, bench.load): a worker holds an app until it ends, so its end skips the
collector's passes over it (`grader.freeze_at_exit`)."""

from __future__ import annotations

from typing import Any

from grader import freeze_at_exit


def post_worker_init(worker: Any) -> None:
    """gunicorn's hook, in each worker once it has loaded the app."""
    freeze_at_exit()
