"""Restoring hostile or broken files: a file that is not a backup, a backup whose parts were
altered or cut short, one made by a newer release, and a restore over a database in use. Each
is refused with words that say why, before anything is touched: the instance's rows and key
stay as they were."""

from __future__ import annotations

import io
import json
import sqlite3
import tarfile
from pathlib import Path

import pytest

from tests.services.backup_support import new_instance, parts, rewrite, rows


@pytest.fixture
def backup_file(app, factory, runner, tmp_path) -> Path:
    factory.classroom()
    dest = tmp_path / "term.tar"
    result = runner.invoke(args=["db", "backup", str(dest)])
    assert result.exit_code == 0, result.output
    return dest


@pytest.fixture
def target(app, factory, tmp_path, monkeypatch):
    """An instance in use (an account) whose rows and key a refused restore must not touch."""
    other = new_instance(tmp_path / "target", monkeypatch)
    with other.app_context():
        from flask_migrate import upgrade

        from grader.services import accounts

        upgrade(directory=other.config["GRADER_MIGRATIONS_DIR"])
        accounts.create_user("keeper@example.com", "a long enough password", "instructor")
    return other


def _refused(app, source: Path, *words: str, force: bool = True) -> None:
    before, key = rows(app), app.config["SECRET_KEY"]
    key_file = Path(app.instance_path) / "secret_key"
    key_text = key_file.read_text() if key_file.exists() else None
    args = ["db", "restore", str(source)] + (["--force"] if force else [])
    result = app.test_cli_runner().invoke(args=args)
    assert result.exit_code == 1, result.output
    for word in words:
        assert word in result.output, result.output
    assert rows(app) == before
    assert app.config["SECRET_KEY"] == key
    assert (key_file.read_text() if key_file.exists() else None) == key_text
    assert not list(Path(app.instance_path).glob(".grader-backup-*"))  # nothing left behind


def test_a_file_that_is_not_a_backup_is_refused(target, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a backup at all\n")
    _refused(target, text, "is not a grader backup", "not an uncompressed tar file")

    database = tmp_path / "copied.sqlite3"  # a plain copy of a database is no backup either
    sqlite3.connect(database).execute("CREATE TABLE user (id INTEGER)").connection.close()
    _refused(target, database, "is not a grader backup")

    other_tar = tmp_path / "photos.tar"
    with tarfile.open(other_tar, "w") as tar:
        tar.add(text, arcname="notes.txt")
    _refused(target, other_tar, "is not a grader backup", "does not begin with manifest.json")

    backup_like = tmp_path / "backup-like.tar"  # the format named, the rest not a manifest's
    manifest = {"format": "alpha-beta-grader backup", "format_version": 1, "parts": {}}
    rewrite(backup_like, {"manifest.json": json.dumps(manifest).encode()}, fix_manifest=False)
    _refused(target, backup_like, "is not a grader backup", "its manifest is incomplete")

    foreign = tmp_path / "foreign.tar"
    rewrite(foreign, {"manifest.json": b'{"format": "something else"}'}, fix_manifest=False)
    _refused(target, foreign, "is not a grader backup", "names no backup")

    _refused(target, tmp_path / "absent.tar", "is not a file")


def test_a_part_outside_the_backups_names_is_refused(target, backup_file, tmp_path):
    """A part named to escape the restore's private folder, or a link, is never written."""
    members = parts(backup_file)
    escaping = tmp_path / "escaping.tar"
    rewrite(escaping, {**members, "../../escaped": b"x"}, fix_manifest=True)
    _refused(target, escaping, "its manifest lists '../../escaped'")
    assert not (tmp_path / "escaped").exists()

    linked = tmp_path / "linked.tar"
    with tarfile.open(linked, "w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            if name == "secret_key":
                info.type, info.linkname = tarfile.SYMTYPE, "/etc/hostname"
            else:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    _refused(target, linked, "holds 'secret_key', which its manifest does not list once")


def test_a_tampered_backup_is_refused_by_its_checksums(target, backup_file, tmp_path):
    members = parts(backup_file)
    data = bytearray(members["database.sqlite3"])
    data[-100] ^= 0xFF  # one byte of the database's last page
    tampered = tmp_path / "tampered.tar"
    rewrite(tampered, {**members, "database.sqlite3": bytes(data)}, fix_manifest=False)
    _refused(target, tampered, "database.sqlite3 does not match its checksum", "nothing was")

    key = tmp_path / "key.tar"
    rewrite(key, {**members, "secret_key": b"an attacker's key"}, fix_manifest=False)
    _refused(target, key, "secret_key is 17 bytes, its manifest says 11")

    binary_key = tmp_path / "binary-key.tar"  # checksums that match a key that is no text
    rewrite(binary_key, {**members, "secret_key": b"\xff\xfe"}, fix_manifest=True)
    _refused(target, binary_key, "its secret key is not text")

    extra = tmp_path / "extra.tar"
    rewrite(extra, {**members, "blobs/" + "0" * 64: b"x"}, fix_manifest=False)
    _refused(target, extra, "which its manifest does not list")


def test_a_truncated_backup_is_refused(target, backup_file, tmp_path):
    data = backup_file.read_bytes()
    with tarfile.open(backup_file) as tar:
        last = tar.getmembers()[-1]  # the secret key: cut inside its bytes
    for cut in (len(data) // 2, last.offset_data + 5, 700):
        short = tmp_path / f"short-{cut}.tar"
        short.write_bytes(data[:cut])
        _refused(target, short, "nothing")

    members = parts(backup_file)
    del members["secret_key"]
    missing = tmp_path / "missing.tar"
    rewrite(missing, members, fix_manifest=False)
    _refused(target, missing, "is truncated: secret_key missing")


def test_a_backup_from_a_newer_release_is_refused(target, backup_file, tmp_path):
    members = parts(backup_file)
    manifest = json.loads(members["manifest.json"])
    newer = tmp_path / "newer.tar"
    manifest.update(revision="ffffffffffff", release="99.0")
    rewrite(newer, {**members, "manifest.json": json.dumps(manifest).encode()}, fix_manifest=True)
    _refused(target, newer, "made by a newer release (99.0, revision ffffffffffff)", "upgrade")

    manifest.update(revision=json.loads(members["manifest.json"])["revision"], format_version=2)
    later_format = tmp_path / "format2.tar"
    rewrite(
        later_format, {**members, "manifest.json": json.dumps(manifest).encode()}, fix_manifest=True
    )
    _refused(target, later_format, "this release reads format 1")


def test_a_database_in_use_is_not_overwritten_without_force(target, backup_file):
    _refused(target, backup_file, "is in use", "its tables hold rows", "--force", force=False)
    forced = target.test_cli_runner().invoke(args=["db", "restore", str(backup_file), "--force"])
    assert forced.exit_code == 0, forced.output
    emails = [r[1] for r in rows(target)["user"]]
    assert "keeper@example.com" not in emails and "student@example.com" in emails


def test_a_live_worker_makes_a_database_in_use(target, backup_file, tmp_path, monkeypatch):
    empty = new_instance(tmp_path / "empty", monkeypatch)
    with empty.app_context():
        from flask_migrate import upgrade

        from grader.services import liveness

        upgrade(directory=empty.config["GRADER_MIGRATIONS_DIR"])
        liveness.beat("elsewhere:42", "elsewhere")
    _refused(empty, backup_file, "1 worker(s) seen alive", "elsewhere:42", force=False)
