"""The watchdog of a call (grader/harness/sandbox/process.py) looks at the engine's CPU only
where a limit may be reached: an idle or short call costs the grader a look or two, not one
every POLL seconds, and a call past its CPU limit is still stopped there, through the real
sandbox."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from grader.harness.sandbox import EngineProcess, SandboxConfig, claim_slot, prepare_submission
from grader.harness.sandbox.process import POLL
from grader.harness.verdicts import Verdict
from tests.harness._helpers import needs_bwrap

# legal_moves("sleep") sleeps a second, legal_moves("spin") computes until it is stopped.
ENGINE = """\
import time
from correct import *  # noqa: F403


def legal_moves(fen):
    if fen == "sleep":
        time.sleep(1.0)
        return []
    while fen == "spin":
        pass
    return []
"""


@contextmanager
def started(submission) -> Iterator[tuple[EngineProcess, list[float | None]]]:
    """The engine's started process, and the list of the watchdog's looks at its CPU."""
    config = SandboxConfig()
    with claim_slot(config) as slot:
        folder = prepare_submission(
            submission("correct", {"engine.py": ENGINE}), slot.workdir / "submission"
        )
        process = EngineProcess(config, slot, folder)
        looks: list[float | None] = []
        real = process._cpu

        def look() -> float | None:
            looks.append(seen := real())
            return seen

        process._cpu = look  # type: ignore[method-assign]
        try:
            assert process.start(5.0, 10.0).answered
            yield process, looks
        finally:
            process.close()


@needs_bwrap
def test_an_idle_call_costs_a_few_looks_not_one_every_poll(submission):
    with started(submission) as (process, looks):
        del looks[:]
        outcome = process.call("legal_moves", ["sleep"], 5.0, 10.0)
        assert outcome.answered and outcome.wall >= 1.0
        # a look before the call, one when the answer came, and one each time the CPU limit
        # could have been reached (never, asleep) or the wall-clock limit neared (9 s away)
        assert len(looks) <= 4 < outcome.wall / POLL, looks


@needs_bwrap
def test_a_call_past_its_cpu_limit_is_stopped_there(submission):
    with started(submission) as (process, _):
        outcome = process.call("legal_moves", ["spin"], 0.6, 30.0)
        assert outcome.verdict is Verdict.TLE, outcome
        # stopped at its limit, give or take a look's latency at every core's speed
        assert 0.6 <= outcome.cpu < 0.6 + 0.25, outcome
        assert not process.alive
