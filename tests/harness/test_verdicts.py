"""Every sample engine through the real bubblewrap sandbox gets its expected verdicts, the
harness survives, and nothing is left running."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from grader import data
from grader.harness.runner import grade_engine
from grader.harness.sandbox import SandboxConfig
from grader.harness.verdicts import Verdict
from tests.harness._helpers import leftover_processes, needs_bwrap

P, WA, ILL = Verdict.PASSED, Verdict.WA, Verdict.ILLEGAL_MOVE
TLE, WALL, MLE, OLE, RE = Verdict.TLE, Verdict.TLE_WALL, Verdict.MLE, Verdict.OLE, Verdict.RE

# The tiny suite's tests: move generation, search depth 3, a game as Black, a game as White.
EXPECTED = {
    "correct": [P, P, P, P],
    "no_pruning": [P, WA, P, P],
    "wrong_eval": [P, WA, P, P],
    "illegal_mover": [P, P, ILL, ILL],
    "infinite_loop": [P, TLE, TLE, TLE],
    "sleeper": [P, WALL, WALL, WALL],
    "memory_hog": [P, MLE, P, P],
    "fork_bomb": [P, TLE, P, P],
    "flood": [P, OLE, OLE, OLE],
    "crash_at_import": [RE, RE, RE, RE],
}


@needs_bwrap
@pytest.mark.parametrize("name", list(EXPECTED))
def test_sample_engine_gets_its_verdicts(name: str, submission, tiny) -> None:
    config = SandboxConfig()
    report = grade_engine(submission(name), tiny, config)
    assert [t.verdict for t in report.tests] == EXPECTED[name], [
        (t.verdict.value, t.output[:300]) for t in report.tests
    ]
    assert report.complete and report.sandbox
    assert leftover_processes(config, report.slot) == []
    if name == "correct":
        assert report.score == report.max_score == 5
    if name in ("no_pruning", "wrong_eval"):
        search = report.tests[1]
        assert 0 < search.score < search.max_score  # credit for the parts that are right
    if name == "no_pruning":
        assert search.extra["parts"] == {"value": True, "move": True, "bound": True, "exact": False}
        assert [d["what"] for d in search.extra["differs"]] == ["leaves"]
    if name == "wrong_eval":  # the wrong parts alone, each with what came back and what was due
        assert search.extra["differs"]
        assert all(d["got"] != d["expected"].split(" ")[0] for d in search.extra["differs"])
        assert "value" in [d["what"] for d in search.extra["differs"]]
    if name == "crash_at_import":
        assert "missing opening book" in report.tests[0].output
        assert 'engine.py", line' in report.tests[0].output  # the traceback's last lines
    if name == "illegal_mover":
        assert "forfeit: ILLEGAL_MOVE" in report.tests[2].extra["pdn"]


@needs_bwrap
def test_network_is_unreachable(submission, tiny) -> None:
    import socket

    with socket.socket() as server, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        port = server.getsockname()[1]
        udp.bind(("127.0.0.1", port))
        udp.setblocking(False)
        report = grade_engine(submission("network", {"port.txt": str(port)}), tiny, SandboxConfig())
        assert [t.verdict for t in report.tests] == [RE] * 4
        assert "ConnectionRefusedError" in report.tests[0].output
        with pytest.raises(BlockingIOError):
            server.accept()  # no connection ever reached the host's loopback
        with pytest.raises(BlockingIOError):
            udp.recv(100)


@needs_bwrap
def test_snooping_engine_reads_nothing(
    submission, tiny, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from grader.harness import results

    secret = "the-answer-key-" + os.urandom(8).hex()
    monkeypatch.setenv("GRADER_TEST_SECRET", secret)
    key = tmp_path / "answer-key.txt"
    key.write_text(secret)
    key.chmod(0o644)
    root = Path(__file__).resolve().parents[2]
    harness_files = [
        root / "grader" / "harness" / "suite.py",
        data.suite_dir() / "positions.json",
        Path(__file__),
    ]
    targets = "\n".join(str(p) for p in [key, *harness_files])
    report = grade_engine(submission("snoop", {"targets.txt": targets}), tiny, SandboxConfig())
    assert [t.verdict for t in report.tests] == [WA, RE, ILL, ILL]
    everything = "\n".join(
        [
            results.json_text(results.gradescope(report)),
            results.json_text(results.rich(report)),
            *(t.extra.get("log_head", "") for t in report.tests),
        ]
    )
    assert "could not read /etc/shadow" in everything  # it tried, and was told it could not
    assert secret not in everything
    shadow = Path("/etc/shadow").read_text()
    for line in filter(None, shadow.splitlines()):
        assert line not in everything
    for path in harness_files:
        distinctive = [line for line in path.read_text().splitlines() if len(line) > 40][:20]
        for line in distinctive:
            assert line not in everything, f"{path} leaked"


@needs_bwrap
def test_a_busy_engine_is_judged_by_its_cpu_limit_on_a_loaded_host(submission, tiny) -> None:
    """A wall-clock limit shorter than the CPU limit stands for a host too loaded to give the
    engine a whole core: the infinite loop is still computing at the wall limit, so it runs on
    and is TLE (its CPU), or, on a host so loaded that BUSY_GRACE walls were not enough, it
    was at least given as much wall time as its CPU limit; the sleeper gains no CPU and is
    TLE_WALL as before."""
    search = next(t for t in tiny.tests if t.kind == "search")
    short = dataclasses.replace(search, cpu=0.5, wall=0.25)
    suite = dataclasses.replace(tiny, tests=(short,))
    busy = grade_engine(submission("infinite_loop"), suite, SandboxConfig()).tests[0]
    assert (busy.verdict is TLE and busy.cpu > short.cpu) or (
        busy.verdict is WALL and busy.wall >= short.cpu
    ), (busy.verdict, busy.cpu, busy.wall)
    idle = grade_engine(submission("sleeper"), suite, SandboxConfig()).tests[0]
    assert idle.verdict is WALL, (idle.verdict, idle.output[:300])


# Waits as a process the grading machine stopped would: its searches until a moment wait past the
# wall clock without computing; later ones answer as the correct engine does.
STALLS_ONCE = """
import time

from correct import choose_move, legal_moves  # noqa: F401
from correct import search as _search


def search(fen, depth):
    if time.time() < {until}:
        time.sleep(3600)
    return _search(fen, depth)
"""


@needs_bwrap
def test_a_test_that_timed_out_without_computing_runs_once_more(submission, tiny) -> None:
    """A machine that stalls an engine's process (here, an engine that waits only in its first
    run) does not cost the engine the test: a wall-clock timeout with little CPU is run again
    in a fresh process, and the second run's verdict counts. An engine that waits by itself
    (the sleeper) waits again and is charged, after the two runs."""
    import time

    search = next(t for t in tiny.tests if t.kind == "search")
    suite = dataclasses.replace(tiny, tests=(search,))
    # Inside the first run's wait (its call comes once the engine has started, and is killed a
    # wall limit later), before the second run's.
    until = time.time() + search.wall * 0.8
    stalled = submission("correct", {"engine.py": STALLS_ONCE.format(until=repr(until))})
    (result,) = grade_engine(stalled, suite, SandboxConfig()).tests
    assert result.verdict is P and result.attempts == 2, (result.verdict, result.output[:400])
    assert "timed out on the wall clock" in result.output and "second run's" in result.output
    (slept,) = grade_engine(submission("sleeper"), suite, SandboxConfig()).tests
    assert slept.verdict is WALL and slept.attempts == 2, (slept.verdict, slept.output[:400])
    assert "charged to the engine" in slept.output
