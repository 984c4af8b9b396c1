"""What a sandbox is made with: where bwrap and the sandbox's Python are, which users the
grading slots run as (settings from grader/config.py), the resource limits, and the errors
that are the harness's own (IE), never the engine's."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from grader import config as settings


class SandboxError(RuntimeError):
    """The sandbox could not be set up or started: the harness's fault (IE), never the engine's."""


class SandboxUnavailable(SandboxError):
    """bubblewrap is missing or does not work here, and no one said --no-sandbox."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one engine process (the adapter applies them before the import)."""

    memory: int = 1 << 30  # RLIMIT_AS, bytes: the process's address space
    processes: int = 48  # RLIMIT_NPROC beyond the sandbox's own, for search_parallel's workers
    file_size: int = 16 << 20  # RLIMIT_FSIZE, bytes: one file in the private /tmp
    open_files: int = 128  # RLIMIT_NOFILE
    cpu_total: int = 900  # RLIMIT_CPU hard, seconds: a backstop for the process's whole life
    tmp_size: int = 16 << 20  # the private /tmp and /dev/shm, bytes each
    log_cap: int = 1 << 20  # the engine's output (stdout + stderr), bytes, before OLE
    log_keep: int = 16 << 10  # how much of the log's head is kept for the student
    line_cap: int = 4 << 20  # one protocol line (an answer), bytes, before PROTOCOL

    def rlimits(self, extra_processes: int = 0) -> dict[str, list[int]]:
        return {
            "RLIMIT_CORE": [0, 0],
            "RLIMIT_CPU": [self.cpu_total, self.cpu_total + 1],
            "RLIMIT_AS": [self.memory, self.memory],
            "RLIMIT_NPROC": [self.processes + extra_processes] * 2,
            "RLIMIT_FSIZE": [self.file_size, self.file_size],
            "RLIMIT_NOFILE": [self.open_files, self.open_files],
        }


@dataclass(frozen=True)
class SandboxConfig:
    """Where bwrap and the sandbox's Python are, which users the slots run as, the limits."""

    sandbox: bool = True
    bwrap: str = field(default_factory=settings.bwrap_path)
    interpreter: str = field(default_factory=settings.sandbox_python)
    uid_base: int = field(default_factory=settings.sandbox_uid_base)
    limits: Limits = field(default_factory=Limits)

    def check(self) -> None:
        """Raise SandboxUnavailable unless the sandbox can run (or is switched off)."""
        if not self.sandbox:
            return
        if not (os.path.isfile(self.bwrap) and os.access(self.bwrap, os.X_OK)):
            raise SandboxUnavailable(
                f"bubblewrap not found at {self.bwrap}: install it (Debian: apt-get install "
                "bubblewrap) or run with --no-sandbox on your own machine"
            )
        if not os.path.isfile(self.interpreter):
            raise SandboxUnavailable(f"the sandbox's Python {self.interpreter} does not exist")

    def uid(self, slot: int) -> int | None:
        """The real user a slot's engine runs as (with or without the sandbox); None when the
        harness is not root and so cannot switch."""
        if os.geteuid() != 0:
            return None
        return self.uid_base + slot
