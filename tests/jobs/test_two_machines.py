"""Two workers as two machines would run them: each with its own instance folder (no shared
files), both given only the database and the queue. A burst of uploads is graded once each, by
either worker, with the right score; the workers report themselves alive. On PostgreSQL and
Redis with `make test-backends`; by default on one SQLite file and a shared SQLite queue."""

from __future__ import annotations

import hashlib
import subprocess

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import EngineResult, Submission
from tests.jobs.engine_support import GRADER, add_student, engine_bytes, wait_for

pytestmark = pytest.mark.slow

BURST = 8


def machine_env(engine_env: dict[str, str], folder, name: str) -> dict[str, str]:
    """What a worker on another machine is given: the database and the queue (and the tests'
    short lease and sweep, to be quick); nothing of the web's instance folder."""
    return {
        "GRADER_DATABASE_URL": engine_env["GRADER_DATABASE_URL"],
        "GRADER_QUEUE_URL": engine_env["GRADER_QUEUE_URL"],
        "GRADER_INSTANCE_PATH": str(folder / name),
        "GRADER_LEASE_SECONDS": engine_env["GRADER_LEASE_SECONDS"],
        "GRADER_SWEEP_SECONDS": engine_env["GRADER_SWEEP_SECONDS"],
    }


def test_two_machines_grade_a_burst_once_each(
    app, client, factory, room, upload, workers, engine_env, tmp_path
):
    if not engine_env.get("GRADER_QUEUE_URL"):  # SQLite: one queue file both workers reach
        engine_env["GRADER_QUEUE_URL"] = f"sqlite:///{tmp_path / 'shared-queue.sqlite'}"
        app.config["GRADER_QUEUE_URL"] = engine_env["GRADER_QUEUE_URL"]
    machines = {name: machine_env(engine_env, tmp_path, name) for name in ("alpha", "beta")}
    expected: dict[int, float] = {}
    for n in range(BURST):
        headers = add_student(factory, room, f"s{n}@example.com")
        sample = "correct" if n % 4 else "crash_at_import"
        data = engine_bytes(sample) + f"\n# student {n}\n".encode()  # a blob each
        response = upload(data, headers=headers)
        assert response.status_code == 201, response.get_json()
        expected[response.get_json()["id"]] = 5.0 if sample == "correct" else 0.0
    for env in machines.values():
        workers.start(1, env=env)

    def graded() -> list[Submission] | None:
        with app.app_context():
            rows = list(db.session.scalars(sa.select(Submission)))
            db.session.remove()
        return rows if all(r.status in ("done", "failed") for r in rows) else None

    rows = wait_for(graded, 240, f"{BURST} uploads to be graded", workers)
    assert {r.id: (r.status, r.score, r.attempts) for r in rows} == {
        i: ("done", score, 1) for i, score in expected.items()
    }
    with app.app_context():
        results = list(db.session.scalars(sa.select(EngineResult)))
        db.session.remove()
    assert sorted(r.submission_id for r in results) == sorted(expected)  # once each
    # Each machine fetched what it graded from the database into its own folder, and checked it:
    # every upload on one machine or on both (an upload's two runs may go to either).
    copies = [p for name in machines for p in (tmp_path / name / "uploads").rglob("*.py")]
    assert len({p.parent.name + p.stem for p in copies}) == BURST <= len(copies) <= 2 * BURST
    assert all(hashlib.sha256(p.read_bytes()).hexdigest() == p.parent.name + p.stem for p in copies)
    # Both report themselves alive: /healthz counts them, the healthcheck passes.
    wait_for(
        lambda: client.get("/healthz").get_json()["workers"] == 2,
        30,
        "two live workers on /healthz",
        workers,
    )
    check = subprocess.run(
        [str(GRADER), "worker", "--check"],
        env=machines["beta"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 0, check.stderr
    assert "seen at" in check.stdout


def test_worker_check_fails_without_a_live_worker(engine_env, tmp_path):
    check = subprocess.run(
        [str(GRADER), "worker", "--check"],
        timeout=60,
        env={
            **machine_env({**engine_env, "GRADER_QUEUE_URL": ""}, tmp_path, "nobody"),
            "PATH": "/usr/bin:/bin",
        },
        capture_output=True,
        text=True,
    )
    assert check.returncode == 1
    assert "no grader worker on" in check.stderr


def test_a_worker_that_cannot_make_a_sandbox_says_why_and_stops(engine_env, tmp_path):
    env = {
        **machine_env({**engine_env, "GRADER_QUEUE_URL": ""}, tmp_path, "broken"),
        # a file bubblewrap cannot execute: bwrap itself fails, as in a container without
        # the options it needs
        "GRADER_SANDBOX_PYTHON": "/etc/hostname",
        "PATH": "/usr/bin:/bin",
    }
    for args in (["worker"], ["worker", "--check"]):
        done = subprocess.run(
            [str(GRADER), *args], env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 2, done.stderr
        assert "cannot make the engine sandbox: bubblewrap failed" in done.stderr
        assert "/etc/hostname" in done.stderr
