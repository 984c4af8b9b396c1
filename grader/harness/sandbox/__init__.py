"""Running an untrusted engine: bubblewrap, resource limits, a user per slot, a watchdog."""

from grader.harness.sandbox.process import (
    CallOutcome,
    EngineProcess,
    Limits,
    SandboxConfig,
    SandboxError,
    SandboxUnavailable,
    Slot,
    SubmissionError,
    bwrap_command,
    claim_slot,
    prepare_submission,
    probe,
)

__all__ = [
    "CallOutcome",
    "EngineProcess",
    "Limits",
    "SandboxConfig",
    "SandboxError",
    "SandboxUnavailable",
    "Slot",
    "SubmissionError",
    "bwrap_command",
    "claim_slot",
    "prepare_submission",
    "probe",
]
