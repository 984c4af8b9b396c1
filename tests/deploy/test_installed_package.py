"""The package as the Docker image installs it (`pip install .`, not editable), outside the
checkout: the wheel is built from a copy of the sources, installed into a fresh virtualenv in
a temporary folder, and the commands a deployment runs are run there.

Offline and quick: the new virtualenv has no pip and downloads nothing; the wheel goes in with
`--no-deps`, and the dependencies are the test virtualenv's own, reached through a .pth line
(a folder named in a .pth file is only put on sys.path: its own .pth files, among them the
editable install's finder of the checkout, are not run, so `grader` can only come from the
wheel; the test checks that too).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CORRECT = ROOT / "tests" / "harness" / "engines" / "correct.py"
TINY = ROOT / "tests" / "harness" / "data" / "tiny.json"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    place = tmp_path_factory.mktemp("installed")
    source = place / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "grader", source / "grader", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    wheels = place / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--wheel-dir",
            str(wheels),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheel = next(wheels.glob("grader-*.whl"))
    venv = place / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    python = venv / "bin" / "python"
    purelib = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    (purelib / "test-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    work = place / "work"  # the commands run here: nothing of the checkout is near
    work.mkdir()
    return {
        "wheel": wheel,
        "venv": venv,
        "python": python,
        "work": work,
        "grader": venv / "bin" / "grader",
        "instance": place / "instance",
    }


def run(
    installed: dict[str, Path], *args: str, timeout: float = 300
) -> subprocess.CompletedProcess:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GRADER_", "PYTHON", "VIRTUAL_ENV"))
    }
    env["GRADER_INSTANCE_PATH"] = str(installed["instance"])
    env["PATH"] = f"{installed['venv'] / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}"
    done = subprocess.run(
        [str(installed["grader"]), *args],
        cwd=installed["work"],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"grader {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done


def test_the_wheel_ships_the_data_and_the_migrations(installed: dict[str, Path]) -> None:
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    for needed in (
        "grader/data/checkers/suite/quick.json",
        "grader/data/checkers/suite/full.json",
        "grader/data/checkers/suite/positions.json",
        "grader/data/checkers/ballots.txt",
        "grader/data/checkers/ASSIGNMENT.md",
        "grader/data/checkers/RULES.md",
        "grader/data/checkers/template/engine.py",
        "grader/data/checkers/run_autograder",
        "grader/data/presets/standard.toml",
        "grader/migrations/env.py",
        "grader/migrations/alembic.ini",
        "grader/migrations/script.py.mako",
    ):
        assert needed in names, needed
    shipped = {n for n in names if n.startswith("grader/migrations/versions/")}
    assert shipped == {
        f"grader/migrations/versions/{p.name}"
        for p in (ROOT / "grader" / "migrations" / "versions").glob("*.py")
    }
    assert not any("__pycache__" in n for n in names)


def test_grader_comes_from_the_wheel_and_finds_its_data_there(installed: dict[str, Path]) -> None:
    code = (
        "import grader, grader.data as d; from grader.harness import load_suite; "
        "import json; q = load_suite('quick'); f = load_suite('full'); "
        "print(json.dumps([grader.__file__, str(d.suite_dir()), len(q.tests), "
        "q.max_score, len(f.tests)]))"
    )
    done = subprocess.run(
        [str(installed["python"]), "-c", code],
        cwd=installed["work"],
        capture_output=True,
        text=True,
        check=True,
    )
    where, suites, quick_tests, quick_points, full_tests = json.loads(done.stdout)
    site = str(installed["venv"])
    assert where.startswith(site) and suites.startswith(site)
    assert not where.startswith(str(ROOT))
    assert quick_tests > 0 and quick_points > 0 and full_tests > quick_tests


def test_db_upgrade_and_demo(installed: dict[str, Path]) -> None:
    run(installed, "db", "upgrade")
    demo = run(installed, "demo")
    assert "student@example.com" in demo.stdout + demo.stderr
    assert (installed["instance"] / "grader.sqlite3").is_file()
    again = run(installed, "demo")  # idempotent
    assert "student@example.com" in again.stdout + again.stderr


def test_engine_check_gives_the_correct_engine_full_marks(
    installed: dict[str, Path], tmp_path: Path
) -> None:
    from grader.harness.sandbox import SandboxConfig

    SandboxConfig().check()  # fails (never skips) without bubblewrap: `make test` installs it
    out = tmp_path / "results.json"
    # The sandbox (no --no-sandbox), on a small suite; the shipped ones load in the test above.
    run(installed, "engine", "check", str(CORRECT), "--suite", str(TINY), "--json", str(out))
    results = json.loads(out.read_text())
    assert len(results["tests"]) == 4  # a game with each colour
    assert results["score"] == sum(t["max_score"] for t in results["tests"]) == 5


def test_checkers_play_with_a_ballot(installed: dict[str, Path], tmp_path: Path) -> None:
    pdn = tmp_path / "game.pdn"
    run(
        installed,
        "checkers",
        "play",
        "--black",
        "ref:1",
        "--white",
        "random",
        "--ballot",
        "--pdn",
        str(pdn),
    )
    text = pdn.read_text()
    assert '[Opening "' in text and '[Result "' in text  # the ballot's name is the opening
