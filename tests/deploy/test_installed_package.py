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
from collections.abc import Iterator
from pathlib import Path

import pytest

# make test's workers (--dist loadgroup): one of them runs the module, its fixture made once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("test_installed_package")]

ROOT = Path(__file__).resolve().parents[2]
CORRECT = ROOT / "tests" / "harness" / "engines" / "correct.py"
TINY = ROOT / "tests" / "harness" / "data" / "tiny.json"
DOCKERFILE = "\n" + (ROOT / "Dockerfile").read_text()


@pytest.fixture(scope="module", autouse=True)
def _outside_the_checkout() -> Iterator[None]:
    """Every command here runs as an installation elsewhere would: without the checkout on
    PYTHONPATH and without a test-only kind (`make test-kind-plugin` sets both; pip would take
    the checkout's grader for the wheel's and skip installing it)."""
    saved = {k: os.environ.pop(k) for k in ("PYTHONPATH", "GRADER_KIND_MODULES") if k in os.environ}
    yield
    os.environ.update(saved)


def build_stage_copies() -> list[str]:
    """The checkout's files and folders the Dockerfile's build stage copies before `pip wheel`
    (a folder the wheel needs but the image does not copy fails here as in the image)."""
    stage = DOCKERFILE.split("\nFROM ")[1]  # from the first FROM to the second
    copied = []
    for line in stage.splitlines():
        if line.startswith("COPY ") and "--from" not in line:
            copied += line.split()[1:-1]
    return copied


def test_the_build_stage_copies_the_top_level_layout() -> None:
    from grader.services.engines import kit

    # The image and the service's own kit build (a checkout's) start from the same sources.
    assert set(build_stage_copies()) == set(kit.SOURCES)
    assert {"pyproject.toml", "grader", "exercises", "migrations"} <= set(kit.SOURCES)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    place = tmp_path_factory.mktemp("installed")
    source = place / "source"
    source.mkdir()
    for name in build_stage_copies():  # what the image's build stage copies, nothing more
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            shutil.copy(ROOT / name, source / name)
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
    installed: dict[str, Path],
    *args: str,
    timeout: float = 300,
    command: list[str] | None = None,
) -> subprocess.CompletedProcess:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GRADER_", "PYTHON", "VIRTUAL_ENV"))
    }
    env["GRADER_INSTANCE_PATH"] = str(installed["instance"])
    env["PATH"] = f"{installed['venv'] / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}"
    done = subprocess.run(
        [*(command or [str(installed["grader"])]), *args],
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
        "grader/exercises/checkers/suite/quick.json",
        "grader/exercises/checkers/suite/full.json",
        "grader/exercises/checkers/suite/positions.json",
        "grader/exercises/checkers/ballots.txt",
        "grader/exercises/checkers/ASSIGNMENT.md",
        "grader/exercises/checkers/RULES.md",
        "grader/exercises/checkers/template/engine.py",
        "grader/exercises/checkers/run_autograder",
        "grader/exercises/presets/standard.toml",
        "grader/migrations/env.py",
        "grader/migrations/alembic.ini",
        "grader/migrations/script.py.mako",
        "grader/data.py",
    ):
        assert needed in names, needed
    # Every file of exercises/ and migrations/, once, under grader/ in the wheel.
    for folder in ("exercises", "migrations"):
        shipped = {n for n in names if n.startswith(f"grader/{folder}/")}
        assert shipped == {
            f"grader/{p.relative_to(ROOT).as_posix()}"
            for p in (ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }, folder
    assert not any(n.startswith(("exercises/", "migrations/", "grader/data/")) for n in names)
    assert not any("__pycache__" in n for n in names)


def test_grader_comes_from_the_wheel_and_finds_its_data_there(installed: dict[str, Path]) -> None:
    code = (
        "import grader, grader.data as d; from grader.harness import load_suite; "
        "import json; q = load_suite('quick'); f = load_suite('full'); "
        "print(json.dumps([grader.__file__, str(d.suite_dir()), len(q.tests), "
        "q.max_score, len(f.tests), str(d.path()), str(d.migrations_dir())]))"
    )
    done = subprocess.run(
        [str(installed["python"]), "-c", code],
        cwd=installed["work"],
        capture_output=True,
        text=True,
        check=True,
    )
    where, suites, quick_tests, quick_points, full_tests, exercises, migrations = json.loads(
        done.stdout
    )
    site = str(installed["venv"])
    assert where.startswith(site) and suites.startswith(site)
    package = Path(where).parent  # the same import as the checkout's, found inside grader/
    assert (Path(exercises), Path(migrations)) == (package / "exercises", package / "migrations")
    assert not where.startswith(str(ROOT))
    assert quick_tests > 0 and quick_points > 0 and full_tests > quick_tests


def test_db_upgrade_and_demo(installed: dict[str, Path]) -> None:
    # Flask's own command (`python -m flask`: the wheel has no flask script of its own) and the
    # grader command find the same migrations, inside the installed package.
    flask = [str(installed["python"]), "-m", "flask", "--app", "grader"]
    run(installed, "db", "upgrade", command=flask)
    run(installed, "db", "upgrade")
    current = run(installed, "db", "current", command=flask)
    assert "(head)" in current.stdout + current.stderr
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


def test_the_kit_is_the_wheel_kept_beside_the_installed_package(installed: dict[str, Path]) -> None:
    # An installed package has no sources to build from: it serves the wheel the image kept in
    # {sys.prefix}/share/grader/kit (the Dockerfile's COPY), and nothing without it.
    code = (
        "import json; from grader.services.engines import kit; "
        "print(json.dumps([kit.available(), kit.wheel_name(), "
        "str(kit.wheel_file('/nonexistent')) if kit.available() else None]))"
    )

    def ask() -> list:
        done = subprocess.run(
            [str(installed["python"]), "-c", code],
            cwd=installed["work"],
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(done.stdout)

    # python:3.11-slim's sys.prefix is /usr/local: the image keeps its wheel where kit looks.
    assert "\nCOPY --from=build /wheels /usr/local/share/grader/kit\n" in DOCKERFILE
    available, name, _ = ask()
    assert available is False and name == installed["wheel"].name
    kept = installed["venv"] / "share" / "grader" / "kit" / name
    kept.parent.mkdir(parents=True)
    shutil.copy(installed["wheel"], kept)
    try:
        assert ask() == [True, name, str(kept)]
    finally:
        shutil.rmtree(kept.parent)


# What the base install's `grader` must never import: the server extra's packages and the
# modules of grader that serve (the student kit installs the wheel without the extra).
SERVER_MODULES = ("flask", "werkzeug", "sqlalchemy", "huey", "redis", "weasyprint", "gunicorn")
SERVING = ("grader.web", "grader.services", "grader.models", "grader.jobs", "grader.extensions")
OPERATOR_GROUPS = ("user", "course", "assignment", "demo", "gradebook", "worker", "lti", "db")


def _base_dependencies(wheel: Path, folder: Path) -> set[str]:
    """`folder` filled with links to the test virtualenv's copies of the wheel's base
    dependencies (Requires-Dist without an extra) and theirs: what pip brings a student who
    installs the kit. Returns their names."""
    from importlib import metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        text = archive.read(name).decode()
    wanted = [
        Requirement(line.split(":", 1)[1].strip())
        for line in text.splitlines()
        if line.startswith("Requires-Dist:")
    ]
    found: set[str] = set()
    while wanted:
        requirement = wanted.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        key = canonicalize_name(requirement.name)
        if key in found:
            continue
        found.add(key)
        distribution = metadata.distribution(requirement.name)
        wanted += [Requirement(r) for r in distribution.requires or []]
        site = Path(str(distribution.locate_file("")))
        for top in {Path(str(f)).parts[0] for f in distribution.files or []} - {".."}:
            if not (folder / top).exists() and (site / top).exists():
                (folder / top).symlink_to(site / top)
    return found


def test_the_kit_without_the_server_extra_is_the_students_commands(
    installed: dict[str, Path], tmp_path: Path
) -> None:
    """The wheel as a student installs it: pip, offline, finds every base dependency among
    the test virtualenv's (linked into a folder of their own, nothing of the server extra),
    `grader --help` lists the student's commands alone, and they run importing nothing that
    serves."""
    base = tmp_path / "base"
    base.mkdir()
    names = _base_dependencies(installed["wheel"], base)
    assert {"click", "rich"} <= names and not {"flask", "sqlalchemy", "weasyprint"} & names
    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(purelib) / "base-dependencies.pth").write_text(f"{base}\n")
    # With its dependencies (no --no-deps): pip refuses the wheel if the base lacks one.
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"),
            *("--no-index", str(installed["wheel"])),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    student = {**installed, "venv": venv, "python": python, "grader": venv / "bin" / "grader"}
    assert subprocess.run([str(python), "-c", "import flask"], capture_output=True).returncode
    listed = run(student, "--help").stdout
    for group in ("tree", "checkers", "engine"):
        assert f"  {group}" in listed, listed
    for group in OPERATOR_GROUPS:
        assert f"  {group} " not in listed, listed
    assert "course service" not in listed
    # Each student command, in one process that then names what it imported.
    out = tmp_path / "results.json"
    imported = tmp_path / "imported.json"
    for args in (
        ["tree", "solve", "--tree", "[[3, 12, 8], [2, 4, 6], [14, 5, 2]]"],
        ["checkers", "perft", "--depth", "3"],
        ["engine", "check", str(CORRECT), "--suite", str(TINY), "--json", str(out)],
    ):
        code = (
            "import json, sys\nfrom grader.cli import main\n"
            f"try:\n    main({args!r})\nexcept SystemExit as done:\n    status = done.code\n"
            f"loaded = [m for m in sys.modules if m.split('.')[0] in {SERVER_MODULES!r} "
            f"or m.startswith({SERVING!r})]\n"
            f"open({str(imported)!r}, 'w').write(json.dumps([status, loaded]))\n"
        )
        run(student, command=[str(python), "-c", code])
        assert json.loads(imported.read_text()) == [0, []], args
    assert json.loads(out.read_text())["score"] == 5
