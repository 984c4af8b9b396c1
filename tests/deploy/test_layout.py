"""The data the package reads live inside it (grader/data, grader/migrations), once."""

from __future__ import annotations

from pathlib import Path

from grader import data

ROOT = Path(__file__).resolve().parents[2]


def test_no_data_is_left_in_the_old_top_level_folders() -> None:
    # exercises/ and migrations/ moved into the package so that the installed wheel has them;
    # a file added there (a new suite, a new revision from another branch) would be missed.
    for old, new in (("exercises", "grader/data"), ("migrations", "grader/migrations")):
        left = [
            p.relative_to(ROOT).as_posix()
            for p in (ROOT / old).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        ]
        assert not left, f"move {left} into {new}/"


def test_the_resolver_finds_every_shipped_file() -> None:
    for name in ("quick.json", "full.json", "positions.json"):
        assert (data.suite_dir() / name).is_file()
    assert data.ballots_file().is_file()
    assert (data.presets_dir() / "standard.toml").is_file()
    assert (data.migrations_dir() / "env.py").is_file()
    assert data.checkers("template", "engine.py").is_file()
    assert data.path().parent == Path(__import__("grader").__file__).parent
