"""Running the built image's filesystem, as `make test-image` mounts it (scripts/test-image.sh).

`podman run` cannot start a container on the machines this project is built on (crun and runc
fail at setrlimit), and a chroot cannot make the user namespace the engine sandbox needs. So
the image's root is run under bubblewrap as the outer runtime: the image's filesystem as `/`,
the image's environment and working folder, as uid 10001 (the image's USER), with a private
/tmp and a /data of the test's own. The host's network (loopback only is used) and pid
namespace are kept: a fresh /proc in an outer pid namespace keeps the nested sandbox from
mounting its own /proc, and the host's /proc in one gives pids /proc does not know.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from pathlib import Path
from typing import IO

ROOT = os.environ.get("GRADER_TEST_IMAGE_ROOT", "")
CONFIG: dict = json.loads(os.environ.get("GRADER_TEST_IMAGE_CONFIG") or "{}")
UID = 10001


def image_user() -> tuple[int, int]:
    user, _, group = CONFIG["User"].partition(":")
    return int(user), int(group or user)


def image_env(**overrides: str) -> dict[str, str]:
    env = dict(item.split("=", 1) for item in CONFIG.get("Env", []))
    env.setdefault("HOME", "/home/grader")
    env.update(overrides)
    return env


def data_folder(tmp_path: Path) -> Path:
    """A /data as the image makes it: the image user's own, 0700."""
    folder = tmp_path / "data"
    folder.mkdir()
    uid, gid = image_user()
    os.chown(folder, uid, gid)
    folder.chmod(0o700)
    return folder


def command(
    argv: list[str],
    data: Path,
    env: dict[str, str] | None = None,
    binds: dict[Path, str] | None = None,
) -> list[str]:
    """The bwrap command line that runs `argv` in the image as its user."""
    uid, gid = image_user()
    outer = ["bwrap", "--bind", ROOT, "/", "--bind", "/proc", "/proc", "--dev", "/dev"]
    outer += ["--tmpfs", "/tmp", "--bind", str(data), "/data"]
    outer += ["--unshare-ipc", "--unshare-uts", "--die-with-parent", "--clearenv"]
    for name, value in (env or image_env()).items():
        outer += ["--setenv", name, value]
    for source, target in (binds or {}).items():
        outer += ["--ro-bind", str(source), target]
    outer += ["--chdir", CONFIG.get("WorkingDir") or "/"]
    drop = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]
    return [*outer, "--", *drop, *argv]


def start(
    argv: list[str], data: Path, out: IO | int = subprocess.DEVNULL, **kwargs
) -> subprocess.Popen:
    """`argv` in the image, in a process group of its own, so `stop` ends all of it (gunicorn's
    workers, a worker's grading children), not only the outer bwrap."""
    return subprocess.Popen(
        command(argv, data, **kwargs), stdout=out, stderr=out, start_new_session=True
    )


def stop(process: subprocess.Popen, timeout: float = 30) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=timeout)
            break
        except subprocess.TimeoutExpired:
            continue
    # what outlived its group leader (orphans keep the group id)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def run(argv: list[str], data: Path, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    process = subprocess.Popen(
        command(argv, data, **kwargs),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    finally:
        stop(process)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
