"""The test model: one test of a suite (`TestCase`), what it gave (`TestResult`), and the two
ways a test kind makes a result (`result_of`, and `failure` for a call that ended in a verdict).

Suites (suite.py) make test cases, test kinds (testkinds/) run them, the runner and the referee
read their results; this module imports none of them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from grader.harness.sandbox import CallOutcome
from grader.harness.verdicts import Verdict


@dataclass(frozen=True)
class TestCase:
    """One test of a suite: a kind (a key of TEST_KINDS), its parameters, points and limits."""

    __test__ = False  # not a pytest class, whatever module imports it

    name: str
    kind: str
    points: float
    params: dict[str, Any]
    cpu: float
    wall: float
    visibility: str = "visible"
    group: int = 0  # the suite file's group it comes from: one engine process serves a group


@dataclass
class TestResult:
    """What one test gave: verdict, score, what to tell the student, and measurements."""

    __test__ = False

    name: str
    kind: str
    verdict: Verdict
    score: float
    max_score: float
    output: str
    cpu: float = 0.0
    wall: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    visibility: str = "visible"
    attempts: int = 1

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON data, whole (`from_dict` reads it back)."""
        return {**asdict(self), "verdict": self.verdict.value}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TestResult:
        return cls(**{**data, "verdict": Verdict(data["verdict"])})


def result_of(
    test: TestCase,
    verdict: Verdict,
    output: str,
    score: float = 0.0,
    cpu: float = 0.0,
    wall: float = 0.0,
    **extra: Any,
) -> TestResult:
    return TestResult(
        test.name,
        test.kind,
        verdict,
        round(score, 4),
        test.points,
        output,
        cpu,
        wall,
        extra,
        test.visibility,
    )


def failure(test: TestCase, outcome: CallOutcome, what: str) -> TestResult:
    """The result of a call that ended in a verdict instead of an answer."""
    assert outcome.verdict is not None
    lines = [
        f"{what}: {outcome.verdict.value} ({outcome.detail})"
        if outcome.detail
        else f"{what}: {outcome.verdict.value}"
    ]
    if outcome.traceback:
        lines += ["", "The traceback's last lines:", outcome.traceback]
    return result_of(test, outcome.verdict, "\n".join(lines), cpu=outcome.cpu, wall=outcome.wall)
