"""How long an upgrade takes: the oldest release's own database
(tests/migrations/releases/), its attempts copied until it holds N, upgraded to head one
revision at a time on SQLite, each revision timed (wall clock and this process's CPU).

    python -m bench.upgrade --attempts 10000

The attempts are copies of the release's real ones (real answers on real trees), so a revision
that grades every attempt again (3f1b2c4d5e6a) does the work it does on a course's data.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

RELEASES = Path(__file__).resolve().parents[1] / "tests" / "migrations" / "releases"


@dataclass(frozen=True)
class Step:
    revision: str
    seconds: float
    cpu_seconds: float


def oldest_release() -> Path:
    return min(p for p in RELEASES.iterdir() if (p / "grader.sqlite3").exists()) / "grader.sqlite3"


def with_attempts(source: Path, target: Path, attempts: int) -> int:
    """A copy of ``source`` whose attempt table holds ``attempts`` rows (copies of its own)."""
    shutil.copyfile(source, target)
    connection = sqlite3.connect(target)
    try:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(attempt)")]
        copied = ", ".join(f'"{c}"' for c in columns if c != "id")
        have = connection.execute("SELECT count(*) FROM attempt").fetchone()[0]
        if have == 0:
            raise ValueError(f"{source} has no attempts to copy")
        while have < attempts:
            connection.execute(
                f"INSERT INTO attempt ({copied}) SELECT {copied} FROM attempt "
                f"ORDER BY id LIMIT {attempts - have}"
            )
            have = connection.execute("SELECT count(*) FROM attempt").fetchone()[0]
        connection.commit()
        return int(have)
    finally:
        connection.close()


def later_revisions(directory: str, start: str) -> list[str]:
    """The revisions after ``start``, oldest first, up to the head."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", directory)
    script = ScriptDirectory.from_config(config)
    return [found.revision for found in reversed(list(script.walk_revisions(start, "heads")))][1:]


def run(attempts: int, folder: Path) -> tuple[int, list[Step]]:
    """The steps of one upgrade of a database of ``attempts`` attempts, made in ``folder``."""
    from flask_migrate import upgrade

    from grader import create_app
    from grader.extensions import db

    database = folder / "grader.sqlite3"
    count = with_attempts(oldest_release(), database, attempts)
    os.environ["GRADER_INSTANCE_PATH"] = str(folder / "instance")
    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{database}"})
    steps = []
    with app.app_context():
        directory = app.config["GRADER_MIGRATIONS_DIR"]
        with db.engine.connect() as connection:
            current = connection.exec_driver_sql("SELECT version_num FROM alembic_version")
            start = current.scalar_one()
        for revision in later_revisions(directory, start):
            began, cpu = time.perf_counter(), time.process_time()
            upgrade(directory=directory, revision=revision)
            steps.append(Step(revision, time.perf_counter() - began, time.process_time() - cpu))
        db.engine.dispose()
    return count, steps


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Time each revision of an upgrade to head.")
    parser.add_argument("--attempts", type=int, default=10_000)
    args, _ = parser.parse_known_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-upgrade-") as folder:
        count, steps = run(args.attempts, Path(folder))
    print(f"upgrade of {oldest_release().parent.name}'s database with {count} attempts")
    for step in steps:
        print(f"  {step.revision}  {step.seconds:7.2f} s  ({step.cpu_seconds:.2f} s CPU)")
    total = sum(s.seconds for s in steps)
    print(f"  total         {total:7.2f} s, {total * 10_000 / count:.2f} s per 10,000 attempts")


if __name__ == "__main__":
    main()
