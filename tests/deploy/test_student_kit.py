"""A student's install of the kit, as the handout tells it: a running instance (gunicorn, the
demo course), the student signs in, copies the one command from the engine slot's page and the
starter engine, and runs the command in a NEW virtualenv; then `grader checkers play` with the
starter (whose unfinished choose_move the referee forfeits, saying why) and with a finished
engine (a whole game).

Offline: the new virtualenv reaches the test virtualenv's distributions through a .pth line
(as in test_installed_package.py), so pip finds grader's dependencies installed and downloads
nothing; grader itself comes from the served wheel (the test checks where it is imported from).
Pip is among those distributions, so the virtualenv is made without its own copy (ensurepip's
install is most of a virtualenv's cost); `python3 -m pip` installs into the virtualenv it runs
in, as a student's own pip does.
"""

from __future__ import annotations

import html
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import requests

from tests.app_support import csrf_from
from tests.live_server import serve

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
CORRECT = Path(__file__).resolve().parents[1] / "harness" / "engines" / "correct.py"
COMMAND = re.compile(r'<code data-role="kit-command">([^<]+)</code>')
SLOT = re.compile(r'href="(/assignments/\d+/slots/\d+)"')


def _grader(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [str(BIN / "grader"), *args], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _student_env(venv: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GRADER_", "PYTHON", "VIRTUAL_ENV", "PIP_"))
    }
    env["PATH"] = f"{venv / 'bin'}:/usr/bin:/bin"
    env["PIP_NO_INDEX"] = "1"  # offline: the dependencies are already there (.pth)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def test_a_student_installs_the_kit_from_the_server_and_plays_the_starter(
    tmp_path: Path, migrated_template: Path
) -> None:
    server_env = {key: value for key, value in os.environ.items() if not key.startswith("GRADER_")}
    server_env["GRADER_INSTANCE_PATH"] = str(tmp_path / "instance")
    # The instance's database (its default place) at the latest schema: a copy of the session's
    # migrated template, as `grader db upgrade` leaves it (tests/cli and tests/deploy run that).
    (tmp_path / "instance").mkdir()
    shutil.copy(migrated_template, tmp_path / "instance" / "grader.sqlite3")
    seeded = _grader(server_env, "demo")
    password = re.search(r"login: student@example\.com / (\S+)", seeded)
    assert password, seeded
    with serve(tmp_path, {"GRADER_INSTANCE_PATH": server_env["GRADER_INSTANCE_PATH"]}) as url:
        browser = requests.Session()
        token = csrf_from(browser.get(f"{url}/login", timeout=30).text)
        signed_in = browser.post(
            f"{url}/login",
            data={
                "email": "student@example.com",
                "password": password.group(1),
                "csrf_token": token,
            },
            timeout=30,
        )
        assert signed_in.ok
        # The dashboard links the assignment, its page the slots; the engine slot's page
        # has the command (the page a student opens to upload).
        assignment = re.search(r'href="(/assignments/\d+)"', signed_in.text)
        assert assignment, signed_in.text[:2000]
        slots = SLOT.findall(browser.get(f"{url}{assignment.group(1)}", timeout=30).text)
        opened = [browser.get(f"{url}{link}", timeout=30) for link in slots]
        engine_pages = [r for r in opened if COMMAND.search(r.text)]
        assert len(engine_pages) == 1, slots
        slot = engine_pages[0].url.removeprefix(url)
        page = engine_pages[0].text
        command = COMMAND.search(page)
        assert command, "no install command on the engine slot's page"
        words = shlex.split(html.unescape(command.group(1)))
        assert words[:4] == ["python3", "-m", "pip", "install"] and len(words) == 5
        starter = browser.get(f"{url}{slot}/starter", timeout=30)
        assert starter.ok
        engine = tmp_path / "student" / "engine.py"
        engine.parent.mkdir()
        engine.write_bytes(starter.content)

        # The student's machine: a new virtualenv, the command as the page gives it (python3
        # being the virtualenv's), no cookie.
        venv = tmp_path / "student" / "venv"
        subprocess.run(
            [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300
        )
        purelib = subprocess.run(
            [
                str(venv / "bin" / "python3"),
                "-c",
                "import sysconfig; print(sysconfig.get_path('purelib'))",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        Path(purelib, "test-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
        student = _student_env(venv)
        installed = subprocess.run(
            words,
            cwd=engine.parent,
            env=student,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert installed.returncode == 0, installed.stdout + installed.stderr
        assert "Successfully installed grader" in installed.stdout, installed.stdout

    # The server is gone: what runs now is the student's copy.
    where = subprocess.run(
        [str(venv / "bin" / "python3"), "-c", "import grader; print(grader.__file__)"],
        cwd=engine.parent,
        env=student,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert where.startswith(purelib), where

    def play(engine_file: str) -> str:
        played = subprocess.run(
            [
                "grader",
                "checkers",
                "play",
                "--black",
                engine_file,
                "--white",
                "ref:1",
                "--time-per-move",
                "0.2",
            ],
            cwd=engine.parent,
            env=student,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert played.returncode == 0, played.stdout + played.stderr
        return played.stdout

    # The starter as handed out: its choose_move is a TODO, so the referee forfeits it, saying
    # why, as a graded game would.
    started = play("engine.py")
    assert "game 1: engine (Black) vs ref:1 (White) 0-1 by forfeit: RE" in started, started
    assert "NotImplementedError: choose_move" in started, started
    # A finished engine plays the game out with the same kit.
    finished = engine.parent / "finished.py"
    finished.write_bytes(CORRECT.read_bytes())
    played = play("finished.py")
    assert re.search(
        r"game 1: finished \(Black\) vs ref:1 \(White\) (1-0|0-1|1/2-1/2) by ", played
    ), played
    assert "forfeit" not in played, played
