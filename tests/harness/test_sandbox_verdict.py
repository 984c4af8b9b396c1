"""Evidence to verdict, without bubblewrap: a table of what was seen of a call and the verdict
it gives; every verdict the sandbox gives is reachable, and none of the engine's doings is IE."""

from __future__ import annotations

import itertools
import signal

import pytest

from grader.harness.sandbox import Evidence, death_verdict, reported_verdict
from grader.harness.verdicts import Verdict

KILL, XCPU, XFSZ, SEGV = (
    int(signal.SIGKILL),
    int(signal.SIGXCPU),
    int(signal.SIGXFSZ),
    int(signal.SIGSEGV),
)

DEATHS = [
    # (what was seen, verdict, words of the detail)
    (
        Evidence(1.0, log_exceeded=True, log_cap=100, exit_status=-KILL),
        Verdict.OLE,
        "more than 100 bytes",
    ),
    (Evidence(1.0, exit_status=-XFSZ, sandboxed=False), Verdict.OLE, "file size limit"),
    (Evidence(1.0, exit_status=128 + XFSZ), Verdict.OLE, "file size limit"),
    (Evidence(1.0, exit_status=-KILL, log_text="MemoryError"), Verdict.MLE, "out of memory"),
    (
        Evidence(1.0, exit_status=128 + SEGV, log_text="std::bad_alloc"),
        Verdict.MLE,
        "out of memory",
    ),
    (Evidence(1.0, cpu_exceeded=True, exit_status=-KILL), Verdict.TLE, "1.00 s of CPU"),
    (Evidence(1.0, exit_status=128 + XCPU), Verdict.TLE, "of CPU"),
    # Killed from outside without the watchdog's word, past the CPU limit: the CPU's.
    (Evidence(1.0, cpu=1.5, exit_status=-KILL), Verdict.TLE, "of CPU"),
    (Evidence(1.0, cpu=1.5, wall_exceeded=True, exit_status=-KILL), Verdict.TLE_WALL, "wall-clock"),
    (Evidence(1.0, wall_exceeded=True, exit_status=-KILL), Verdict.TLE_WALL, "wall-clock"),
    (
        Evidence(1.0, protocol="an answer longer than 10 bytes", exit_status=-KILL),
        Verdict.PROTOCOL,
        "longer than 10 bytes",
    ),
    (Evidence(1.0, exit_status=128 + SEGV), Verdict.RE, "SIGSEGV"),
    (Evidence(1.0, exit_status=-SEGV, sandboxed=False), Verdict.RE, "SIGSEGV"),
    (Evidence(1.0, exit_status=3), Verdict.RE, "status 3"),
    (Evidence(1.0, exit_status=0), Verdict.RE, "status 0"),
    # Without bwrap an exit status above 128 is the engine's own, not a signal.
    (Evidence(1.0, exit_status=128 + XCPU, sandboxed=False), Verdict.RE, f"status {128 + XCPU}"),
    (Evidence(1.0, exit_status=None), Verdict.RE, "before answering"),
    # Memory words in a log of an engine that exited by itself: its own text, not a verdict.
    (Evidence(1.0, exit_status=1, log_text="out of memory"), Verdict.RE, "status 1"),
    # Several causes at once: the cause before its symptoms (PRIORITY).
    (
        Evidence(1.0, log_exceeded=True, cpu_exceeded=True, protocol="garbled", exit_status=-KILL),
        Verdict.OLE,
        "bytes",
    ),
    (
        Evidence(1.0, cpu_exceeded=True, wall_exceeded=True, protocol="garbled", exit_status=-KILL),
        Verdict.TLE,
        "of CPU",
    ),
    (
        Evidence(1.0, wall_exceeded=True, protocol="garbled", exit_status=-KILL),
        Verdict.TLE_WALL,
        "wall-clock",
    ),
]


@pytest.mark.parametrize(("evidence", "verdict", "words"), DEATHS)
def test_a_death_gives_its_verdict(evidence: Evidence, verdict: Verdict, words: str) -> None:
    got, detail = death_verdict(evidence)
    assert got is verdict
    assert words in detail


REPORTS = [
    (
        {
            "error": "exception",
            "type": "ZeroDivisionError",
            "message": "division by zero",
            "traceback": "line 3",
        },
        Verdict.RE,
        "ZeroDivisionError: division by zero",
    ),
    ({"error": "exception", "type": "MemoryError", "message": ""}, Verdict.MLE, "MemoryError"),
    (
        {"error": "exception", "type": "OSError", "message": "no room", "errno": 12},
        Verdict.MLE,
        "no room",
    ),
    (
        {"error": "exception", "type": "OSError", "message": "too big", "errno": 27},
        Verdict.OLE,
        "too big",
    ),
    (
        {"error": "missing", "message": "the engine has no function search()"},
        Verdict.PROTOCOL,
        "no function search()",
    ),
    (
        {"error": "unserialisable", "type": "TypeError", "message": "set"},
        Verdict.PROTOCOL,
        "cannot be sent as JSON",
    ),
    ({"error": "request", "message": "bad line"}, Verdict.PROTOCOL, "could not read"),
]


@pytest.mark.parametrize(("message", "verdict", "words"), REPORTS)
def test_an_error_report_gives_its_verdict(message: dict, verdict: Verdict, words: str) -> None:
    reported = reported_verdict({"id": 1, "ok": False, **message})
    assert reported.verdict is verdict
    assert words in reported.detail
    assert reported.traceback == message.get("traceback", "")


def test_every_sandbox_verdict_is_reachable() -> None:
    reached = {v for _, v, _ in DEATHS} | {v for _, v, _ in REPORTS}
    assert reached == {
        Verdict.OLE,
        Verdict.MLE,
        Verdict.TLE,
        Verdict.TLE_WALL,
        Verdict.RE,
        Verdict.PROTOCOL,
    }


def test_no_evidence_of_the_engine_is_an_internal_error() -> None:
    """IE is the harness's own fault (SandboxError); no death of the engine gives it."""
    statuses = [None, 0, 1, 128 + KILL, 128 + XCPU, 128 + XFSZ, -KILL, -XCPU, -XFSZ, -SEGV, 200]
    flags = list(itertools.product([False, True], repeat=4))
    for status, (sandboxed, cpu, wall, log), protocol, text, used in itertools.product(
        statuses, flags, ["", "garbled"], ["", "MemoryError"], [0.0, 2.0]
    ):
        evidence = Evidence(
            1.0,
            cpu=used,
            exit_status=status,
            sandboxed=sandboxed,
            cpu_exceeded=cpu,
            wall_exceeded=wall,
            log_exceeded=log,
            log_cap=10,
            protocol=protocol,
            log_text=text,
        )
        verdict, detail = death_verdict(evidence)
        assert verdict is not Verdict.IE and verdict is not Verdict.PASSED and detail
    for error in ("exception", "missing", "unserialisable", "request", "other", None):
        for errno in (None, 12, 27, 2):
            reported = reported_verdict({"error": error, "type": "X", "errno": errno})
            assert reported.verdict is not Verdict.IE
