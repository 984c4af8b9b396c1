"""Shared helpers of the harness tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.harness.sandbox import SandboxConfig, SandboxUnavailable

ENGINES = Path(__file__).parent / "engines"  # the sample engines
TINY = Path(__file__).parent / "data" / "tiny.json"  # the tiny suite


def sandbox_problem() -> str | None:
    """Why the bubblewrap sandbox cannot run here, or None when it can."""
    try:
        SandboxConfig().check()
    except SandboxUnavailable as error:
        return str(error)
    return None


# Tests that need the real sandbox fail (never skip) without it: `make test` installs bubblewrap.
needs_bwrap = pytest.mark.usefixtures("sandbox")


def leftover_processes(config: SandboxConfig, slot: int) -> list[int]:
    """Processes still running as the slot's user."""
    uids = {config.uid_base + slot}
    pids = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid in uids:
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids
