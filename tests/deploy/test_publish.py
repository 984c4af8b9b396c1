"""The package is ready to publish: `python -m build` makes the sdist and, from it, the wheel;
`twine check --strict` passes on both; the metadata is complete; the sdist holds what builds the
wheel (and the README and licence), not the tests, the docs or the deployment files.

Offline: `--no-isolation` builds with the test virtualenv's setuptools (the test extra pins it),
from a copy of the files a clone has (git ls-files, and the new files not ignored)."""

from __future__ import annotations

import email.parser
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

# make test's workers (--dist loadgroup): one of them runs the module, its fixture made once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("test_publish")]

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# The sdist's top level: what builds the wheel, the README and the licence, setuptools' own.
SDIST_TOP = {
    "PKG-INFO",
    "setup.cfg",
    "pyproject.toml",
    "README.md",
    "LICENSE",
    "MANIFEST.in",  # prune tests: setuptools would add tests/test*.py by itself
    "grader",
    "grader.egg-info",
    "exercises",
    "migrations",
}


def _clone(target: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    return target


def _build(source: Path, out: Path, *options: str) -> Path:
    """`python -m build` of `source` into `out`: the sdist and, from it, the wheel (`--wheel`:
    the wheel alone, from `source`)."""
    done = subprocess.run(
        [
            *(sys.executable, "-m", "build", "--no-isolation", *options),
            *("--outdir", str(out), str(source)),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def _twine_check(*files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    place = tmp_path_factory.mktemp("publish")
    out = _build(_clone(place / "source"), place / "dist")
    return next(out.glob("grader-*.tar.gz")), next(out.glob("grader-*.whl"))


def test_twine_check_passes_on_the_sdist_and_the_wheel(built: tuple[Path, Path]) -> None:
    checked = _twine_check(*built)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2, checked.stdout


def test_the_metadata_is_complete(built: tuple[Path, Path]) -> None:
    _, wheel = built
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.parser.Parser().parsestr(archive.read(name).decode())
        licences = [n for n in archive.namelist() if "/licenses/" in n]
    project = PYPROJECT["project"]
    assert meta["Name"] == "grader" and meta["Version"] == project["version"]
    assert meta["Summary"] == project["description"]
    assert meta["License-Expression"] == project["license"]
    assert licences == [name.replace("METADATA", "licenses/LICENSE")]
    assert meta["Requires-Python"] == ">=3.11"
    assert meta["Description-Content-Type"] == "text/markdown"
    assert meta.get_payload().startswith("# ")  # the README is the long description
    assert meta["Author-email"]
    assert set(meta.get_all("Classifier")) == set(project["classifiers"])
    assert "Programming Language :: Python :: 3.11" in project["classifiers"]
    assert meta["Keywords"]
    entry_points = zipfile.ZipFile(wheel).read(name.replace("METADATA", "entry_points.txt"))
    assert b"grader = grader.cli:main" in entry_points


def test_the_sdist_holds_the_sources_not_the_tests_nor_the_docs(built: tuple[Path, Path]) -> None:
    sdist, wheel = built
    with tarfile.open(sdist) as archive:
        names = [m.name.split("/", 1)[1] for m in archive.getmembers() if "/" in m.name]
    top = {n.split("/", 1)[0] for n in names}
    assert top == SDIST_TOP, sorted(top ^ SDIST_TOP)
    for folder in ("grader", "exercises", "migrations"):  # every file, nothing else
        tracked = {
            p.relative_to(ROOT).as_posix()
            for p in (ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
        assert {n for n in names if n.startswith(folder + "/")} >= tracked, folder
    # The wheel was built from the sdist: it has every file of exercises/ and migrations/.
    shipped = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("exercises", "migrations"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                assert f"grader/{path.relative_to(ROOT).as_posix()}" in shipped, path


def test_twine_check_can_fail(tmp_path: Path) -> None:
    # The same package without its README: --strict refuses a missing long description.
    source = _clone(tmp_path / "source")
    text = (source / "pyproject.toml").read_text()
    assert 'readme = "README.md"\n' in text
    (source / "pyproject.toml").write_text(text.replace('readme = "README.md"\n', ""))
    wheel = next(_build(source, tmp_path / "dist", "--wheel").glob("grader-*.whl"))
    checked = _twine_check(wheel)
    assert checked.returncode != 0
    assert "long_description" in checked.stdout + checked.stderr
