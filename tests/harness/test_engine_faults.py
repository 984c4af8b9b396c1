"""Engine faults are the engine's (issue 10): whatever comes from the engine's side of the
protocol channel (malformed, deeply nested, non-UTF-8 lines, a fake adapter error, a line before
the hello, a closed channel) is PROTOCOL or RE, charged, never IE; through the real sandbox."""

from __future__ import annotations

import pytest

from grader.harness.runner import grade_engine
from grader.harness.sandbox import SandboxConfig
from grader.harness.verdicts import Verdict
from tests.harness._helpers import ENGINES, leftover_processes, needs_bwrap

P, PROTOCOL, RE = Verdict.PASSED, Verdict.PROTOCOL, Verdict.RE

# The tiny suite's tests: move generation, search depth 3, a game as Black, a game as White.
EXPECTED = {
    "protocol_nested": [P, PROTOCOL, PROTOCOL, PROTOCOL],
    "protocol_binary": [P, PROTOCOL, PROTOCOL, PROTOCOL],
    "protocol_fake_error": [P, PROTOCOL, PROTOCOL, PROTOCOL],
    "protocol_early": [PROTOCOL] * 4,
    "closes_pipe": [P, RE, RE, RE],
}


@needs_bwrap
@pytest.mark.parametrize("name", list(EXPECTED))
def test_what_the_engine_does_to_the_channel_is_charged_to_it(name, submission, tiny):
    config = SandboxConfig()
    channel = (ENGINES / "_channel.py").read_text()
    report = grade_engine(submission(name, {"_channel.py": channel}), tiny, config)
    verdicts = [t.verdict for t in report.tests]
    assert verdicts == EXPECTED[name], [(t.verdict.value, t.output[:300]) for t in report.tests]
    assert Verdict.IE not in verdicts and report.complete  # graded once, charged, no retries
    assert all(t.attempts == 1 for t in report.tests)
    assert leftover_processes(config, report.slot) == []


@needs_bwrap
def test_a_jobs_worker_time_is_capped(submission, tiny):
    """Past its budget a job runs no more tests: they are charged TLE_WALL, the report is
    complete (no internal error, so no retry of the job)."""
    engine = submission("correct")
    report = grade_engine(engine, tiny, SandboxConfig(), budget=0.0)
    assert [t.verdict for t in report.tests] == [Verdict.TLE_WALL] * 4
    assert all("worker time" in t.output for t in report.tests)
    assert report.complete and report.score == 0
    report = grade_engine(engine, tiny, SandboxConfig(), budget=600.0)
    assert [t.verdict for t in report.tests] == [P] * 4
