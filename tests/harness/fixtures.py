"""Fixtures of the harness tests: the real sandbox, the tiny suite, submissions built from the
sample engines. A plugin (`pytest_plugins` in tests/conftest.py), as tests/cli uses them too."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.harness.suite import Suite, load_suite
from tests.harness._helpers import ENGINES, TINY, sandbox_problem


@pytest.fixture(scope="session")
def sandbox() -> None:
    problem = sandbox_problem()
    if problem is not None:
        pytest.fail(
            f"the bubblewrap sandbox does not work here ({problem}); "
            "`make test` installs it with scripts/system-deps.sh"
        )


@pytest.fixture(scope="session")
def tiny() -> Suite:
    return load_suite(TINY)


@pytest.fixture
def submission(tmp_path: Path):
    """submission(name, files): a folder with engines/NAME.py as engine.py, correct.py beside
    it (the samples reuse the correct engine), and extra files {name: text}."""

    def build(name: str, files: dict[str, str] | None = None) -> Path:
        folder = tmp_path / f"sub-{name}"
        folder.mkdir()
        shutil.copyfile(ENGINES / f"{name}.py", folder / "engine.py")
        shutil.copyfile(ENGINES / "correct.py", folder / "correct.py")
        for file, text in (files or {}).items():
            (folder / file).write_text(text)
        return folder

    return build
