"""Academic integrity: engines that share code (`engines`, by the MOSS-style fingerprints of
`fingerprints`) and answers that belong to another student's tree (`answers`); each a check the
staff ask for, run as a leased queue job (`checks`: its life under the lease; `CHECK`, the job kind the
runner of services/leases runs). Only the course's instructors see them, and its TAs where
the course allows it; nothing is decided automatically: no score changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grader.models import ANSWERS_CHECK, ENGINES_CHECK, IntegrityCheck
from grader.services.integrity import answers, checks, engines, fingerprints
from grader.services.leases.runner import Progress

COMPUTE = {ENGINES_CHECK: engines.compute, ANSWERS_CHECK: answers.compute}


def compute(check: IntegrityCheck, progress: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """A claimed check's result, by its kind (`progress` is called as it goes)."""
    return COMPUTE[check.kind](check, progress)


class IntegrityJob(checks.CheckJob):
    def run(self, claimed: IntegrityCheck, progress: Progress) -> dict[str, Any]:
        return compute(claimed, progress)


CHECK = IntegrityJob()

__all__ = ["CHECK", "answers", "checks", "compute", "engines", "fingerprints"]
