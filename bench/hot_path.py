"""Where a graded submission's server CPU goes under gunicorn: py-spy samples the workers while
`bench.load` runs (`--profile DIR`), and each sampled stack is put in the first part of the
request it passes through (`SPLIT`, the parts issue 24 names). Only the workers' running time is
sampled (py-spy leaves idle threads out), so the shares split the CPU that `bench.load` measures.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

#: The parts, each by the frames that mark it (root first: the first part a stack passes
#: through counts). A stack in none of them is gunicorn's own: accepting the connection, reading
#: and parsing the request, closing.
SPLIT: list[tuple[str, tuple[str, ...]]] = [
    ("the token's ORM load (and the request's first connection)", ("user_for_token (grader",)),
    ("the exercise's ORM load (with its slot and assignment)", ("get_exercise (grader",)),
    ("grading (the cached tree, the answer read, score, diagnosis)", ("grade (grader/gametree/",)),
    (
        "storing: the read's commit, BEGIN IMMEDIATE, count, insert, COMMIT",
        (
            "writing (grader/services/transactions.py)",
            "submit (grader/services/trees/attempts.py);Connection.execute",
            "submit (grader/services/trees/attempts.py);Result.one",
            "submit (grader/services/trees/attempts.py);CursorResult.inserted_primary_key",
            "submit (grader/services/trees/attempts.py);Session.connection",
            "submit (grader/services/trees/attempts.py);__init__ (<sqlalchemy generated",
            "passback_after_commit (grader",
        ),
    ),
    (
        "the response model built and written as JSON",
        ("FlaskPlugin.validate_response", "submit_attempt (grader/web/api/student.py);BaseModel"),
    ),
    (
        "the request body read strictly and validated",
        ("FlaskPlugin.request_validation", "read_strictly (grader"),
    ),
    ("the rest of the view and the service", ("submit_attempt (grader", "ping (grader")),
    ("Flask and Werkzeug around the view (hooks, extensions, headers)", ("Flask.__call__",)),
    ("gunicorn writing the response (headers, then the body)", ("Response.write (gunicorn",)),
]
GUNICORN = "gunicorn: accepting, reading the request, closing"


def py_spy() -> str | None:
    """py-spy beside this Python (the venv's), else on PATH."""
    beside = Path(sys.executable).with_name("py-spy")
    return str(beside) if beside.exists() else shutil.which("py-spy")


def record(pids: list[int], seconds: float, folder: Path) -> list[subprocess.Popen[bytes]]:
    """One py-spy per worker, sampling its running stacks for `seconds` into `folder`."""
    spy = py_spy()
    if spy is None:
        raise RuntimeError("py-spy is not installed (pip install -e '.[bench]')")
    folder.mkdir(parents=True, exist_ok=True)
    return [
        subprocess.Popen(
            [
                spy,
                "record",
                "--pid",
                str(pid),
                "--duration",
                str(max(1, round(seconds))),
                "--rate",
                "250",
                "--format",
                "raw",
                "--output",
                str(folder / f"worker-{pid}.txt"),
                "--nonblocking",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for pid in pids
    ]


def split(files: list[Path]) -> list[tuple[str, float]]:
    """Each part's share of the sampled stacks (py-spy's raw format: `frame;frame;... count`)."""
    counts: Counter[str] = Counter()
    for path in files:
        for line in path.read_text().splitlines():
            stack, _, n = line.rpartition(" ")
            if not n.isdigit():
                continue
            frames = re.sub(r":\d+\)", ")", stack)  # line numbers would split a frame
            part = next(
                (name for name, marks in SPLIT if any(m in frames for m in marks)), GUNICORN
            )
            counts[part] += int(n)
    total = sum(counts.values())
    return [(name, counts[name] / total if total else 0.0) for name, _ in [*SPLIT, (GUNICORN, ())]]
