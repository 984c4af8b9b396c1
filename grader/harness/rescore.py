"""A stored run's tests scored again against a suite as it now is (a term regrade, issue 54).

A suite fix that changes a test's points, or drops a test, is applied to the stored results
without running the engine again: each stored test keeps its verdict and the share of its
points it earned, scored out of the suite's points for it now. A test the suite gained, which
the stored run never ran, cannot be scored this way: the result says so (`missing`), and the
term regrade runs those tests in the sandbox, then scores the stored tests with their results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from grader.harness.suite import Suite


@dataclass(frozen=True)
class Rescored:
    score: float
    max_score: float
    tests: list[dict[str, Any]]  # the stored tests, with their scores as they now are
    changes: list[str] = field(default_factory=list)  # each changed test in words
    missing: list[str] = field(default_factory=list)  # tests the stored run never ran


def rescore(stored: list[dict[str, Any]], suite: Suite) -> Rescored:
    """`stored`, a run's tests as results.json's rich form keeps them (name, verdict, score,
    max_score, ...), scored by `suite`'s points; the same tests with the same points give the
    same score."""
    points = {test.name: float(test.points) for test in suite.tests}
    tests: list[dict[str, Any]] = []
    changes: list[str] = []
    for test in stored:
        name = test["name"]
        old, old_max = float(test.get("score", 0.0)), float(test.get("max_score", 0.0))
        if name not in points:
            changes.append(f"{name}: dropped from the suite ({_pts(old)} of {_pts(old_max)})")
            continue
        new_max = points[name]
        if old_max > 0:
            new = round(old / old_max * new_max, 4)
        else:
            new = new_max if test.get("verdict") == "passed" else 0.0
        if new != old or new_max != old_max:
            changes.append(
                f"{name}: {_pts(old)} of {_pts(old_max)} is now {_pts(new)} of {_pts(new_max)}"
            )
        tests.append({**test, "score": new, "max_score": new_max})
    ran = {test["name"] for test in stored}
    missing = [test.name for test in suite.tests if test.name not in ran]
    return Rescored(
        round(sum(t["score"] for t in tests), 4),
        round(sum(t["max_score"] for t in tests), 4),
        tests,
        changes,
        missing,
    )


def _pts(value: float) -> str:
    return f"{value:g}"


__all__ = ["Rescored", "rescore"]
