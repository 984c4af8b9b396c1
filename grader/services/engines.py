"""Engine slots and submissions: the upload, what a student or the staff may see, and the
durable state machine the queue's workers drive (claim, heartbeat, progress, result) under the
lease of services/leases.py:

    queued --claim--> running --result--> done
       ^                 |  \\--internal error, attempts left--> queued
       |                 |   \\-internal error, none left------> failed (never charged)
       +--lease expired--+
    queued --a newer upload of the same student and slot--> superseded

The database row is the truth; a queue message only wakes a worker up. The result is written
once, by the lease's holder (and the unique key of engine_result makes a second row impossible
anyway). The upload's bytes are a blob in the database (services/blobs.py).
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from flask import current_app

from grader import data
from grader.extensions import GRADE, db, jobs
from grader.models import (
    DONE,
    ENGINE_KIND,
    QUEUED,
    RUNNING,
    SUPERSEDED,
    Assignment,
    EngineResult,
    Slot,
    Submission,
    User,
    iso_utc,
    utcnow,
)
from grader.services import Conflict, Invalid, NotFound, RateLimited, blobs, leases, lti, uploads
from grader.services.courses import get_slot, member_slot_ids, taught_course_ids
from grader.services.lateness import slot_closes_at, slot_lateness
from grader.services.staff import Staff, staff_for_slot
from grader.services.transactions import writing

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3  # claims of one submission before it fails (internal errors, dead workers)
NORMAL, LOW = 0, -10  # queue priorities: uploads, regrade-all
DEFAULT_SUITE = "quick"


# -- slots ----------------------------------------------------------------------------------


def is_engine_slot(slot: Slot) -> bool:
    return slot.kind == ENGINE_KIND


def engine_slot(user: User, assignment_id: int, index: int) -> Slot:
    slot = get_slot(user, assignment_id, index)
    if not is_engine_slot(slot):
        raise NotFound("this exercise takes no engine uploads")
    return slot


def teaches(user: User, slot: Slot) -> bool:
    """Whether the user is on the staff of the slot's course (the page links the staff view)."""
    return slot.assignment.course_id in set(db.session.scalars(taught_course_ids(user)))


def suite_of(slot: Slot) -> str:
    """The suite the slot grades with; GRADER_ENGINE_SUITE overrides it (tests, benchmarks)."""
    return current_app.config.get("GRADER_ENGINE_SUITE") or \
        (slot.params or {}).get("suite", DEFAULT_SUITE)


def add_engine_slot(assignment_id: int, *, suite: str = DEFAULT_SUITE,
                    title: str | None = None) -> Slot:
    """An engine slot at the end of an assignment (the CLI and the demo make them)."""
    from grader.harness import SUITES

    if suite not in SUITES and not Path(suite).is_file():
        raise Invalid(f"suite must be one of {', '.join(SUITES)} or a suite file")
    with writing() as session:
        assignment = session.get(Assignment, assignment_id)
        if assignment is None:
            raise NotFound(f"no assignment {assignment_id}")
        last = session.scalar(sa.select(sa.func.max(Slot.index))
                              .where(Slot.assignment_id == assignment_id))
        slot = Slot(assignment_id=assignment_id, index=(last if last is not None else -1) + 1,
                    title=title or "Checkers engine", kind=ENGINE_KIND, params={"suite": suite},
                    conventions={}, attempts_allowed=None, practice_allowed=False,
                    replay_allowed=True)
        session.add(slot)
    return slot


# -- uploads --------------------------------------------------------------------------------


# What the upload page offers to read and to start from: name -> (file, download name).
HANDOUTS = {"assignment": ("ASSIGNMENT.md", "ASSIGNMENT.md"),
            "rules": ("RULES.md", "RULES.md"),
            "starter": ("template/engine.py", "engine.py")}


def handout(user: User, assignment_id: int, index: int, name: str) -> tuple[Path, str]:
    """A handout of an engine slot (the assignment text, the rules, the starter engine) for a
    member of its course: its path and the file name to give it."""
    engine_slot(user, assignment_id, index)
    if name not in HANDOUTS:
        raise NotFound(f"no handout {name!r}")
    relative, download = HANDOUTS[name]
    return data.checkers(relative), download


def _rate() -> tuple[int, int]:
    count, _, seconds = current_app.config["GRADER_UPLOAD_RATE"].partition("/")
    return int(count), int(seconds or 600)


def _check_rate(session: Any, user: User, now: dt.datetime) -> None:
    count, seconds = _rate()
    since = now - dt.timedelta(seconds=seconds)
    recent = list(session.scalars(
        sa.select(Submission.created_at).where(Submission.owner_id == user.id,
                                               Submission.created_at > since)
        .order_by(Submission.created_at)))
    if len(recent) >= count:
        wait = max(1, int((recent[-count] - since).total_seconds()) + 1)
        raise RateLimited(f"at most {count} uploads in {seconds // 60} minutes; "
                          f"try again in {wait} s", wait)


def _check_open(slot: Slot, now: dt.datetime) -> None:
    closes = slot_closes_at(slot)
    if closes is not None and now > closes:
        raise Conflict(f"the due date ({closes:%Y-%m-%d %H:%M} UTC) has passed")


def upload(user: User, assignment_id: int, index: int, data: bytes, filename: str, *,
           tournament: bool = False) -> Submission:
    """Check an engine, commit its bytes (a blob) with its submission, then wake a worker.

    A refused upload stores nothing (no blob, no row). The row is committed before the queue
    hears of it; if the queue cannot be reached the workers' sweep finds the row anyway.
    """
    slot = engine_slot(user, assignment_id, index)
    now = utcnow()
    _check_open(slot, now)
    _check_rate(db.session, user, now)  # before the work; again under the write lock
    checked = uploads.check(data, filename)
    with writing() as session:
        _check_rate(session, user, now)
        days, penalty = slot_lateness(slot, now)
        blobs.store().put(session, checked.sha256, checked.data)
        session.execute(sa.update(Submission).where(
            Submission.owner_id == user.id, Submission.slot_id == slot.id,
            Submission.status == QUEUED).values(status=SUPERSEDED, finished_at=now))
        submission = Submission(
            owner_id=user.id, slot_id=slot.id, sha256=checked.sha256,
            stored_path=checked.relative_path,
            filename=checked.filename or Path(checked.relative_path).name,
            size=len(data), suite=suite_of(slot), status=QUEUED, priority=NORMAL,
            tournament_opt_in=tournament, days_late=days, penalty=penalty, created_at=now,
            progress=None)
        session.add(submission)
    wake(submission)
    return submission


def wake(submission: Submission, *, priority: int | None = None) -> bool:
    """Send the wake-up message; False (logged) when the queue is unreachable."""
    try:
        jobs.enqueue(GRADE, submission.id, priority=submission.priority
                     if priority is None else priority)
    except Exception:  # the sweep sends it later: the row in the database is the truth
        log.exception("could not enqueue submission %s", submission.id)
        return False
    leases.woken(Submission, submission.id)
    return True


# -- who sees what --------------------------------------------------------------------------


def _visible(user: User) -> sa.ColumnElement[bool]:
    taught = Submission.slot_id.in_(sa.select(Slot.id).join(Assignment).where(
        Assignment.course_id.in_(taught_course_ids(user))))
    own = sa.and_(Submission.owner_id == user.id, Submission.slot_id.in_(member_slot_ids(user)))
    return sa.or_(own, taught)


def get_submission(user: User, submission_id: int) -> Submission:
    """The owner's (while a member of its course), or one of a course the user teaches;
    NotFound for anyone else."""
    found = db.session.scalar(sa.select(Submission).where(
        Submission.id == submission_id, _visible(user)).options(
        sa.orm.joinedload(Submission.slot).joinedload(Slot.assignment),
        sa.orm.joinedload(Submission.owner)))
    if found is None:
        raise NotFound("no such engine submission")
    return found


def result_of(submission: Submission) -> EngineResult | None:
    return db.session.scalar(sa.select(EngineResult).where(
        EngineResult.submission_id == submission.id))


def my_submissions(user: User, slot: Slot, limit: int = 50) -> list[Submission]:
    return list(db.session.scalars(
        sa.select(Submission).where(Submission.owner_id == user.id, Submission.slot_id == slot.id)
        .order_by(Submission.id.desc()).limit(limit)))


def queue_position(submission: Submission) -> int | None:
    """How many queued submissions go first (same or higher priority, older)."""
    if submission.status != QUEUED:
        return None
    return db.session.scalar(sa.select(sa.func.count(Submission.id)).where(
        Submission.status == QUEUED,
        sa.or_(Submission.priority > submission.priority,
               sa.and_(Submission.priority == submission.priority,
                       Submission.id < submission.id))))


def describe(submission: Submission, result: EngineResult | None = None) -> dict[str, Any]:
    """A submission as the API shows it: status and progress, and the results once done."""
    data: dict[str, Any] = {
        "id": submission.id,
        "user": submission.owner.email if submission.owner else None,
        "assignment_id": submission.slot.assignment_id,
        "slot_index": submission.slot.index,
        "filename": submission.filename,
        "size": submission.size,
        "sha256": submission.sha256,
        "suite": Path(submission.suite).stem,
        "status": submission.status,
        "attempts": submission.attempts,
        "queue_position": queue_position(submission),
        "progress": submission.progress or {},
        "score": submission.score,
        "max_score": submission.max_score,
        "days_late": submission.days_late,
        "penalty": submission.penalty,
        "error": submission.error,
        "tournament_opt_in": submission.tournament_opt_in,
        "created_at": iso_utc(submission.created_at),
        "started_at": iso_utc(submission.started_at),
        "finished_at": iso_utc(submission.finished_at),
        "results": None,
        "summary": None,
    }
    if submission.status == DONE and result is not None:
        data["results"] = result.gradescope
        data["summary"] = summary(result.rich)
    return data


def timing_rows(rich: dict[str, Any]) -> list[dict[str, Any]]:
    """Per timing test and depth: the engine's and the reference's search CPU seconds, as the
    timing test stored them (its extra's rows; migration 5c0d7e1f2a3b gave older results theirs)."""
    rows = []
    for test in rich.get("tests", []):
        if test.get("kind") != "timing":
            continue
        position = test["name"].rsplit(": ", 1)[-1]
        for row in (test.get("extra") or {}).get("rows", []):
            rows.append({"position": position, "depth": int(row["depth"]),
                         "cpu": float(row["cpu"]), "reference_cpu": float(row["reference_cpu"])})
    return rows


def grouped(tests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The verdict table's rows: failed tests with the same verdict and the same output (one
    traceback repeated on 42 tests) become one row naming them all; the rest one row each."""
    rows: list[dict[str, Any]] = []
    failures: dict[tuple[Any, Any], dict[str, Any]] = {}
    for t in tests:
        key = (t.get("verdict"), t.get("output"))
        if t.get("verdict") != "passed" and key in failures:
            row = failures[key]
            row["names"].append(t.get("name"))
            for k in ("score", "max_score", "cpu", "wall"):
                row[k] = round((row[k] or 0) + (t.get(k) or 0), 4)
            continue
        row = {**t, "names": [t.get("name")]}
        rows.append(row)
        if t.get("verdict") != "passed":
            failures[key] = row
    return rows


def summary(rich: dict[str, Any]) -> dict[str, Any]:
    """What the results page draws: the verdict table (identical failures grouped), the
    timing chart, the games; the Elo only when a game was rated."""
    tests = [{k: t.get(k) for k in ("name", "kind", "verdict", "score", "max_score", "cpu",
                                    "wall", "output")} | {"diagnosis": (t.get("extra") or {})
                                                         .get("diagnosis")}
             for t in rich.get("tests", [])]
    elo = rich.get("elo")
    return {
        "complete": rich.get("complete"),
        "error": rich.get("error"),
        "elo": elo if isinstance(elo, dict) and elo.get("games") else None,
        "tests": tests,
        "rows": grouped(tests),
        "timing": timing_rows(rich),
        "games": [{"number": n, **{k: g.get(k) for k in
                                   ("name", "opponent", "colour", "ballot", "result", "points",
                                    "plies")}}
                  for n, g in enumerate(rich.get("games", []))],
    }


def game(user: User, submission_id: int, number: int) -> dict[str, Any]:
    """One game of a graded submission: its PDN, and each ply's move and position (FEN)."""
    from grader.checkers import InvalidPdnError, read_game

    submission = get_submission(user, submission_id)
    result = result_of(submission)
    games = result.rich.get("games", []) if result else []
    if not 0 <= number < len(games) or not games[number].get("pdn"):
        raise NotFound("no such game")
    stored = games[number]
    try:
        parsed = read_game(stored["pdn"])
    except InvalidPdnError as exc:
        raise Invalid(f"the stored game cannot be read: {exc}") from exc
    board = parsed.board()
    plies = [{"ply": 0, "move": None, "fen": board.fen()}]
    for ply, move in enumerate(parsed.moves, 1):
        board.push(move)
        plies.append({"ply": ply, "move": move.pdn(), "fen": board.fen()})
    return {"number": number, "name": stored.get("name"), "headers": parsed.headers,
            "result": parsed.result, "pdn": stored["pdn"], "plies": plies}


# -- the workers' side: every write conditional on the lease (services/leases.py) -----------


lease_seconds = leases.lease_seconds


@dataclass(frozen=True)
class Claim:
    id: int
    sha256: str
    stored_path: str  # the worker's local copy, relative to its GRADER_UPLOADS_DIR
    suite: str
    attempts: int

    def engine_file(self) -> Path:
        """The upload on this machine (fetched from the blob store when not here yet)."""
        return blobs.local_copy(self.sha256, self.stored_path)


def claim(submission_id: int, worker: str) -> Claim | None:
    """queued -> running with this worker's lease; None if someone else has it, it was
    superseded, or it is done."""
    with writing() as session:
        if not leases.claim(session, Submission, submission_id, worker,
                            progress={"phase": "starting"}):
            return None
        row = session.execute(sa.select(Submission.sha256, Submission.stored_path,
                                        Submission.suite, Submission.attempts)
                              .where(Submission.id == submission_id)).one()
    return Claim(submission_id, row.sha256, row.stored_path, row.suite, row.attempts)


def heartbeat(submission_id: int, worker: str, progress: dict[str, Any] | None = None) -> bool:
    """Renew the lease (and store the progress); False once the lease is lost."""
    values = {"progress": progress} if progress is not None else {}
    return leases.heartbeat(Submission, submission_id, worker, **values)


def write_result(submission_id: int, worker: str, *, score: float, max_score: float,
                 gradescope: dict[str, Any], rich: dict[str, Any]) -> bool:
    """running -> done with the result, once: False when this worker no longer holds the lease
    or the result exists (a second call, a resurrected worker)."""
    now = utcnow()
    try:
        with writing() as session:
            if not leases.finish(session, Submission, submission_id, worker, DONE,
                                 score=score, max_score=max_score, finished_at=now,
                                 error=None, progress={"phase": "done"}):
                return False
            session.add(EngineResult(submission_id=submission_id, worker=worker,
                                     gradescope=gradescope, rich=rich, created_at=now))
            owner_slot = session.execute(sa.select(Submission.owner_id, Submission.slot_id)
                                         .where(Submission.id == submission_id)).one()
            lti.passback_after_commit(session, [tuple(owner_slot)])
    except sa.exc.IntegrityError:  # the unique key: a result already exists
        return False
    return True


def internal_error(submission_id: int, worker: str, message: str) -> str | None:
    """The grader failed (not the engine): back to the queue while attempts are left, else
    failed, never charged. The new status, or None when the lease was already lost."""
    attempts = db.session.scalar(sa.select(Submission.attempts).where(
        Submission.id == submission_id))
    error = (f"internal error of the grader (attempt {attempts} of {MAX_ATTEMPTS}, "
             f"not charged to you): {message[:2000]}")
    return leases.give_back(Submission, submission_id, worker, MAX_ATTEMPTS,
                            {"error": error, "progress": {"phase": "retrying"}},
                            {"error": error, "progress": {"phase": "failed"},
                             "finished_at": utcnow()})


def sweep(now: dt.datetime | None = None) -> list[tuple[int, int]]:
    """Expired leases back to the queue (or failed past MAX_ATTEMPTS), then the queued
    submissions with no recent wake-up message: (id, priority) to wake, each marked as sent."""
    now = now or utcnow()
    stale = leases.sweep(
        Submission, MAX_ATTEMPTS, now=now,
        failed_values={"finished_at": now, "progress": {"phase": "failed"},
                       "error": f"the grading worker stopped {MAX_ATTEMPTS} times on this "
                                "engine; the staff will look at it (not charged to you)"},
        requeued_values={"progress": {"phase": "requeued: the worker stopped"}})
    if not stale:
        return []
    priority = {row.id: row.priority for row in db.session.execute(
        sa.select(Submission.id, Submission.priority).where(Submission.id.in_(stale)))}
    db.session.commit()
    return [(i, priority[i]) for i in stale]


# -- the staff's side -----------------------------------------------------------------------


def slot_submissions(user: User, assignment_id: int, index: int) -> tuple[
        Staff, Slot, list[Submission]]:
    who, slot = staff_for_slot(user, assignment_id, index)
    if not is_engine_slot(slot):
        raise NotFound("this exercise takes no engine uploads")
    found = list(db.session.scalars(
        sa.select(Submission).where(Submission.slot_id == slot.id)
        .options(sa.orm.joinedload(Submission.owner)).order_by(Submission.id.desc())))
    return who, slot, found


def _requeue(session: Any, ids: list[int], priority: int) -> None:
    # A rerun starts afresh: its old result goes, its status and attempts are reset.
    session.execute(sa.delete(EngineResult).where(EngineResult.submission_id.in_(ids)))
    session.execute(sa.update(Submission).where(Submission.id.in_(ids)).values(
        status=QUEUED, priority=priority, attempts=0, lease_owner=None, lease_expires_at=None,
        score=None, max_score=None, error=None, progress=None, started_at=None,
        finished_at=None, enqueued_at=None))


def rerun(user: User, submission_id: int) -> Submission:
    """Grade one submission again (instructors); not while it runs."""
    submission = get_submission(user, submission_id)
    staff_for_slot(user, submission.slot.assignment_id, submission.slot.index, change=True)
    with writing() as session:
        status = session.scalar(sa.select(Submission.status)
                                .where(Submission.id == submission_id))
        if status == RUNNING:
            raise Conflict("it is being graded now")
        _requeue(session, [submission_id], NORMAL)
    submission.priority = NORMAL
    wake(submission)
    return submission


def latest_ids(slot_id: int, session: Any = None) -> list[int]:
    """Each student's latest submission of the slot that is not superseded."""
    session = session or db.session
    latest = (sa.select(sa.func.max(Submission.id)).where(
        Submission.slot_id == slot_id, Submission.status != SUPERSEDED)
        .group_by(Submission.owner_id))
    return list(session.scalars(latest))


def rerun_all(user: User, assignment_id: int, index: int) -> int:
    """Regrade every student's latest submission at low priority (uploads go first)."""
    _, slot = staff_for_slot(user, assignment_id, index, change=True)
    with writing() as session:
        ids = [i for i in latest_ids(slot.id, session) if session.scalar(
            sa.select(Submission.status).where(Submission.id == i)) != RUNNING]
        if ids:
            _requeue(session, ids, LOW)
    for submission_id in ids:
        wake(db.session.get(Submission, submission_id), priority=LOW)
    return len(ids)


def engine_scores(course_id: int) -> list[tuple[Any, ...]]:
    """Graded engine submissions of a course for the gradebook, oldest first: (id, user, slot,
    assignment, fraction of the suite's points, penalty, days late, created)."""
    rows = db.session.execute(
        sa.select(Submission.id, Submission.owner_id, Submission.slot_id, Slot.assignment_id,
                  Submission.score, Submission.max_score, Submission.penalty,
                  Submission.days_late, Submission.created_at)
        .join(Slot, Submission.slot_id == Slot.id)
        .join(Assignment, Slot.assignment_id == Assignment.id)
        .where(Assignment.course_id == course_id, Submission.status == DONE)
        .order_by(Submission.id))
    return [(r.id, r.owner_id, r.slot_id, r.assignment_id,
             (r.score or 0.0) / r.max_score if r.max_score else 0.0, r.penalty, r.days_late,
             r.created_at) for r in rows]
