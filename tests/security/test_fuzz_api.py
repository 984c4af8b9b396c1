"""The API fuzzed by schemathesis (`st run <server>/api/openapi.json --checks all`) against a
real gunicorn, every operation and every check: no 500, no undocumented status code, no
response that breaks its schema, no schema-valid request refused, no schema-violating request
accepted, bounded in examples (each phase run once) and time.

The document states each request's shapes and the rules across fields JSON Schema can say (a
typed tree's nodes, each kind's answer, generator parameters, conventions). What depends on the
stored exercise or on what can be generated (an answer of another kind's shape or naming nodes
its tree lacks, a tree beyond the size limits, parameters no tree meets) is a documented 422
with the reason; schemathesis.toml allows it on those three operations, schemathesis's way
(`st explain ST202`). Each 422 is tested in tests/security and tests/web."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ST = Path(sys.executable).with_name("st")
CONFIG = ROOT / "schemathesis.toml"


@pytest.fixture
def server(tmp_path: Path, migrated_template: Path):
    sys.path.insert(0, str(ROOT))  # bench.load's server and data, as the load benchmark has them
    try:
        from bench.load import Server, _prepare
    finally:
        sys.path.remove(str(ROOT))
    clients = _prepare(tmp_path, 1, "IMMEDIATE", "graded", template=migrated_template)
    # One worker: schemathesis sends one request at a time (`--workers 1`).
    running = Server(tmp_path, 1, "sync", "IMMEDIATE")
    try:
        running.wait_ready()
        yield running, clients[0].token
    finally:
        running.stop()


def _st(
    port: int, token: str, *options: str, seconds: int, cwd: Path
) -> subprocess.CompletedProcess:
    """`st run` with every phase run once, 20 examples an operation in its fuzzing phase (the
    coverage phase's cases are the schema's own, the stateful phase's scenarios its links'):
    about 2,300 cases, 17 s of the client's CPU and 11 s of the server's workers'. No
    `--max-time`: with one, fuzzing and stateful testing repeat until it is spent (with 90 s:
    2,889 cases, the same operations and examples drawn again, and 59 s of CPU for the whole
    test against 41 s), and a slower machine would run fewer. `seconds` bounds the run."""
    return subprocess.run(
        [
            str(ST),
            "--config-file",
            str(CONFIG),
            "run",
            f"http://127.0.0.1:{port}/api/openapi.json",
            "--checks",
            "all",
            "-H",
            f"Authorization: Bearer {token}",
            "--max-examples",
            "20",
            "--seed",
            "10",
            "--workers",
            "1",
            "--generation-database",
            "none",
            *options,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=seconds,
        check=False,
        env={**os.environ, "SCHEMATHESIS_TELEMETRY": "false"},
    )


@pytest.mark.slow
def test_schemathesis_finds_nothing(server, tmp_path: Path):
    running, token = server
    done = _st(running.port, token, seconds=600, cwd=tmp_path)  # its cache there
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    print(summary)  # e.g. "===== 2 warnings in 48.15s =====": no failure
    assert "failure" not in summary and "error" not in summary
