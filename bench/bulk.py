"""`python -m bench.bulk`: an upload that arrives behind an exam print, from upload to result.

One `grader worker` with its defaults (`--workers 1`, both classes of work) on a fresh SQLite
database and queue, a course with the `standard` preset (three depth-4 trees) and an engine
slot. An anonymous print of N sheets (300 by default) is asked for; once a worker has claimed
it, a student uploads the correct sample engine, and the time from the upload to its result is
measured. Three runs in the same process, each on its own database:

- the peer: the same upload with no print (the upload's own time);
- bulk work in its own queue (the default, GRADER_BULK_QUEUE=own): the worker's bulk worker
  prints at nice 19 while its interactive worker grades the upload;
- one queue for both (GRADER_BULK_QUEUE=shared, how every job was queued before): the one
  worker finishes the print before it takes the upload.

Each figure is printed as a ratio to the peer's. Once the upload's result is in, the workers are
stopped (a print left half done costs nothing more). Every wait is bounded.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from bench.autograder import TEACHER, TINY, Service


def behind_a_print(suite: str, sheets: int, bulk_queue: str, timeout: float) -> float:
    """Seconds from an upload to its result, asked for once a worker has claimed a print of
    ``sheets`` anonymous sheets (none: no print)."""
    os.environ["GRADER_BULK_QUEUE"] = bulk_queue
    folder = Path(tempfile.mkdtemp(prefix="bench-bulk-"))
    service = Service(folder, suite, students=1)
    try:
        print_id = _ask_print(service, sheets) if sheets else None
        service.start_workers(1)
        if print_id is not None:
            _wait_claimed(service, print_id, timeout)
        start = time.monotonic()
        submission = service.upload(0)
        return service.wait([submission], timeout)[submission] - start
    finally:
        service.close()
        os.environ.pop("GRADER_BULK_QUEUE", None)
        shutil.rmtree(folder, ignore_errors=True)


def _ask_print(service: Service, sheets: int) -> int:
    from grader.services import accounts
    from grader.services.paper import printing

    with service.app.app_context():
        teacher = accounts.user_by_email(TEACHER)
        return printing.request_print(teacher, service.assignment_id, anonymous=sheets).id


def _wait_claimed(service: Service, print_id: int, timeout: float) -> None:
    from grader.extensions import db
    from grader.models import ExamPrint

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with service.app.app_context():
            status = db.session.get_one(ExamPrint, print_id).status
            db.session.remove()
        if status != "queued":
            return
        time.sleep(0.05)
    raise TimeoutError(f"no worker claimed the print after {timeout:.0f} s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bulk")
    parser.add_argument("--sheets", type=int, default=300, help="sheets of the print")
    parser.add_argument("--suite", default="quick", help="the upload's suite")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per wait")
    parser.add_argument("--quick", action="store_true", help="1 sheet, tiny suite (a smoke run)")
    args, _ = parser.parse_known_args(argv)
    sheets, suite = (1, str(TINY)) if args.quick else (args.sheets, args.suite)
    from grader.harness import SandboxConfig

    try:
        SandboxConfig().check()
    except Exception as exc:
        print(f"bench.bulk: skipped ({exc})")
        return
    name = Path(suite).stem
    print(
        f"machine: {os.cpu_count()} cores; one grader worker (--workers 1); an upload of the "
        f"correct engine, suite {name}, behind a print of {sheets} anonymous sheets",
        flush=True,
    )
    alone = behind_a_print(suite, 0, "own", args.timeout)
    print(f"peer: the upload alone, upload to result: {alone:.1f} s", flush=True)
    for bulk_queue, words in (
        ("own", "bulk work in its own queue (nice 19)"),
        ("shared", "one queue for both (before)"),
    ):
        took = behind_a_print(suite, sheets, bulk_queue, args.timeout)
        print(
            f"behind the print, {words}: upload to result {took:.1f} s "
            f"(ratio to the upload alone {took / alone:.2f})",
            flush=True,
        )


if __name__ == "__main__":
    main()
