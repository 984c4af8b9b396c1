"""The engine harness: sandboxed runs of student checkers engines, the test suite, matches
against the ladder, Elo, and Gradescope-compatible results.

May import grader.checkers, grader.config, grader.data and the standard library only.
adapter.py, the one module that runs inside the sandbox, imports nothing of grader at all.
"""

from grader.harness.cases import TestCase, TestResult
from grader.harness.elo import LADDER_RATINGS, EloEstimate, estimate
from grader.harness.rescore import Rescored, rescore
from grader.harness.results import gradescope, rich, write
from grader.harness.runner import Kept, Report, grade_engine, grade_engines
from grader.harness.sandbox import (
    Limits,
    SandboxConfig,
    SandboxError,
    SandboxUnavailable,
    SubmissionError,
)
from grader.harness.suite import SUITES, Suite, load_suite
from grader.harness.testkinds import TEST_KINDS
from grader.harness.verdicts import PRIORITY, Verdict

__all__ = [
    "LADDER_RATINGS",
    "PRIORITY",
    "SUITES",
    "TEST_KINDS",
    "EloEstimate",
    "Kept",
    "Limits",
    "Report",
    "Rescored",
    "SandboxConfig",
    "SandboxError",
    "SandboxUnavailable",
    "SubmissionError",
    "Suite",
    "TestCase",
    "TestResult",
    "Verdict",
    "estimate",
    "grade_engine",
    "grade_engines",
    "gradescope",
    "load_suite",
    "rescore",
    "rich",
    "write",
]
