"""Running an untrusted engine: bubblewrap, resource limits, a user per slot, a watchdog.

One idea per module:

- `archive`: a submission (file, zip or folder) laid out for the sandbox;
- `slots`: grading slots, held by file locks, each with its own user and folder, and the
  machine's window, in which a timing test runs with no other slot working;
- `bwrap`: the bubblewrap command line (what the sandbox is) and the probe;
- `process`: the engine's process, its calls, and the watchdog and readers of each call;
- `verdict`: what was seen of a call, turned into a verdict (pure);
- `config`: the settings and limits a sandbox is made with, and the harness's own errors.
"""

from grader.harness.sandbox.archive import prepare_submission
from grader.harness.sandbox.bwrap import bwrap_command, probe
from grader.harness.sandbox.config import Limits, SandboxConfig, SandboxError, SandboxUnavailable
from grader.harness.sandbox.process import CallOutcome, EngineProcess
from grader.harness.sandbox.slots import GradingSlot, claim_slot, machine_window
from grader.harness.sandbox.verdict import Evidence, death_verdict, reported_verdict
from grader.harness.submission import SubmissionError

__all__ = [
    "CallOutcome",
    "EngineProcess",
    "Evidence",
    "GradingSlot",
    "Limits",
    "SandboxConfig",
    "SandboxError",
    "SandboxUnavailable",
    "SubmissionError",
    "bwrap_command",
    "claim_slot",
    "death_verdict",
    "machine_window",
    "prepare_submission",
    "probe",
    "reported_verdict",
]
