"""Helpers of the queue tests: uploads made of the sample engines, waiting for a state."""

from __future__ import annotations

import io
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.app_support import bearer
from tests.harness._helpers import ENGINES

GRADER = Path(sys.executable).with_name("grader")  # the installed command
SMALL = Path(__file__).parent / "data" / "small.json"
# A graded upload's result as a worker stores it: one timing test, whose page draws its chart.
TIMING_RICH = {
    "tests": [
        {
            "name": "timing: B:W21:B1",
            "kind": "timing",
            "verdict": "passed",
            "score": 3.0,
            "max_score": 5.0,
            "extra": {"rows": [{"depth": 3, "cpu": 0.012, "reference_cpu": 0.01}]},
        }
    ]
}


def post_multipart(
    client: Any, url: str, form: dict[str, Any], headers: dict[str, str] | None = None
) -> Any:
    """A multipart POST encoded in memory (werkzeug's test client spools a large body to a
    temporary file it never closes, a ResourceWarning under filterwarnings=error)."""
    from werkzeug.datastructures import FileStorage
    from werkzeug.test import stream_encode_multipart

    fields = {k: FileStorage(v[0], v[1]) if isinstance(v, tuple) else v for k, v in form.items()}
    stream, _, boundary = stream_encode_multipart(fields, use_tempfile=False)
    return client.post(
        url,
        data=stream.getvalue(),
        headers=headers or {},
        content_type=f"multipart/form-data; boundary={boundary}",
    )


def engine_bytes(name: str = "correct") -> bytes:
    return (ENGINES / f"{name}.py").read_bytes()


# Every entry's date: the same files make the same bytes whenever they are zipped (a test's
# parameters are built at collection, and each pytest-xdist worker must collect the same ones).
ZIP_DATE = (2026, 1, 1, 0, 0, 0)


def zip_bytes(files: dict[str, bytes | str], *, links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(zipfile.ZipInfo(name, ZIP_DATE), data, zipfile.ZIP_DEFLATED)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name, ZIP_DATE)
            info.external_attr = 0o120777 << 16
            archive.writestr(info, target)
    return buffer.getvalue()


SLOW_WRAPPER = '''"""The correct engine, slowed down by sleeping (wall clock, not CPU) in every call."""
import time

import correct


def legal_moves(fen):
    time.sleep(0.6)
    return correct.legal_moves(fen)


def search(fen, depth):
    time.sleep(0.6)
    return correct.search(fen, depth)


def search_parallel(fen, depth, workers):
    return correct.search_parallel(fen, depth, workers)


def choose_move(fen, time_left):
    return correct.choose_move(fen, time_left)
'''


def slow_engine_zip() -> bytes:
    return zip_bytes({"engine.py": SLOW_WRAPPER, "correct.py": engine_bytes("correct")})


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, pool: Any = None) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    detail = f"\n--- worker logs ---\n{pool.log_text()[-6000:]}" if pool else ""
    raise AssertionError(f"timed out after {timeout} s waiting for {what}{detail}")


def add_student(factory: Any, room: Any, email: str) -> dict[str, str]:
    """A new student of the room's course; returns the headers of their API token."""
    factory.user(email)
    factory.member(room.course_id, email)
    return bearer(factory.token(email))
