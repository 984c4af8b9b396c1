"""Evidence to verdict: what the watchdog, the readers and the adapter saw of one call, turned
into the one verdict the student reads. Pure: no process, no bubblewrap, no clock.

Two kinds of evidence end a call without an answer:

- the adapter's own error report (the engine raised, or its result could not be sent):
  `reported_verdict`;
- the process's death (killed by the watchdog past a limit, by a signal, or its own exit):
  `death_verdict`, where several causes may hold at once and PRIORITY picks the cause before
  its symptoms.

Neither ever gives IE: whatever the engine does is the engine's verdict. IE comes only from the
harness's own faults (`SandboxError`: the sandbox did not start), caught by the runner.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import Any

from grader.harness.verdicts import Verdict, worst

# What an engine that ran out of its address space prints, in C, C++ or Python.
MEMORY_WORDS = ("MemoryError", "Cannot allocate memory", "out of memory", "bad_alloc")
ENOMEM, EFBIG = 12, 27  # errno: out of memory; a file past RLIMIT_FSIZE


@dataclass(frozen=True)
class Evidence:
    """Everything known when the engine's process died during a call."""

    cpu_limit: float  # the call's CPU limit, seconds
    cpu: float = 0.0  # the CPU the call used, as far as /proc saw it
    exit_status: int | None = None  # Popen's returncode (negative: killed by that signal)
    sandboxed: bool = True  # bwrap reports the engine's death by signal N as exit 128 + N
    cpu_exceeded: bool = False  # the watchdog killed it past the CPU limit
    wall_exceeded: bool = False  # the watchdog killed it past the wall-clock limit
    log_exceeded: bool = False  # the log reader killed it past the log cap
    log_cap: int = 0
    protocol: str = ""  # why the protocol reader gave up on the channel, if it did
    log_text: str = ""  # the head of the engine's log

    @property
    def signal(self) -> int | None:
        """The signal that killed the engine, if one did."""
        code = self.exit_status
        if code is None:
            return None
        if code < 0:
            return -code
        return code - 128 if self.sandboxed and code > 128 else None


def death_verdict(evidence: Evidence) -> tuple[Verdict, str]:
    """The verdict of a process that died without answering, and why, by PRIORITY."""
    sig = evidence.signal
    reasons: dict[Verdict, str] = {}
    if evidence.log_exceeded:
        reasons[Verdict.OLE] = f"printed more than {evidence.log_cap} bytes"
    if sig == signal.SIGXFSZ:
        reasons[Verdict.OLE] = "wrote a file larger than the file size limit"
    if sig is not None and any(word in evidence.log_text for word in MEMORY_WORDS):
        reasons[Verdict.MLE] = "ran out of memory"
    if (
        evidence.cpu_exceeded
        or sig == signal.SIGXCPU
        or (
            sig == signal.SIGKILL
            and not evidence.wall_exceeded
            and evidence.cpu >= evidence.cpu_limit
        )
    ):
        reasons[Verdict.TLE] = f"used more than {evidence.cpu_limit:.2f} s of CPU"
    if evidence.wall_exceeded:
        reasons[Verdict.TLE_WALL] = "took longer than the wall-clock limit"
    if evidence.protocol:
        reasons[Verdict.PROTOCOL] = evidence.protocol
    if not reasons:
        if sig is not None:
            name = (
                signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            )
            reasons[Verdict.RE] = f"the engine was killed by signal {name}"
        else:
            reasons[Verdict.RE] = (
                f"the engine exited (status {evidence.exit_status}) before answering"
            )
    verdict = worst(reasons)
    return verdict, reasons[verdict]


@dataclass(frozen=True)
class Reported:
    """The verdict of an error the adapter reported, with what to show the student."""

    verdict: Verdict
    detail: str
    traceback: str = ""


def reported_verdict(message: dict[str, Any]) -> Reported:
    """The verdict of the adapter's error report (``{"ok": false, "error": ...}``)."""
    kind, kind_of = message.get("error"), str(message.get("type", ""))
    text = str(message.get("message", ""))
    trace = str(message.get("traceback", ""))
    if kind == "request":  # the harness's requests are JSON: the engine read or wrote stdin
        return Reported(Verdict.PROTOCOL, f"the adapter could not read the request: {text}")
    if kind == "missing":
        return Reported(Verdict.PROTOCOL, text)
    if kind == "unserialisable":
        return Reported(Verdict.PROTOCOL, f"the result cannot be sent as JSON ({kind_of}: {text})")
    verdict = Verdict.RE
    if kind_of == "MemoryError" or message.get("errno") == ENOMEM:
        verdict = Verdict.MLE
    elif message.get("errno") == EFBIG:
        verdict = Verdict.OLE
    return Reported(verdict, f"{kind_of}: {text}" if text else kind_of, trace)
