"""Whether the machine gave a timed search a whole core: the timing tests' guard against a
busy machine (issue 51).

A timing test compares the engine's CPU seconds with the reference's, both measured in the same
grading slot, run for run (testkinds/timing.py). CPU time, unlike wall time, is not stretched by
waiting for a core, but a machine with more runnable processes than cores still moves it: the
caches are shared and every switch evicts them, so a ratio measured there is not the ratio an
idle machine gives. The reference never sleeps and never waits for input, so its share of a core
while it searches (CPU seconds over wall seconds) says how much of a core the slot got at that
moment. Below `BUSY_SHARE` the machine was busy: the timing is not trusted (the runner defers
it, and a worker times it again later).

The system's runnable processes (`/proc/stat`'s procs_running) and load average are recorded
beside it for the result's words; the decision rests on the share, which a process measures of
itself and which needs no reading of other processes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

# Below this share of a core during the reference's searches, the machine was busy. An idle
# 2-core machine with two grading slots gives each slot a core (0.95 and more); two busy
# processes beside one slot give it about two thirds.
BUSY_SHARE = 0.85

T = TypeVar("T")


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def runnable() -> int | None:
    """The processes running or waiting for a core now (this one among them), from
    `/proc/stat`; None where there is no such file."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            for line in stat:
                if line.startswith("procs_running "):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def load_average() -> float | None:
    """The one-minute load average, or None where the system does not give one."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def busy(share: float, threshold: float = BUSY_SHARE) -> bool:
    """Whether a share of a core this low means the machine was busy."""
    return share < threshold


@dataclass
class Share:
    """The CPU and wall seconds of the work timed in this process, and the most processes
    seen runnable around it."""

    cpu: float = 0.0
    wall: float = 0.0
    runnable: list[int] = field(default_factory=list)

    def time(self, work: Callable[[], T]) -> tuple[T, float]:
        """`work()`'s value and its CPU seconds, added to the share."""
        seen = runnable()
        wall, cpu = time.perf_counter(), time.process_time()
        value = work()
        spent = time.process_time() - cpu
        self.cpu += spent
        self.wall += time.perf_counter() - wall
        for count in (seen, runnable()):
            if count is not None:
                self.runnable.append(count)
        return value, spent

    @property
    def share(self) -> float:
        """CPU over wall seconds: 1 for a whole core (1 when nothing was timed)."""
        return self.cpu / self.wall if self.wall > 0 else 1.0

    def words(self) -> str:
        """The machine's state in words, for a result's output."""
        most = max(self.runnable, default=None)
        seen = f", {most} processes runnable at most on {cores()} cores" if most is not None else ""
        return f"the reference got {self.share:.2f} of a core{seen}"
