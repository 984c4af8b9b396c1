"""Shared helpers of the harness tests."""

from __future__ import annotations

import os

import pytest

from grader.harness.sandbox import SandboxConfig, SandboxUnavailable


def bwrap_works() -> bool:
    try:
        SandboxConfig().check()
    except SandboxUnavailable:
        return False
    return True


needs_bwrap = pytest.mark.skipif(not bwrap_works(), reason="bubblewrap is not installed")


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
