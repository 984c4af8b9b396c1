"""The package's own data, found through the import system (never through the checkout).

    exercises/checkers/   the assignment (ASSIGNMENT.md, RULES.md), the starter engine
                          (template/engine.py), the opening ballots, the engine suites and
                          their positions (suite/), Gradescope's run_autograder
    exercises/presets/    the assignment presets (*.toml)
    migrations/           the Alembic revisions
    grader/harness/adapter.py  the code run inside the sandbox, copied into each slot

exercises/ and migrations/ sit at the top of the checkout and are installed as the packages
`grader.exercises` and `grader.migrations` (pyproject.toml's package-dir). Both installs find
them by importing those packages: a wheel holds them inside grader/, and an editable install's
finder maps the two names to the checkout's folders. Everything that reads these files asks
here, so an installed wheel (the Docker image, a student's virtualenv) works like a checkout.
The instructor's own suites and presets are given by path instead (a suite file;
GRADER_PRESETS_DIR).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def _package_dir(package: str) -> Path:
    # pip always installs unpacked, so the package data are real files (the sandbox mounts
    # them, Alembic walks its folder); a zipped import would be refused here, loudly.
    found = files(package)
    if not isinstance(found, Path):
        raise RuntimeError(f"{package} is not installed as files on disk ({found!r})")
    return found


def path(*parts: str) -> Path:
    """A file or folder of exercises/: `path("checkers", "ballots.txt")`."""
    return _package_dir("grader.exercises").joinpath(*parts)


def checkers(*parts: str) -> Path:
    return path("checkers", *parts)


def suite_dir() -> Path:
    """The shipped engine suites (quick.json, full.json) and their positions.json."""
    return checkers("suite")


def ballots_file() -> Path:
    return checkers("ballots.txt")


def presets_dir() -> Path:
    return path("presets")


def static_dir() -> Path:
    """The web pages' static files (grader/web/static): all an exam sheet's renderer may read."""
    return _package_dir("grader").joinpath("web", "static")


def adapter_file() -> Path:
    """harness/adapter.py, the one module run inside the sandbox (bound there read-only)."""
    return _package_dir("grader.harness").joinpath("adapter.py")


def migrations_dir() -> Path:
    return _package_dir("grader.migrations")
