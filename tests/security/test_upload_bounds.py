"""An engine upload's work is bounded whatever its archive inflates to, and a refused upload
counts against the student's upload rate (issue 36 §2).

A 14 KB zip inflating to 4 MB of Python with a syntax error on its last line made the web worker
compile all of it (seconds of CPU) before refusing it, and refusals stored nothing, so the upload
rate never saw them. The request's CPU is measured on the thread that serves it (the test client
runs the app in the test's thread), never its wall time."""

from __future__ import annotations

import io
import resource
import zipfile

import pytest

from grader.harness.submission import MAX_PY_BYTES, MAX_UNCOMPRESSED_BYTES
from tests.security.upload_support import post_engine, submissions_in_db

ENGINE = b"def choose_move(board, moves):\n    return moves[0]\n"
# Well under what compiling 4 MB of Python costs (3 s and more), well over what refusing it while
# inflating does (tens of milliseconds); a file at the Python cap compiles in about 0.2 s.
REQUEST_CPU_BOUND = 0.6


def hostile_zip() -> bytes:
    """engine.py of 4 MB of Python, its last line a syntax error, deflated to a few KB."""
    line = b"x = [a for a in range(10) if a % 2] + [1, 2, 3]\n"
    return zip_of(line * ((MAX_UNCOMPRESSED_BYTES - 4096) // len(line)) + b"def (:\n")


def zip_of(source: bytes) -> bytes:
    """``source`` as a zip's engine.py, deflated."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("engine.py", source)
    return buffer.getvalue()


def thread_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_THREAD)
    return usage.ru_utime + usage.ru_stime


def test_a_zip_inflating_to_megabytes_of_python_is_refused_within_a_cpu_bound(
    app, client, engine_slot
):
    data = hostile_zip()
    assert len(data) < 32 << 10
    post_engine(client, engine_slot, b"X = 1\n", "warm.zip")  # imports and first-request costs
    before = thread_cpu()
    response = post_engine(client, engine_slot, data, "engine.zip")
    spent = thread_cpu() - before
    print(f"request CPU on a {len(data)} B zip: {spent:.3f} s")  # the figure, with -s
    assert spent < REQUEST_CPU_BOUND, f"the refusal cost {spent:.2f} s of the request's CPU"
    assert response.status_code == 400, response.get_json()
    error = response.get_json()["error"]
    assert f"Python files inflate past {MAX_PY_BYTES >> 10} KiB" in error
    assert submissions_in_db(app) == 0


def test_the_most_python_an_upload_may_hold_is_refused_within_the_cpu_bound(
    app, client, engine_slot
):
    # The worst a request may compile: a .py at the cap (or a zip's Python files together),
    # its syntax error on its last line.
    line = b"x = [a for a in range(10) if a % 2] + [1, 2, 3]\n"
    source = line * ((MAX_PY_BYTES - 16) // len(line)) + b"def (:\n"
    assert len(source) <= MAX_PY_BYTES
    post_engine(client, engine_slot, b"X = 1\n", "warm.zip")
    for data, name in ((source, "engine.py"), (zip_of(source), "engine.zip")):
        before = thread_cpu()
        response = post_engine(client, engine_slot, data, name)
        spent = thread_cpu() - before
        print(f"request CPU on {name} of {len(source)} B of Python: {spent:.3f} s")  # with -s
        assert response.status_code == 400, response.get_json()
        assert "not valid Python" in response.get_json()["error"]
        assert spent < REQUEST_CPU_BOUND, f"{name} cost {spent:.2f} s of the request's CPU"


def test_the_python_cap_holds_at_the_sandbox_extraction_too(tmp_path):
    from grader.harness.sandbox import prepare_submission
    from grader.harness.submission import SubmissionError

    stored = tmp_path / "stored.zip"
    stored.write_bytes(hostile_zip())
    with pytest.raises(SubmissionError, match="Python files inflate past"):
        prepare_submission(stored, tmp_path / "submission")


def test_refused_uploads_count_against_the_upload_rate(app, client, engine_slot):
    app.config["GRADER_UPLOAD_RATE"] = "3/600"
    for _ in range(3):
        response = post_engine(client, engine_slot, b"def (:\n", "engine.py")
        assert response.status_code == 400
        assert "not valid Python" in response.get_json()["error"]
    response = post_engine(client, engine_slot, ENGINE, "engine.py")  # a good one, past the rate
    assert response.status_code == 429, response.get_json()
    assert 1 <= int(response.headers["Retry-After"]) <= 600
    assert "at most 3 uploads in 10 minutes, refused ones included" in response.get_json()["error"]
    assert submissions_in_db(app) == 0
