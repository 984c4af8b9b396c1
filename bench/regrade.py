"""`python -m bench.regrade`: a term's engine uploads regraded, against their first grading.

A fresh SQLite database and queue, a course with an engine slot graded by a copy of the
`quick` suite. First grading: K uploads of the correct sample engine (4 by default) are graded
by `grader worker --workers 2`, in the sandbox, from the first upload to the last result. The
other N - K uploads (300 in all by default) go through the same intake, and each is given the
first K's stored result as the worker stores one (`leases.write_result`), so the course holds N
graded uploads without N sandbox runs. Then a suite fix is planted (the perft group's points
changed in the slot's suite file) and a regrade of the course is asked for as staff ask
(`term_regrade.start`); the same worker computes its preview, and the time from the request to
the preview is measured.

Printed: both times, each per upload, and the regrade's time as a ratio to the first
grading's, the peer measured in the same run. N times the first grading's per-upload time is
what grading the N uploads again in the sandbox would take on the same two slots; the regrade
does not, because a suite fix only re-scores the stored per-test results.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from bench.autograder import TEACHER, Service


def _suite_copy(folder: Path) -> Path:
    """The shipped suites' folder copied, so the planted fix changes only this run's."""
    from grader import data

    copy = folder / "suite"
    shutil.copytree(data.suite_dir(), copy)
    return copy / "quick.json"


def _plant_fix(suite: Path) -> None:
    definition = json.loads(suite.read_text())
    groups = [g for g in definition["groups"] if g["kind"] == "perft"]
    if not groups:
        raise SystemExit(f"{suite} has no perft group to fix")
    for group in groups:
        group["points"] = max(1, int(group["points"]) - 1)
    suite.write_text(json.dumps(definition))


def _copy_results(service: Service, graded: list[int], others: list[int]) -> None:
    import sqlalchemy as sa

    from grader.extensions import db
    from grader.models import EngineResult, Submission
    from grader.services.engines import leases

    with service.app.app_context():
        source = db.session.get_one(Submission, graded[0])
        result = db.session.scalar(
            sa.select(EngineResult).where(EngineResult.submission_id == source.id)
        )
        assert result is not None and source.score is not None
        stored = (source.score, source.max_score, result.gradescope, result.rich)
        version = source.suite_version
        db.session.remove()
        for submission_id in others:
            if leases.claim_submission(submission_id, "bench") is None:
                raise RuntimeError(f"upload {submission_id} was claimed by another worker")
            score, most, gradescope, rich = stored
            assert leases.write_result(
                submission_id,
                "bench",
                score=score,
                max_score=most or 0.0,
                gradescope=gradescope,
                rich=rich,
                suite_version=version,
            )


def _regrade(service: Service, timeout: float) -> tuple[float, dict[str, int]]:
    from grader.extensions import db
    from grader.models import Assignment, TermRegrade
    from grader.services import accounts
    from grader.services.teaching import term_regrade

    with service.app.app_context():
        teacher = accounts.user_by_email(TEACHER)
        assert teacher is not None
        course_id = db.session.get_one(Assignment, service.assignment_id).course_id
        start = time.monotonic()
        regrade_id = term_regrade.start(teacher, course_id, reason="bench: perft's points").id
        db.session.remove()
    deadline = start + timeout
    while True:
        with service.app.app_context():
            regrade = db.session.get_one(TermRegrade, regrade_id)
            status, result = regrade.status, regrade.result
            db.session.remove()
        if status in ("done", "failed"):
            break
        if time.monotonic() > deadline:
            raise TimeoutError(f"the regrade was not computed in {timeout:.0f} s")
        time.sleep(0.05)
    took = time.monotonic() - start
    if status != "done" or result is None:
        raise RuntimeError(f"the regrade ended {status}")
    rows = result.get("students", [])
    return took, {"examined": int(result.get("examined", 0)), "changed": len(rows)}


def run(uploads: int, graded: int, timeout: float) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix="bench-regrade-"))
    try:
        suite = _suite_copy(folder)
        service = Service(folder, str(suite), students=uploads)
        try:
            ids = [service.upload(n) for n in range(graded)]
            start = time.monotonic()
            service.start_workers(2)
            finished = service.wait(ids, timeout)
            first = max(finished.values()) - start
            service.stop_workers()
            others = [service.upload(n) for n in range(graded, uploads)]
            _copy_results(service, ids, others)
            _plant_fix(suite)
            service.start_workers(2)
            regrade, counts = _regrade(service, timeout)
        finally:
            service.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "first_per_upload": first / graded,
        "regrade": regrade,
        "regrade_per_upload": regrade / uploads,
        "examined": counts["examined"],
        "changed": counts["changed"],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.regrade")
    parser.add_argument("--uploads", type=int, default=300, help="uploads in the course")
    parser.add_argument("--graded", type=int, default=4, help="of them graded in the sandbox")
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args(argv)
    if not 1 <= args.graded <= args.uploads:
        parser.error("--graded must be between 1 and --uploads")
    got = run(args.uploads, args.graded, args.timeout)
    first_all = got["first_per_upload"] * args.uploads
    print(
        f"first grading: {got['first_per_upload']:.2f} s an upload on 2 slots "
        f"(measured on {args.graded}; {args.uploads} would take about {first_all:.0f} s)"
    )
    print(
        f"regrade of {args.uploads} uploads after a suite fix: {got['regrade']:.2f} s "
        f"({got['regrade_per_upload'] * 1000:.1f} ms an upload; {got['examined']} scores "
        f"examined, {got['changed']} changed)"
    )
    print(
        f"ratio, regrade to first grading, per upload: {got['regrade_per_upload'] / got['first_per_upload']:.4f}x"
    )


if __name__ == "__main__":
    main()
