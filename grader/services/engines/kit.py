"""The student kit: this service's own `grader` wheel, so that a student installs the very
commands the handout names (`grader checkers play`, `grader engine check`) with one pip command
from the course's server.

pip sends no session cookie, so the download is a signed, expiring link per student
(`/kit/TOKEN/grader-VERSION-py3-none-any.whl`: pip reads the wheel's name from the URL's last
segment), shown to the signed-in student on the engine slot's page.

The wheel is built once, never per request:
- the Docker image keeps the wheel it installed, in `{sys.prefix}/share/grader/kit/`;
- a checkout (`make run`, an editable install) builds it on the first download, from a clean
  copy of the sources (what the image's build stage copies), into the instance folder's
  kit/FINGERPRINT/, FINGERPRINT naming the sources' state, so an edited checkout gets a new one.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from flask import current_app
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from grader import data
from grader.extensions import db
from grader.models import User
from grader.services import NotFound

_SALT = "grader-kit"
# What the wheel is built from: the files and folders the Dockerfile's build stage copies.
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "grader", "exercises", "migrations")


class KitUnavailable(NotFound):
    """No wheel can be served: an installed package without the image's prebuilt kit."""


def wheel_name() -> str:
    """The wheel's proper file name (a pure-Python package: py3-none-any)."""
    return f"grader-{metadata.version('grader')}-py3-none-any.whl"


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=_SALT)


def _lifetime_seconds() -> int:
    return int(current_app.config["GRADER_KIT_DAYS"]) * 24 * 3600


def download_token(user: User) -> str:
    """A token for `user`'s download link, valid GRADER_KIT_DAYS days."""
    return str(_serializer().dumps(user.id))


def user_for(token: str) -> User:
    """The user a download token was made for; NotFound when it is forged, expired, or names
    no account any more."""
    try:
        user_id = _serializer().loads(token, max_age=_lifetime_seconds())
    except SignatureExpired as exc:
        raise NotFound(
            "this download link has expired: copy a new one from your engine slot's page"
        ) from exc
    except BadSignature as exc:
        raise NotFound("no such download") from exc
    user = db.session.get(User, user_id) if isinstance(user_id, int) else None
    if user is None:
        raise NotFound("no such download")
    return user


def _prebuilt() -> Path | None:
    found = Path(sys.prefix) / "share" / "grader" / "kit" / wheel_name()
    return found if found.is_file() else None


def _checkout() -> Path | None:
    """The source tree this package runs from, if it is one: an editable install finds
    exercises/ at the checkout's top, beside pyproject.toml; a wheel inside grader/."""
    root = data.path().parent
    return root if (root / "pyproject.toml").is_file() else None


def _source_files(root: Path) -> list[Path]:
    files = []
    for name in SOURCES:
        path = root / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files += sorted(
                p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            )
    return files


def _fingerprint(root: Path, files: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in files:
        stat = path.stat()
        digest.update(f"{path.relative_to(root)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def available() -> bool:
    """Whether a wheel can be served here (the page shows the command only then)."""
    return _prebuilt() is not None or _checkout() is not None


def wheel_file(instance_path: str) -> Path:
    """The wheel to serve: the image's prebuilt one, else the checkout's, built once."""
    prebuilt = _prebuilt()
    if prebuilt is not None:
        return prebuilt
    root = _checkout()
    if root is None:
        raise KitUnavailable("the student kit is not available on this server")
    files = _source_files(root)
    folder = Path(instance_path) / "kit" / _fingerprint(root, files)
    wheel = folder / wheel_name()
    if wheel.is_file():
        return wheel
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build, whichever worker asks first
        if not wheel.is_file():
            _build(root, files, wheel)
    return wheel


def _build(root: Path, files: list[Path], wheel: Path) -> None:
    # In the wheel's own folder, so that the finished file is renamed into place (atomically).
    with tempfile.TemporaryDirectory(prefix="build-", dir=wheel.parent) as work:
        source = Path(work) / "source"
        for path in files:  # a clean copy: no build/ or egg-info left in the checkout
            target = source / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        built = Path(work) / "wheels"
        command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"]
        if importlib.util.find_spec("setuptools") is not None:
            command.append("--no-build-isolation")  # offline, with the setuptools at hand
        subprocess.run(
            [*command, "--wheel-dir", str(built), str(source)],
            check=True,
            capture_output=True,
            timeout=600,
            env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        )
        os.replace(built / wheel.name, wheel)
