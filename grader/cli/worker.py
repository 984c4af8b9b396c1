"""`grader worker`: the queue's consumers (grader/jobs.py): uploaded engines graded, tournament
games played, LMS scores sent (interactive work), exams printed and integrity checks run (bulk
work); `--classes` says which a worker serves."""

from __future__ import annotations

import click
from flask import Flask, current_app
from flask.cli import with_appcontext


@click.command("worker")
@click.option(
    "--workers",
    "-w",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Jobs run at once (one engine per core is the most that helps).",
)
@click.option(
    "--worker-type", type=click.Choice(["process", "thread"]), default="process", show_default=True
)
@click.option(
    "--classes",
    default="interactive,bulk",
    show_default=True,
    metavar="CLASSES",
    help="The classes of work this worker serves, comma-separated: interactive (uploads, "
    "tournament games, LMS scores) and bulk (exam prints, integrity checks). Serving both, "
    "bulk work gets one worker of its own, at the lowest CPU priority, beside --workers "
    "interactive ones.",
)
@click.option(
    "--check",
    is_flag=True,
    help="A healthcheck: exit 0 if a worker on this host was alive lately, 1 if not, "
    "2 if the engine sandbox cannot be made here.",
)
@with_appcontext
def worker(workers: int, worker_type: str, classes: str, check: bool) -> None:
    """Grade uploaded engines, and do the bulk work, until stopped (SIGINT or SIGTERM); start
    one per machine."""
    import logging

    from grader import jobs
    from grader.extensions import WORK_CLASSES

    served = tuple(c for c in WORK_CLASSES if c in {p.strip() for p in classes.split(",")})
    unknown = {p.strip() for p in classes.split(",")} - set(WORK_CLASSES)
    if unknown or not served:
        raise click.BadParameter(
            f"one or both of {', '.join(WORK_CLASSES)}, comma-separated, not {classes!r}",
            param_hint="--classes",
        )

    app = current_app._get_current_object()  # type: ignore[attr-defined]  # Flask types the proxy as the app
    _refuse_without_a_sandbox(app)
    if check:
        from grader.services import liveness
        from grader.services.courses import zones

        _, host = liveness.this_worker()
        found = liveness.live(host)
        if not found:
            click.echo(
                f"no grader worker on {host} seen in the last "
                f"{liveness.stale_after().total_seconds():.0f} s",
                err=True,
            )
            raise SystemExit(1)
        click.echo(f"{found[0].name} seen at {zones.words(found[0].seen_at, zones.server_zone())}")
        return

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    url = app.config["GRADER_QUEUE_URL"] or "sqlite (instance/queue.sqlite)"
    served_by = f"{workers} {worker_type} worker(s) for {served[0]} work"
    if len(served) == 2:
        served_by += f" and one for {served[1]} work"
    click.echo(f"grader worker: {served_by}, queue {url}", err=True)
    jobs.run_worker(app, workers=workers, worker_type=worker_type, classes=served)


def _refuse_without_a_sandbox(app: Flask) -> None:
    """A worker that cannot make a sandbox would fail every engine: it says why and stops
    (docs/deployment.md lists the container options bubblewrap needs)."""
    from grader.harness.sandbox import SandboxConfig, probe

    problem = probe(SandboxConfig(sandbox=app.config["GRADER_SANDBOX"]))
    if problem is not None:
        click.echo(f"grader worker: cannot make the engine sandbox: {problem}", err=True)
        raise SystemExit(2)


def init_app(app: Flask) -> None:
    app.cli.add_command(worker)


def _add_engine_slot_command() -> None:
    from grader.cli.admin import assignment

    @assignment.command("add-engine")
    @click.argument("assignment_id", type=int)
    @click.option(
        "--suite", default="quick", show_default=True, help="quick, full, or a suite JSON file."
    )
    @click.option("--title", help="Default: Checkers engine.")
    def add_engine(assignment_id: int, suite: str, title: str | None) -> None:
        """Add an engine slot (uploads graded by the workers) to an assignment."""
        from grader.services import ServiceError
        from grader.services.engines import submissions

        try:
            slot = submissions.add_engine_slot(assignment_id, suite=suite, title=title)
        except ServiceError as error:
            raise click.ClickException(str(error)) from None
        click.echo(f"engine slot index {slot.index} ({suite}) in assignment {assignment_id}")


_add_engine_slot_command()
