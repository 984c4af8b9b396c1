"""The machine's window (issue 51, sandbox/slots.py `machine_window`): a timing test runs with
no other grading slot working, so another slot's search does not move the CPU time it
measures. Work beside other work shares the window; work alone waits for what runs to end, and
new work waits for it.

The locks are the kernel's: each test watches `/proc/locks` for a process blocked on the
window's files rather than waiting some time and hoping, and nothing asserts a wall-clock
time. The window's folder is the test's own, so no other test's grading waits on it."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from grader.harness.runner import grade_engine
from grader.harness.sandbox import SandboxConfig, machine_window
from grader.harness.sandbox import slots as slots_module
from grader.harness.verdicts import Verdict
from tests.harness._helpers import needs_bwrap, search_then_timing

GIVE_UP = 300.0  # seconds: a bound on a thread that never came, not a measure of anything


@pytest.fixture
def window_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The window's (and the slots') locks in this test's own folder."""
    folder = tmp_path / "locks"
    folder.mkdir()
    monkeypatch.setattr(slots_module, "_lock_dir", lambda: folder)
    return folder


def blocked_on(path: Path) -> list[str]:
    """The kinds (READ or WRITE) of the locks a process waits for on `path`, from
    `/proc/locks`, whose blocked requests are the lines with "->"."""
    inode = str(os.stat(path).st_ino)
    kinds = []
    with open("/proc/locks", encoding="ascii") as locks:
        for line in locks:
            fields = line.split()
            if "->" in fields and any(
                f.count(":") == 2 and f.endswith(f":{inode}") for f in fields
            ):
                kinds.append(fields[fields.index("->") + 3])
    return kinds


def wait_until(seen: Callable[[], bool], thread: threading.Thread) -> None:
    """Poll until `seen()`; fail if `thread` ended first (it never waited)."""
    give_up = time.monotonic() + GIVE_UP
    while not seen():
        assert thread.is_alive(), "the thread ended without waiting"
        assert time.monotonic() < give_up, "nothing waited"
        time.sleep(0.02)


@contextlib.contextmanager
def started(target: Callable[[], None]) -> Iterator[threading.Thread]:
    """`target` in a thread, joined at the block's end; a failing block does not wait for it
    (the window it waits for is freed as the failure leaves the test's `with`)."""
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    yield thread
    thread.join(GIVE_UP)


def test_work_alone_waits_for_running_work_and_new_work_waits_for_it(window_folder) -> None:
    order: list[str] = []
    running = contextlib.ExitStack()  # closed on any failure too, so no thread is left waiting
    running.enter_context(machine_window())

    def alone() -> None:
        with machine_window(alone=True):
            order.append("alone")

    def beside() -> None:
        with machine_window():
            order.append("beside")

    with running, started(alone) as timing:
        wait_until(lambda: blocked_on(window_folder / "window.lock") == ["WRITE"], timing)
        with started(beside) as later:
            # New work waits at the turnstile the timing holds, not for the window itself.
            wait_until(lambda: len(blocked_on(window_folder / "window-turnstile.lock")) == 1, later)
            assert order == []
            running.close()  # the running work ends: the timing runs, then the new work
    assert order == ["alone", "beside"]


def test_work_beside_work_does_not_wait(window_folder) -> None:
    """Two slots' work at once: the second enters while the first holds the window."""
    entered = threading.Event()

    def beside() -> None:
        with machine_window():
            entered.set()

    with machine_window(), started(beside) as second:
        second.join(GIVE_UP)
        assert entered.is_set()


def test_a_window_is_freed_when_its_work_fails(window_folder) -> None:
    for alone in (True, False):
        with pytest.raises(RuntimeError), machine_window(alone=alone):
            raise RuntimeError("the work failed")
    with machine_window(alone=True):  # nothing left held
        pass


@needs_bwrap
def test_a_graded_timing_waits_for_the_other_slots_work(
    window_folder, submission, tmp_path
) -> None:
    """A grading whose other slot is working: its search test runs beside that work, its timing
    test waits for it to end, then runs and is graded as usual."""
    suite = search_then_timing(tmp_path, depth=3, runs=1)
    engine = submission("correct")
    reports = []

    def grade() -> None:
        reports.append(grade_engine(engine, suite, SandboxConfig(), slots=2))

    other_slot = contextlib.ExitStack()  # the other slot's work, ended on any failure too
    other_slot.enter_context(machine_window())
    with other_slot, started(grade) as grading:
        # The search test ran beside the other slot's work; the timing test waits for it.
        wait_until(lambda: blocked_on(window_folder / "window.lock") == ["WRITE"], grading)
        assert reports == []
        other_slot.close()
    (report,) = reports
    search, timing = report.tests
    assert search.verdict is Verdict.PASSED and timing.verdict is Verdict.PASSED
    assert timing.kind == "timing" and timing.score > 0
