"""`make run`: what it installs (the package with its server extra, nothing of the test, bench
or docs extras) and where it serves (PORT=, 8000 by default, each port with an instance folder
of its own, so two run side by side). Read from make's dry run (`make -n -B`), which prints
every command of the recipes and runs none."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _dry_run(*args: str) -> str:
    done = subprocess.run(
        ["make", "-n", "-B", "run", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def _serving(commands: str) -> tuple[str, str]:
    """(gunicorn's address, the instance folder exported for the commands)."""
    bind = re.search(r"gunicorn .*-b (\S+)", commands)
    instance = re.search(r'export GRADER_INSTANCE_PATH="([^"]+)"', commands)
    assert bind and instance, commands
    return bind.group(1), instance.group(1)


def test_make_run_installs_what_running_needs_alone() -> None:
    installs = [line for line in _dry_run().splitlines() if "pip install" in line]
    assert installs[-1].endswith(" -e '.[server]'"), installs
    for extra in ("test", "bench", "docs"):
        assert not any(extra in line for line in installs), installs


def test_two_ports_serve_side_by_side_from_their_own_instance_folders() -> None:
    assert _serving(_dry_run()) == ("127.0.0.1:8000", f"{ROOT}/instance")
    assert _serving(_dry_run("PORT=8001")) == ("127.0.0.1:8001", f"{ROOT}/instance-8001")
    # Everything the worker and the web keep (database, queue, uploads, keys) is under the
    # instance folder: the commands name no other path of their own.
    commands = _dry_run("PORT=8001")
    assert "8000" not in commands and "instance/" not in commands
