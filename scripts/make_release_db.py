#!/usr/bin/env python3
"""A release's own database, for the upgrade test (tests/migrations/test_releases.py).

    python scripts/make_release_db.py COMMIT DEST_FOLDER

Checks out COMMIT (a git worktree in a temporary folder), installs it in a virtualenv of its
own, and with THAT code alone: migrates a new SQLite file (`grader db upgrade`), seeds the demo
course (`grader demo`), registers an LMS (`grader lti register`), has four students answer every
tree slot and three of them upload a sample engine through its /api, grades the uploads with
its own `grader worker` (bubblewrap), regrades every tree slot as the instructor, and records
the facts an upgrade must keep (scripts/release_db_course.py). Writes DEST_FOLDER/grader.sqlite3
and DEST_FOLDER/facts.json: the release's row count in every table, every student's gradebook
total as that release computes it, every attempt's id and the score its API served.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "scripts" / "release_db_course.py"
GRADING_SECONDS = 900  # the tiny suite grades an engine in seconds; a stuck worker fails here


def run(argv: list[str | Path], env: dict[str, str] | None = None) -> str:
    print("+", " ".join(str(a) for a in argv), file=sys.stderr)
    done = subprocess.run(
        [str(a) for a in argv], env=env, check=True, stdout=subprocess.PIPE, text=True
    )
    return done.stdout


def unfinished(database: Path) -> int:
    connection = sqlite3.connect(database, timeout=30)
    try:
        return connection.execute(
            "SELECT count(*) FROM submission WHERE status IN ('queued', 'running')"
        ).fetchone()[0]
    finally:
        connection.close()


def grade_uploads(grader: Path, env: dict[str, str], database: Path, log: Path) -> None:
    """The release's own worker, until no upload waits (then stopped as an operator would)."""
    with log.open("wb") as out:
        worker = subprocess.Popen(
            [str(grader), "worker"], env=env, stdout=out, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + GRADING_SECONDS
            while unfinished(database):
                if worker.poll() is not None:
                    raise RuntimeError(f"the worker exited ({worker.returncode}); see {log}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"uploads still waiting after {GRADING_SECONDS} s")
                time.sleep(1)
        finally:
            worker.send_signal(signal.SIGTERM)
            try:
                worker.wait(timeout=60)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()


def compact(database: Path) -> None:
    """One self-contained file: the WAL folded in, rollback journal mode, free pages dropped."""
    connection = sqlite3.connect(database)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.execute("PRAGMA journal_mode=DELETE")
        connection.execute("VACUUM")
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commit", help="the release's commit")
    parser.add_argument("dest", type=Path, help="folder for grader.sqlite3 and facts.json")
    args = parser.parse_args()
    commit = run(["git", "-C", ROOT, "rev-parse", "--verify", f"{args.commit}^{{commit}}"]).strip()

    work = Path(tempfile.mkdtemp(prefix="release-db-"))
    source, venv, database = work / "source", work / "venv", work / "grader.sqlite3"
    run(["git", "-C", ROOT, "worktree", "add", "--detach", source, commit])
    try:
        run([sys.executable, "-m", "venv", venv])
        run([venv / "bin" / "pip", "install", "--quiet", "-e", source])
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("GRADER_")},
            "GRADER_INSTANCE_PATH": str(work / "instance"),
            "GRADER_DATABASE_URL": f"sqlite:///{database}",
            "GRADER_SECRET_KEY": "release database",
            # The harness's tiny suite of that release: an upload graded in seconds.
            "GRADER_ENGINE_SUITE": str(source / "tests" / "harness" / "data" / "tiny.json"),
        }
        grader, python = venv / "bin" / "grader", venv / "bin" / "python"
        run([grader, "db", "upgrade"], env)
        run([grader, "demo"], env)
        run(
            [
                grader,
                "lti",
                "register",
                "--issuer=https://lms.example.edu",
                "--client-id=grader-tool",
                "--deployment=deployment-1",
                "--login-url=https://lms.example.edu/auth",
                "--token-url=https://lms.example.edu/token",
                "--jwks-url=https://lms.example.edu/jwks",
            ],
            env,
        )
        run([python, COURSE, "course", source / "tests" / "harness" / "engines"], env)
        grade_uploads(grader, env, database, work / "worker.log")
        run([python, COURSE, "regrade"], env)
        facts = json.loads(run([python, COURSE, "facts", database], env))
        version = run(
            [python, "-c", "from importlib.metadata import version; print(version('grader'))"]
        )
        facts["release"] = {"commit": commit, "version": version.strip()}
        compact(database)

        args.dest.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(database, args.dest / "grader.sqlite3")
        (args.dest / "facts.json").write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n")
        size = (args.dest / "grader.sqlite3").stat().st_size
        print(
            f"{args.dest}: {sum(facts['rows'].values())} rows in {len(facts['rows'])} tables, "
            f"{len(facts['attempts'])} attempts, {size // 1024} KiB",
            file=sys.stderr,
        )
    finally:
        run(["git", "-C", ROOT, "worktree", "remove", "--force", source])
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
