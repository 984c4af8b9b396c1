"""Grading slots: as many as the machine has cores, each held by a file lock (so separate
worker processes share them), each with its own user and its own temporary folder; and the
machine's window (`machine_window`), in which a timing test runs with no other slot working."""

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


@contextlib.contextmanager
def machine_window(alone: bool = False) -> Iterator[None]:
    """Run work in a grading slot: beside the other slots' work, or `alone`, with none. Work
    alone (a timing test, `TestKind.alone`) waits for the work running in the machine's other
    slots to end, and no slot starts new work until it has: a reader-writer lock in file
    locks, so every worker process on the machine shares it. Its writer goes first: the
    turnstile, held while work alone waits and runs, keeps new work from starting, so a
    timing waits for one test of each other slot at most, never for a stream of them.
    Nothing holds the window while it waits for anything else, and a process's locks end with
    it, so a worker that dies frees the machine."""
    folder = _lock_dir()
    with (
        open(folder / "window-turnstile.lock", "w") as turnstile,
        open(folder / "window.lock", "w") as window,
    ):
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        try:
            fcntl.flock(window, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            if not alone:
                fcntl.flock(turnstile, fcntl.LOCK_UN)
        yield  # closing the files frees both locks
