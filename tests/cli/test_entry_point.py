"""The `grader` command adds its own groups: the app factory never loads the CLI, the harness
or rich (a gunicorn worker serves pages without them), while `grader ...` and
`flask --app grader db ...` still find every command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
HEAVY = ("grader.cli", "grader.harness", "rich")


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "GRADER_DATABASE_URL": f"sqlite:///{tmp_path / 'app.db'}",
        "GRADER_INSTANCE_PATH": str(tmp_path / "instance"),
    }


def _run(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, env=_env(tmp_path), capture_output=True, text=True, timeout=120, check=False
    )


def test_the_app_factory_loads_neither_the_cli_nor_the_harness_nor_rich(tmp_path: Path) -> None:
    # One process: what the app factory loaded, then (the check can fail) what the grader
    # command itself loads on top of it: all three.
    script = (
        "import json, sys\nfrom grader import create_app\ncreate_app()\n"
        f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))\n"
        "from grader.cli import make_app\nmake_app()\nimport grader.cli.engine\n"
        f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))\n"
    )
    done = _run([sys.executable, "-c", script], tmp_path)
    assert done.returncode == 0, done.stderr
    factory, command = done.stdout.splitlines()
    assert json.loads(factory) == []
    assert json.loads(command) == list(HEAVY)


@pytest.mark.slow
def test_the_grader_command_and_flask_find_their_commands(tmp_path: Path) -> None:
    listed = _run([str(BIN / "grader"), "--help"], tmp_path)
    assert listed.returncode == 0, listed.stderr
    for group in (
        "tree",
        "checkers",
        "engine",
        "user",
        "course",
        "assignment",
        "demo",
        "gradebook",
        "worker",
        "lti",
        "db",
    ):
        assert f"  {group}" in listed.stdout, f"grader {group} is missing"
    made = _run([str(BIN / "grader"), "db", "upgrade"], tmp_path)
    assert made.returncode == 0, made.stderr
    user = _run(
        [
            str(BIN / "grader"),
            "user",
            "create",
            "a@example.com",
            "--password",
            "long enough password",
        ],
        tmp_path,
    )
    assert user.returncode == 0 and "a@example.com" in user.stdout, user.stderr
    # `flask --app grader` builds the bare app: Flask-Migrate's `db` is there, the rest is not.
    current = _run([str(BIN / "flask"), "--app", "grader", "db", "current"], tmp_path)
    assert current.returncode == 0, current.stderr
    assert "(head)" in current.stdout + current.stderr


def test_the_version_is_the_one_pyproject_gives_and_the_changelog_names(tmp_path: Path) -> None:
    """One place holds the release's version (pyproject.toml); `grader --version` says it and
    CHANGELOG.md has a section for it."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    version = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    done = _run([str(BIN / "grader"), "--version"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"grader, version {version}"
    assert f"\n## {version} " in (root / "CHANGELOG.md").read_text()
