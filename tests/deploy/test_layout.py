"""The checkout's layout is the design card's: the exercises and the migrations at the top
(exercises/, migrations/), one copy of each file, found through the import system
(grader.exercises, grader.migrations) in this editable install as in an installed wheel
(tests/deploy/test_installed_package.py is the wheel's side)."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from grader import data

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

# The design card's top-level entries: a file or a folder each.
CARD = {
    "pyproject.toml": "file",
    "README.md": "file",
    "Dockerfile": "file",
    "grader": "folder",
    "exercises": "folder",
    "migrations": "folder",
    "tests": "folder",
}


def _files(folder: Path) -> list[str]:
    return sorted(
        p.relative_to(ROOT).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )


def test_the_top_level_has_the_cards_entries() -> None:
    missing = [
        name
        for name, kind in CARD.items()
        if not ((ROOT / name).is_file() if kind == "file" else (ROOT / name).is_dir())
    ]
    assert not missing, f"the design card names {missing} at the top of the checkout"
    assert (ROOT / "exercises" / "checkers" / "ASSIGNMENT.md").is_file()
    assert (ROOT / "exercises" / "presets" / "standard.toml").is_file()
    assert (ROOT / "migrations" / "env.py").is_file()
    assert list((ROOT / "migrations" / "versions").glob("*.py"))


def test_no_data_is_left_in_the_package_folders() -> None:
    # One copy of each file: a suite or a revision added under grader/ (from an older branch)
    # would be shipped twice or missed.
    for old, new in (("grader/data", "exercises"), ("grader/migrations", "migrations")):
        left = _files(ROOT / old) if (ROOT / old).is_dir() else []
        assert not left, f"move {left} into {new}/ (git mv): the data live at the top level"
    assert not (ROOT / "grader" / "exercises").exists()


def test_the_package_list_names_every_package_of_grader() -> None:
    # setuptools' package map needs an explicit list (pyproject.toml says why): a new
    # subpackage left out of it would be missing from the wheel and the image.
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "grader").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert found - listed == set(), f"add {sorted(found - listed)} to [tool.setuptools] packages"
    mapped = PYPROJECT["tool"]["setuptools"]["package-dir"]
    assert mapped == {"grader.exercises": "exercises", "grader.migrations": "migrations"}
    assert listed - found == set(mapped)


def test_the_editable_install_finds_the_top_level_folders_by_import() -> None:
    for name, folder in (("grader.exercises", "exercises"), ("grader.migrations", "migrations")):
        module = importlib.import_module(name)
        assert Path(module.__file__ or "").parent == ROOT / folder, name
    assert data.path() == ROOT / "exercises"
    assert data.migrations_dir() == ROOT / "migrations"
    for name in ("quick.json", "full.json", "positions.json"):
        assert (data.suite_dir() / name).is_file()
    assert data.ballots_file().is_file()
    assert (data.presets_dir() / "standard.toml").is_file()
    assert data.checkers("template", "engine.py").is_file()


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [["grader", "db", "upgrade"], ["flask", "--app", "grader", "db", "upgrade"]],
    ids=["grader", "flask"],
)
def test_both_commands_find_the_migrations_from_outside_the_checkout(
    command: list[str], tmp_path: Path
) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GRADER_")}
    env["GRADER_INSTANCE_PATH"] = str(tmp_path / "instance")
    done = subprocess.run(
        [str(BIN / command[0]), *command[1:]],
        cwd=tmp_path,  # not the checkout: nothing is found through the working directory
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    current = subprocess.run(
        [str(BIN / "flask"), "--app", "grader", "db", "current"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "(head)" in current.stdout + current.stderr, current.stdout + current.stderr
