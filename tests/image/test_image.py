"""The image the real Dockerfile builds, run from its own filesystem (`make test-image`).

What a deployment relies on: the entrypoint migrates (and seeds the demo when asked), gunicorn
answers /healthz as uid 10001, `grader worker --check` tells a live worker from none, the
installed package finds its own files, and an engine is graded in the sandbox from inside it.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
import requests

from tests.image import image_support as image
from tests.live_server import free_port

CHECKOUT = Path(__file__).resolve().parents[2]
ENGINES = CHECKOUT / "tests" / "harness" / "engines"
SUITES = CHECKOUT / "tests" / "harness" / "data"  # tiny.json, the test suite's own small suite
SITE = "/usr/local/lib/python3.11/site-packages"


def migrations_head() -> str:
    """The newest revision of migrations/versions: the one no other revision names as its down."""
    revisions, downs = set(), set()
    for file in (CHECKOUT / "migrations" / "versions").glob("*.py"):
        text = file.read_text()
        revisions.add(re.search(r"^revision\s*=\s*['\"](\w+)['\"]", text, re.M).group(1))
        down = re.search(r"^down_revision\s*=\s*['\"](\w+)['\"]", text, re.M)
        if down:
            downs.add(down.group(1))
    (head,) = revisions - downs
    return head


def entrypoint(argv: list[str], data: Path, **env: str) -> subprocess.CompletedProcess:
    return image.run([*image.CONFIG["Entrypoint"], *argv], data, env=image.image_env(**env))


def test_the_entrypoint_migrates_then_runs_its_command(tmp_path) -> None:
    data = image.data_folder(tmp_path)
    done = entrypoint(["sh", "-c", "echo the command ran as $(id -u)"], data)
    assert done.returncode == 0, done.stderr
    assert f"the command ran as {image.UID}" in done.stdout
    with sqlite3.connect(data / "grader.sqlite3") as db:
        assert db.execute("select version_num from alembic_version").fetchall() == [
            (migrations_head(),)
        ]
        assert db.execute("select count(*) from user").fetchone() == (0,)
    assert not (data / "demo_logins.json").exists()
    # A worker container does not migrate: two containers migrating at once would race.
    (tmp_path / "worker").mkdir()
    other = image.data_folder(tmp_path / "worker")
    assert entrypoint(["true"], other, GRADER_ROLE="worker").returncode == 0
    assert not (other / "grader.sqlite3").exists()


def test_the_entrypoint_seeds_the_demo_when_asked(tmp_path) -> None:
    data = image.data_folder(tmp_path)
    done = entrypoint(["true"], data, GRADER_DEMO="1")
    assert done.returncode == 0, done.stderr
    logins = json.loads((data / "demo_logins.json").read_text())
    with sqlite3.connect(data / "grader.sqlite3") as db:
        emails = {row[0] for row in db.execute("select email from user")}
    assert set(logins) <= emails and len(emails) >= 2
    for file in data.iterdir():  # the instance folder's files are the image user's alone
        assert file.stat().st_uid == image.UID and file.stat().st_mode & 0o077 == 0, file


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _real_uid(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return int(line.split()[1])
    raise AssertionError(f"no Uid line for {pid}")


def test_gunicorn_answers_healthz_as_the_image_user(tmp_path) -> None:
    data = image.data_folder(tmp_path)
    port = free_port()
    env = image.image_env(
        GUNICORN_CMD_ARGS=image.image_env()["GUNICORN_CMD_ARGS"].replace(
            "0.0.0.0:8000", f"127.0.0.1:{port}"
        )
    )
    argv = [*image.CONFIG["Entrypoint"], *image.CONFIG["Cmd"]]  # the image's default command
    log = tmp_path / "gunicorn.log"
    with log.open("wb") as out:
        server = image.start(argv, data, out, env=env)
    try:
        deadline = time.monotonic() + 90
        while True:
            assert server.poll() is None, log.read_text()
            try:
                answer = requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except (requests.ConnectionError, requests.Timeout):  # not listening, or no worker yet
                assert time.monotonic() < deadline, "gunicorn did not answer in 90 s"
                time.sleep(0.5)
        assert answer.status_code == 200
        gunicorns = [
            pid
            for pid in _descendants(server.pid)
            if b"gunicorn" in Path(f"/proc/{pid}/cmdline").read_bytes()
        ]
        assert len(gunicorns) >= 3  # the master and its two workers (GUNICORN_CMD_ARGS)
        assert {_real_uid(pid) for pid in gunicorns} == {image.UID}
    finally:
        image.stop(server)


def test_worker_check_tells_a_live_worker_from_none(tmp_path) -> None:
    data = image.data_folder(tmp_path)
    assert entrypoint(["true"], data).returncode == 0  # migrated, as the web container does
    none = image.run(["grader", "worker", "--check"], data)
    assert none.returncode == 1 and "no grader worker" in none.stderr
    worker = image.start(["grader", "worker"], data)
    try:
        deadline = time.monotonic() + 90
        while (check := image.run(["grader", "worker", "--check"], data)).returncode != 0:
            assert worker.poll() is None, "the worker stopped"
            assert time.monotonic() < deadline, check.stderr
            time.sleep(1)
        assert "seen at" in check.stdout
    finally:
        image.stop(worker)


def test_the_installed_package_finds_its_files_in_site_packages(tmp_path) -> None:
    script = (
        "import json; from grader import create_app, data; from grader.services.engines import kit\n"
        "app = create_app({'SECRET_KEY': 'x'})\n"
        "print(json.dumps({'presets': str(data.presets_dir()), 'suites': str(data.suite_dir()),"
        " 'ballots': str(data.ballots_file()), 'migrations': str(data.migrations_dir()),"
        " 'adapter': str(data.adapter_file()), 'starter': str(data.checkers('template')),"
        " 'templates': app.jinja_loader.searchpath[0], 'static': app.static_folder,"
        " 'kit': str(kit.wheel_file(app.instance_path))}))"
    )
    done = image.run(["python3", "-c", script], image.data_folder(tmp_path))
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    for name, where in found.items():
        if name == "kit":  # the wheel the image installed, kept to serve to students
            assert where.startswith("/usr/local/share/grader/kit/grader-"), where
        else:
            assert where.startswith(f"{SITE}/grader/"), (name, where)
        assert (Path(image.ROOT) / where.lstrip("/")).exists(), (name, where)
    assert not (Path(image.ROOT) / "src").exists()  # the build stage's checkout stays behind


@pytest.mark.parametrize(
    "engine, suite, expect",
    [
        # The starter as shipped: its functions raise NotImplementedError, in the sandbox.
        ("starter", "quick", "NotImplementedError"),
        # A finished engine: every test of the tiny suite passes, so the sandbox really ran it.
        ("correct", "tiny", None),
    ],
)
def test_engine_check_grades_in_the_sandbox_from_the_image(tmp_path, engine, suite, expect):
    data = image.data_folder(tmp_path)
    binds = {ENGINES: "/engines", SUITES: "/suites"}
    path = (
        f"{SITE}/grader/exercises/checkers/template/engine.py"
        if engine == "starter"
        else "/engines/correct.py"
    )
    argv = ["grader", "engine", "check", "--sandbox", "--json", "/data/results.json", path]
    argv += ["--suite", "quick" if suite == "quick" else "/suites/tiny.json"]
    done = image.run(argv, data, binds=binds)
    assert "without the sandbox" not in done.stdout + done.stderr
    results = json.loads((data / "results.json").read_text())
    assert results["extra_data"]["sandbox"] is True
    outputs = [test["output"] for test in results["tests"]]
    verdicts = {test["extra_data"]["verdict"] for test in results["tests"]}
    assert "IE" not in verdicts, done.stdout  # whatever happens is the engine's, never the grader's
    if expect is None:
        assert done.returncode == 0, done.stdout + done.stderr
        assert verdicts == {"passed"}, done.stdout
        assert results["score"] == sum(test["max_score"] for test in results["tests"]) > 0
    else:
        assert any(expect in output for output in outputs), done.stdout
        assert results["score"] == 0
