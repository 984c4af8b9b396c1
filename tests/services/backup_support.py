"""Backups in the tests: a fresh instance to restore into, the rows of every table, and a backup
file rewritten part by part (to tamper with one and keep or fix its manifest)."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tests.app_support import app_config


def new_instance(folder: Path, monkeypatch: pytest.MonkeyPatch, **config: Any) -> Any:
    """An app on its own instance folder and an empty SQLite file (no table yet), with the
    `grader` command's groups, as a machine a backup is restored onto."""
    from grader import cli, create_app

    folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(folder / "instance"))
    app = create_app(app_config(folder / "grader.sqlite3", **config))
    cli.init_app(app)
    return app


def rows(app: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the models, sorted (tables absent: none)."""
    from grader.extensions import db

    with app.app_context():
        present = set(sa.inspect(db.engine).get_table_names())
        found = {
            table.name: sorted((tuple(r) for r in db.session.execute(sa.select(table))), key=repr)
            for table in db.metadata.sorted_tables
            if table.name in present
        }
        db.session.remove()
        return found


def parts(path: Path) -> dict[str, bytes]:
    """The backup's members by name, in their order."""
    with tarfile.open(path) as tar:
        found = {}
        for member in tar.getmembers():
            handle = tar.extractfile(member)
            assert handle is not None
            found[member.name] = handle.read()
        return found


def rewrite(path: Path, members: dict[str, bytes], *, fix_manifest: bool) -> None:
    """Writes ``members`` as the backup ``path``; with ``fix_manifest`` the manifest's checksums
    and sizes are made to match them (a forger's backup, or another release's)."""
    if fix_manifest:
        manifest = json.loads(members["manifest.json"])
        manifest["parts"] = {
            name: {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
            for name, data in members.items()
            if name != "manifest.json"
        }
        members = {**members, "manifest.json": json.dumps(manifest).encode()}
    with tarfile.open(path, "w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
