"""Verdicts: what happened to one test of a student's engine, and which one wins.

When several verdicts apply to one test (a process killed by the watchdog that had also
flooded its log, a crash that garbled the protocol), the one that comes first in
``PRIORITY`` is reported. The order puts the cause before its symptoms:

    IE > OLE > MLE > TLE > TLE_WALL > RE > PROTOCOL > ILLEGAL_MOVE > WA > passed

- ``IE``: the harness failed (the sandbox did not start, the reference failed); such a test
  is retried and never charged to the student; if it persists the run is incomplete.
- ``OLE``: the engine printed more than the log cap, or wrote a file past the size limit.
- ``MLE``: the engine ran out of its address space (MemoryError, or killed by the allocator).
- ``TLE``: the engine used more CPU time than the test allows.
- ``TLE_WALL``: the engine took longer than the wall-clock limit (sleeping, waiting, or
  starving on processes), and the watchdog killed its process group. A test that timed out so
  having used under half its CPU limit is run once more (`runner.IDLE_SHARE`): a machine that
  stalled the process once costs nothing, an engine that waits by itself is charged the second
  time.
- ``RE``: an exception in the engine's code (the traceback's last lines are shown), a crash
  by a signal, or an exit during a call.
- ``PROTOCOL``: a missing function, a malformed or oversized answer, a result of the wrong type.
- ``ILLEGAL_MOVE``: a move in a game that is not legal in the position.
- ``WA``: a well-formed answer that is wrong.

The same list, for students, is in exercises/checkers/ASSIGNMENT.md ("Submitting your engine").
"""

from __future__ import annotations

import enum
from collections.abc import Iterable


class Verdict(enum.StrEnum):
    PASSED = "passed"
    WA = "WA"
    ILLEGAL_MOVE = "ILLEGAL_MOVE"
    TLE = "TLE"
    TLE_WALL = "TLE_WALL"
    MLE = "MLE"
    OLE = "OLE"
    RE = "RE"
    PROTOCOL = "PROTOCOL"
    IE = "IE"

    @property
    def rank(self) -> int:
        """0 for the verdict that wins over every other."""
        return PRIORITY.index(self)


PRIORITY: tuple[Verdict, ...] = (
    Verdict.IE,
    Verdict.OLE,
    Verdict.MLE,
    Verdict.TLE,
    Verdict.TLE_WALL,
    Verdict.RE,
    Verdict.PROTOCOL,
    Verdict.ILLEGAL_MOVE,
    Verdict.WA,
    Verdict.PASSED,
)

DESCRIPTIONS: dict[Verdict, str] = {
    Verdict.PASSED: "passed",
    Verdict.WA: "wrong answer",
    Verdict.ILLEGAL_MOVE: "illegal move",
    Verdict.TLE: "CPU time limit exceeded",
    Verdict.TLE_WALL: "wall-clock time limit exceeded",
    Verdict.MLE: "memory limit exceeded",
    Verdict.OLE: "output limit exceeded",
    Verdict.RE: "runtime error",
    Verdict.PROTOCOL: "protocol error",
    Verdict.IE: "internal error of the grader (retried; never charged to you)",
}


def worst(verdicts: Iterable[Verdict]) -> Verdict:
    """The verdict that wins by PRIORITY; ``passed`` for none."""
    return min(verdicts, key=lambda v: v.rank, default=Verdict.PASSED)
