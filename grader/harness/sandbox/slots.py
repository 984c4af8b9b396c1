"""Grading slots: as many as the machine has cores, each held by a file lock (so separate
worker processes share them), each with its own user and its own temporary folder."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from grader.harness.sandbox.config import SandboxConfig, SandboxError


@dataclass(frozen=True)
class GradingSlot:
    """One grading slot: its number, its own user and its own temporary folder. (Not an
    assignment's `Slot` of grader.models, which is a place for exercises or an engine.)"""

    number: int
    uid: int | None
    workdir: Path


def _lock_dir() -> Path:
    path = Path(tempfile.gettempdir()) / f"grader-harness-slots-{os.geteuid()}"
    path.mkdir(mode=0o700, exist_ok=True)
    return path


@contextlib.contextmanager
def claim_slot(
    config: SandboxConfig, slots: int | None = None, wait: float = 3600.0
) -> Iterator[GradingSlot]:
    """Hold a free slot (a file lock, so separate processes share the slots) and its folder."""
    count = slots or os.cpu_count() or 1
    deadline = time.monotonic() + wait
    while True:
        for number in range(count):
            handle = open(_lock_dir() / f"slot-{number}.lock", "w")  # noqa: SIM115
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                continue
            workdir = Path(tempfile.mkdtemp(prefix=f"grader-slot{number}-"))  # 0700
            uid = config.uid(number)
            if uid is not None:  # the slot's user (bwrap) must reach what it binds; nobody else
                os.chown(workdir, -1, uid)
                workdir.chmod(0o750)
            try:
                yield GradingSlot(number, uid, workdir)
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
                handle.close()
            return
        if time.monotonic() > deadline:
            raise SandboxError(f"no free grading slot among {count} after {wait:.0f} s")
        time.sleep(0.2)
