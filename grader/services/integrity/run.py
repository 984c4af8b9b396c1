"""A check run by whoever claimed it (a queue worker, or the command line in its own process):
claimed under the lease, computed with its progress written (which renews the lease), its
result written once."""

from __future__ import annotations

import time
from typing import Any

from grader.models import ANSWERS_CHECK, ENGINES_CHECK, IntegrityCheck
from grader.services.integrity import answers, checks, engines

PROGRESS_EVERY = 0.5  # seconds between two progress writes


class LeaseLost(RuntimeError):
    """Another worker has the check now (this one was presumed dead): stop."""


COMPUTE = {ENGINES_CHECK: engines.compute, ANSWERS_CHECK: answers.compute}


def run(check_id: int, worker: str) -> str:
    """Claim the check, compute it, write its result; the outcome in words."""
    check: IntegrityCheck | None = checks.claim(check_id, worker)
    if check is None:
        return "not claimed"
    last = [time.monotonic()]

    def progress(state: dict[str, Any]) -> None:
        now = time.monotonic()
        if now - last[0] < PROGRESS_EVERY and state.get("done") != state.get("total"):
            return
        last[0] = now
        if not checks.heartbeat(check_id, worker, state):
            raise LeaseLost(f"integrity check {check_id}: the lease was lost")

    try:
        result = COMPUTE[check.kind](check, progress)
    except LeaseLost:
        return "lease lost"
    except Exception as exc:  # the grader's fault: back to the queue, or failed
        status = checks.fail(check_id, worker, f"{type(exc).__name__}: {exc}")
        if status == "queued":
            checks.send(check_id)
        raise
    return "done" if checks.finish(check_id, worker, result) else "lease lost"
