"""`python -m bench.backup`: a term's backup and its restore, against a plain copy of the file.

A migrated SQLite database in a temporary folder holding a course of 300 students (the
`standard` preset and an engine slot) with 20,000 attempts and 300 engine uploads: each student's
graded variant made and answered once through the services, each student's engine uploaded
through the real intake (its bytes a blob in the database), and the attempts' rows then repeated
by SQL up to the count. Timed, three rounds each, medians:

    backup    `grader db backup`'s service: the online backup API's copy, the key, the manifest
              with every part's SHA-256, one tar file written and synced
    restore   `grader db restore`'s service into a new instance: every part read against its
              checksum, SQLite's integrity check of the copy, the copy written into the
              instance's database through SQLite, the upgrade (none: already at head), the key
    peer      a plain copy of the same database file (`shutil.copyfile`, after a checkpoint so
              the file holds every row), what an operator without the command would do; the
              same copy synced to disk is printed beside it (a backup is synced, the plain
              copy is not)

The figure is each one's ratio to the peer.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

PASSWORD = "bench horse battery staple"
FAST = {"time_cost": 1, "memory_cost": 1024, "parallelism": 1}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.backup")
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--attempts", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="2 students, 500 attempts")
    args, _ = parser.parse_known_args(argv)
    students, attempts = (2, 500) if args.quick else (args.students, args.attempts)
    with tempfile.TemporaryDirectory() as folder:
        run(Path(folder), students, attempts, 1 if args.quick else args.rounds)


def _app(folder: Path) -> Any:
    from grader import create_app

    os.environ["GRADER_INSTANCE_PATH"] = str(folder / "instance")
    os.environ["GRADER_DATABASE_URL"] = f"sqlite:///{folder / 'grader.sqlite3'}"
    return create_app({"GRADER_ARGON2": FAST, "GRADER_UPLOAD_RATE": "1000/60"})


def _course(students: int, attempts: int) -> None:
    import sqlalchemy as sa

    from grader import data
    from grader.extensions import db
    from grader.models import Attempt
    from grader.services import accounts
    from grader.services.courses import courses
    from grader.services.courses.invites import accept_as
    from grader.services.courses.roster import add_member
    from grader.services.engines import submissions
    from grader.services.trees import attempts as attempts_service
    from grader.services.trees import exercises

    teacher = accounts.create_user("teacher@example.com", PASSWORD, "instructor")
    course = courses.create_course("Bench 101", teacher.email)
    assignment = courses.create_assignment(course.id, "standard")
    engine_slot = submissions.add_engine_slot(assignment.id, suite="quick")
    starter = data.checkers("template", "engine.py").read_bytes()
    for i in range(students):
        email = f"student{i:04d}@example.com"
        student = accounts.create_user(email, None)  # an account of its own, not the roster's
        add_member(teacher, course.id, email, "student")
        accept_as(student, course.id)  # a member once the account accepts its invite
        exercise = exercises.slot_exercise(student, assignment.id, 0)
        attempts_service.submit(student, exercise.id, {"pruned": [], "value": 0})
        engine = starter + f"\n# student {i}: {email}\n".encode()  # each upload its own blob
        submissions.upload(student, assignment.id, engine_slot.index, engine, "engine.py")
    columns = [c for c in Attempt.__table__.columns if c.name != "id"]
    while (count := db.session.scalar(sa.select(sa.func.count()).select_from(Attempt))) < attempts:
        source = sa.select(*columns).order_by(Attempt.id).limit(attempts - count)
        with db.engine.begin() as connection:
            connection.execute(sa.insert(Attempt).from_select([c.name for c in columns], source))
        db.session.remove()


def _synced_copy(source: Path, dest: Path) -> None:
    shutil.copyfile(source, dest)
    with dest.open("rb") as handle:
        os.fsync(handle.fileno())


def _timed(work: Any, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run(folder: Path, students: int, attempts: int, rounds: int) -> None:
    import sqlite3

    import sqlalchemy as sa

    from bench import migrate
    from grader.extensions import db
    from grader.models import Attempt, Blob, Submission
    from grader.services.data import backup

    source_dir, target_dir = folder / "source", folder / "target"
    source_dir.mkdir()
    target_dir.mkdir()
    source = _app(source_dir)
    start = time.perf_counter()
    with source.app_context():
        migrate(source)
        _course(students, attempts)
        counted = {
            model.__tablename__: db.session.scalar(sa.select(sa.func.count()).select_from(model))
            for model in (Attempt, Submission, Blob)
        }
        db.session.remove()
        db.engine.dispose()
    made = time.perf_counter() - start
    database = source_dir / "grader.sqlite3"
    with sqlite3.connect(database) as connection:  # the whole database in the file itself
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    size = database.stat().st_size
    print(
        f"backup: {students} students, {counted['attempt']:,} attempts, "
        f"{counted['submission']} uploads ({counted['blob']} blobs); database {size / 1e6:.1f} MB "
        f"(made in {made:.1f} s); medians of {rounds} round(s)"
    )

    copy = folder / "copy.sqlite3"
    peer = _timed(lambda: shutil.copyfile(database, copy), rounds)
    synced = _timed(lambda: _synced_copy(database, copy), rounds)
    dest = folder / "term.tar"
    taken: list[Any] = []
    with source.app_context():
        took = _timed(lambda: taken.append(backup.take(dest)), rounds)
        db.engine.dispose()
    target = _app(target_dir)
    with target.app_context():
        restored = _timed(lambda: backup.restore(dest, force=True), rounds)
        kept = db.session.scalar(sa.select(sa.func.count()).select_from(Attempt))
        db.session.remove()
        db.engine.dispose()
    assert kept == counted["attempt"], (kept, counted)
    print(f"  the peer, a plain copy of the file: {peer * 1000:8.1f} ms")
    print(f"  (the copy synced to disk:           {synced * 1000:8.1f} ms)")
    print(
        f"  grader db backup:                   {took * 1000:8.1f} ms "
        f"({taken[-1].size / 1e6:.1f} MB)   ratio: {took / peer:.2f}x the copy"
    )
    print(
        f"  grader db restore:                  {restored * 1000:8.1f} ms "
        f"({kept:,} attempts back)   ratio: {restored / peer:.2f}x the copy"
    )


if __name__ == "__main__":
    main()
