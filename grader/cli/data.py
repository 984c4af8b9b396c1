"""`grader db backup DEST` and `grader db restore SRC [--force]`: a term's data kept and put back
(services/data/backup.py), beside Flask-Migrate's own `grader db` commands."""

from __future__ import annotations

from pathlib import Path

import click
from flask import Flask
from flask.cli import with_appcontext


@click.command("backup")
@click.argument("dest", type=click.Path(path_type=Path))
@with_appcontext
def backup(dest: Path) -> None:
    """Write a consistent backup while the service runs: the database (SQLite's online backup
    API, or pg_dump), the secret key, the uploads' bytes and a manifest with their checksums.
    DEST is a file, or a folder to name it in."""
    from grader.services import ServiceError
    from grader.services.data import backup as backups

    try:
        taken = backups.take(dest)
    except (ServiceError, RuntimeError, OSError) as error:
        try:  # the failure on the administrators' page, when the database takes the row
            backups.record(None, None, f"{type(error).__name__}: {error}")
        except Exception as unrecorded:
            click.echo(f"(the failure could not be recorded: {unrecorded})", err=True)
        raise click.ClickException(str(error)) from None
    backups.record(None, taken, None)
    manifest = taken.manifest
    click.echo(
        f"backup written: {taken.path} ({taken.size:,} bytes; release {manifest['release']}, "
        f"revision {manifest['revision']}, {len(manifest['parts'])} parts)"
    )
    if manifest["missing_blobs"]:
        click.echo(
            f"warning: {len(manifest['missing_blobs'])} uploads' bytes were missing from the "
            "store and are not in the backup",
            err=True,
        )


@click.command("restore")
@click.argument("src", type=click.Path(path_type=Path))
@click.option(
    "--force",
    is_flag=True,
    help="Overwrite a database in use (one that holds rows, or whose workers are alive).",
)
@with_appcontext
def restore(src: Path, force: bool) -> None:
    """Put a backup into this instance: checked whole against its checksums first, then the
    database, the secret key and the uploads' bytes, then upgraded to this release; last, every
    erasure made after the backup was taken is made again, and named."""
    from grader.services import ServiceError
    from grader.services.courses import zones
    from grader.services.data import backup as backups

    try:
        done = backups.restore(src, force=force)
    except ServiceError as error:
        raise click.ClickException(str(error)) from None
    manifest = done.manifest
    taken = zones.words(zones.stored(manifest["created_at"]), zones.server_zone())
    click.echo(
        f"restored {src}: taken {taken} by release {manifest['release']} "
        f"at revision {manifest['revision']}"
    )
    if done.upgraded_from is not None:
        click.echo(f"upgraded from revision {done.upgraded_from} to this release's head")
    for entry in done.erased_again:
        click.echo(
            f"erased again: account {entry.account_id}, erased on "
            f"{zones.words(entry.erased_at, zones.server_zone())} after this backup was taken"
        )
    if not done.erased_again:
        click.echo("erased again: none (no erasure in the ledger was undone by this backup)")
    for note in done.notes:
        click.echo(f"note: {note}")


def init_app(app: Flask) -> None:
    """Adds the commands to Flask-Migrate's `db` group, which `Migrate.init_app` put on the app
    (`grader.extensions`)."""
    group = app.cli.commands["db"]
    assert isinstance(group, click.Group)
    for command in (backup, restore):
        group.add_command(command)
