"""The one runner of every leased job: uploads graded, tournament games, exam prints and
integrity checks. A job kind (`JobKind`) declares what differs: its row's model, its queue
job, how it is claimed, what it runs, when a result is incomplete, how it is given back and how
its result is recorded. `run` does the rest, the same for every kind:

    claim --> one heartbeat thread --> run the body --> stop the beat
                                          |                 |
                     an error, or incomplete:        complete, lease held:
                     give back (the lease's           record the result, once
                     attempts), wake if queued        (under the lease)

The heartbeat renews the lease every quarter of it whether or not the body reports progress,
and writes the latest progress (at most every PROGRESS_EVERY seconds) when it does. Once a
renewal finds the lease taken back, nothing more is written by this worker.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from flask import Flask, current_app

from grader.extensions import job_queue
from grader.models import QUEUED
from grader.services.leases import Leased, heartbeat, lease_seconds, woken

log = logging.getLogger(__name__)

PROGRESS_EVERY = 0.5  # seconds between two progress writes of one job

Progress = Callable[[dict[str, Any]], None]
Claimed = TypeVar("Claimed")
Result = TypeVar("Result")


class JobKind(Generic[Claimed, Result]):
    """What one kind of leased job declares; `run` runs any of them the same way."""

    job: str  # its name in the queue (`extensions.JOB_CLASS`)
    noun: str  # a job in words, before its id: "submission", "exam print"
    model: Leased
    priority: int = 0  # its wake-up message's, unless `priority_of` reads it from the row
    first_phase: str | None = None  # the progress the first beat writes, if any
    incomplete_word = "incomplete"  # the outcome's word when `incomplete` says so

    def claim(self, job_id: int, worker: str) -> Claimed | None:
        """queued -> running under ``worker``'s lease; what the body needs, or None when
        another worker has it or it is no longer queued."""
        raise NotImplementedError

    def run(self, claimed: Claimed, progress: Progress) -> Result:
        """The body (raises on an error of the grader); ``progress`` hands the heartbeat the
        latest progress."""
        raise NotImplementedError

    def incomplete(self, result: Result) -> str | None:
        """Why a result that came back is not one to record (the grader's fault), or None."""
        return None

    def give_back(self, job_id: int, worker: str, message: str) -> str | None:
        """After an error of the grader: the new status (queued while claims are left, else
        failed), or None when the lease was lost already."""
        raise NotImplementedError

    def record(self, job_id: int, worker: str, result: Result) -> bool:
        """The result written once, while ``worker`` holds the lease; False when not."""
        raise NotImplementedError

    def beat(self, job_id: int, worker: str, progress: dict[str, Any] | None) -> bool:
        """The lease renewed (and ``progress`` written); False once the lease is lost."""
        values = {"progress": progress} if progress is not None else {}
        return heartbeat(self.model, job_id, worker, **values)

    def priority_of(self, job_id: int) -> int:
        """The wake-up message's priority for this job."""
        return self.priority

    def wake(self, *job_ids: int, priority: int | None = None) -> list[int]:
        """The wake-up messages, those sent recorded in one write; the ids sent. One the queue
        cannot take is logged and left to the sweep. The one way a leased job is woken."""
        sent = [
            job_id
            for job_id in job_ids
            if job_queue.wake(
                self.job,
                job_id,
                priority=self.priority_of(job_id) if priority is None else priority,
                what=f"{self.noun} {job_id}",
            )
        ]
        woken(self.model, *sent)
        return sent


def run(kind: JobKind[Claimed, Result], job_id: int, worker: str) -> str:
    """Claim, run the body with one heartbeat, give back after an error of the grader (woken
    again when queued) or record the result once. The outcome: "done", "not claimed", "lease
    lost", or the reason and the new status ("internal error, queued")."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # Flask types the proxy as the app
    claimed = kind.claim(job_id, worker)
    if claimed is None:
        return "not claimed"
    beat = Heartbeat(
        app,
        f"{kind.noun} {job_id}",
        lambda progress: kind.beat(job_id, worker, progress),
        lease_seconds() / 4,
        None if kind.first_phase is None else {"phase": kind.first_phase},
    )
    beat.start()
    word, error = "internal error", None
    try:
        try:
            result = kind.run(claimed, beat.update)
        finally:
            beat.stop.set()
            beat.join()
        error = kind.incomplete(result)
        if error is not None:
            word = kind.incomplete_word
        elif beat.lost.is_set():
            return "lease lost"
        else:
            return "done" if kind.record(job_id, worker, result) else "lease lost"
    except Exception as exc:  # the grader's fault, never the student's
        log.exception("%s %s failed", kind.noun, job_id)
        error = f"{type(exc).__name__}: {exc}"
    status = kind.give_back(job_id, worker, error)
    if status == QUEUED:
        kind.wake(job_id)
    return f"{word}, {status}"


class Heartbeat(threading.Thread):
    """Renews a job's lease every `every` seconds (`beat(progress)`, False once the lease is
    lost), with the latest progress (throttled) when the job reports any."""

    def __init__(
        self,
        app: Flask,
        name: str,
        beat: Callable[[dict[str, Any] | None], bool],
        every: float,
        progress: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(daemon=True, name=f"heartbeat-{name}")
        self.app, self.job, self.beat, self.every = app, name, beat, every
        self.stop = threading.Event()
        self.lost = threading.Event()
        self.lock = threading.Lock()
        self.progress: dict[str, Any] = dict(progress or {})
        self.dirty = progress is not None
        self.last = 0.0

    def update(self, progress: dict[str, Any]) -> None:
        with self.lock:
            self.progress = progress
            self.dirty = True

    def run(self) -> None:
        with self.app.app_context():
            while not self.stop.is_set():
                now = time.monotonic()
                with self.lock:
                    due = self.dirty and now - self.last >= PROGRESS_EVERY
                    progress = dict(self.progress) if due else None
                    if due:
                        self.dirty = False
                if progress is not None or now - self.last >= self.every:
                    try:
                        if not self.beat(progress):
                            self.lost.set()
                            return
                        self.last = now
                    except Exception:  # the database is busy or away: try again soon
                        log.exception("heartbeat of %s", self.job)
                self.stop.wait(min(PROGRESS_EVERY, self.every) / 2)
