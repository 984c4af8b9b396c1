"""Paper exams: an assignment printed as one sheet per student (or N anonymous, numbered
sheets), with its key, and the answers written on paper typed back in and graded.

    request_print --queue (EXAM)--> run_print: the sheets are made (each student's stored
        graded variant, so a sheet's key is the stored key; or a tree per anonymous sheet),
        drawn (gametree.drawing), rendered to PDF (WeasyPrint) and archived as a Blob
    open_item / save_entry: a TA or instructor opens a sheet by its code and types what is
        written on it; the same grader grades it, and it is stored as the student's attempt
        "on paper, entered by <TA>", every change kept in the attempt's history

A sheet's code is random (`secrets`), printed as text and as a QR code; it says nothing of the
tree or its key. The key of a sheet is shown on the entry page only once its answer is saved.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import logging
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.orm import Session

from grader.extensions import EXAM, db
from grader.gametree import KINDS, Conventions, Tree, grade
from grader.models import (
    DONE,
    FAILED,
    PAPER_SIZES,
    QUEUED,
    RUNNING,
    STUDENT,
    Assignment,
    Attempt,
    Course,
    ExamItem,
    ExamPrint,
    ExamSheet,
    Exercise,
    Membership,
    Slot,
    User,
    iso_utc,
    utcnow,
)
from grader.services import Conflict, Invalid, NotFound, RateLimited, Unprocessable, leases, outbox
from grader.services.courses.courses import check_open
from grader.services.courses.staff import Staff, staff, staff_for_assignment
from grader.services.engines import blobs
from grader.services.leases import runner
from grader.services.paper.codes import new_code, read_code, shown_code
from grader.services.paper.sheets import print_view, sheet_html
from grader.services.transactions import writing
from grader.services.trees.attempts import solution
from grader.services.trees.exercises import (
    graded_variant,
    store_graded_variant,
    tree_of,
    variant_seed,
    variant_tree,
)

log = logging.getLogger(__name__)

MAX_PRINT_ATTEMPTS = 3
RENDER_CHUNK = 25  # sheets rendered per WeasyPrint document (progress between two)

Progress = Callable[[str, int, int], None]  # (phase, done, total)


# -- printing ---------------------------------------------------------------------------------


def printable_slots(assignment: Assignment) -> tuple[list[Slot], list[Slot]]:
    """The slots a sheet carries (tree exercises) and those it skips (engine slots)."""
    trees = [s for s in assignment.slots if s.slot_kind.has_exercise]
    return trees, [s for s in assignment.slots if not s.slot_kind.has_exercise]


def request_print(
    user: User,
    assignment_id: int,
    *,
    paper: str = "a4",
    anonymous: int | None = None,
    enqueue: bool = True,
) -> ExamPrint:
    """A print run of the assignment, queued (the worker makes and renders the sheets); only
    the course's instructors print."""
    staff_for_assignment(user, assignment_id, change=True)
    return create_print(
        assignment_id, paper=paper, anonymous=anonymous, requested_by=user, enqueue=enqueue
    )


def create_print(
    assignment_id: int,
    *,
    paper: str = "a4",
    anonymous: int | None = None,
    requested_by: User | None = None,
    enqueue: bool = True,
) -> ExamPrint:
    """A print run, checked (the operator's CLI calls this directly; pages call
    `request_print`, which checks who asks first) and bounded: its sheets, the course's and the
    service's sheets in 24 hours, one run of a course at a time (`PrintAllowance`); a refusal
    stores and queues nothing."""
    assignment = db.session.get(Assignment, assignment_id)
    if assignment is None:
        raise NotFound(f"no assignment {assignment_id}")
    if paper not in PAPER_SIZES:
        raise Invalid(f"paper must be one of {', '.join(PAPER_SIZES)}, not {paper!r}")
    if anonymous is not None and anonymous < 1:
        raise Invalid(f"anonymous sheets: at least 1, not {anonymous}")
    trees, _ = printable_slots(assignment)
    if not trees:
        raise Invalid(
            "this assignment has no tree exercise to print (engine slots are not printed)"
        )
    with writing() as session:
        # One request of a course at a time from here to the commit (SQLite's write lock is
        # the whole database's already), so two cannot both pass the bounds.
        session.execute(
            sa.select(Course.id).where(Course.id == assignment.course_id).with_for_update()
        )
        students = _student_count(session, assignment.course_id)
        if anonymous is None and not students:
            raise Invalid(
                "the course has no students yet: print anonymous sheets, or add the roster"
            )
        allowance = _allowance(session, assignment.course_id)
        allowance.refuse(anonymous if anonymous is not None else students, anonymous is None)
        run = ExamPrint(
            assignment_id=assignment.id,
            requested_by_id=requested_by.id if requested_by is not None else None,
            paper=paper,
            anonymous=anonymous,
            status=QUEUED,
            progress={"phase": "queued", "done": 0, "total": 0},
        )
        session.add(run)
    if enqueue:
        PRINT.wake(run.id)
    return run


DAY = dt.timedelta(hours=24)


@dataclass(frozen=True)
class PrintAllowance:
    """What a course may print now: the service's bounds (GRADER_EXAM_SHEETS_*), the sheets
    counted in the last 24 hours (oldest first, with when each run was asked for), and the
    course's run still queued or running, if any (a course prints one run at a time).

    A run counts from when it was asked for, done, failed or pending: its anonymous sheets, else
    the sheets it made once over, else (queued or running) the course's students now."""

    per_print: int
    per_course_day: int
    per_day: int
    course_runs: list[tuple[dt.datetime, int]]
    service_runs: list[tuple[dt.datetime, int]]
    pending: ExamPrint | None
    now: dt.datetime

    @property
    def course_sheets(self) -> int:
        return sum(n for _, n in self.course_runs)

    @property
    def service_sheets(self) -> int:
        return sum(n for _, n in self.service_runs)

    def refuse(self, sheets: int, roster: bool) -> None:
        """Raises the first bound that ``sheets`` more would break, in words; else nothing."""
        if self.pending is not None:
            run = self.pending
            raise Conflict(
                f"print run {run.id} of “{run.assignment.title}” is still {run.status} "
                f"(asked for at {run.created_at:%Y-%m-%d %H:%M} UTC): a course prints one run "
                "at a time, so print again once it has finished"
            )
        if sheets > self.per_print:
            how = (
                f"one sheet per student makes {sheets} sheets"
                if roster
                else f"{sheets} anonymous sheets asked for"
            )
            raise Invalid(
                f"a print run makes at most {self.per_print} sheets (the service's limit); "
                f"{how}: print anonymous sheets in runs of {self.per_print} or fewer "
                "(each is tied to its student when the answers are entered)"
            )
        for runs, limit, whose in (
            (self.course_runs, self.per_course_day, "this course"),
            (self.service_runs, self.per_day, "the service, for all its courses,"),
        ):
            used = sum(n for _, n in runs)
            if used + sheets <= limit:
                continue
            when = self._fits(runs, limit, sheets)
            retry = max(1, math.ceil((when - self.now).total_seconds()))
            raise RateLimited(
                f"{whose} printed or queued {used} sheets in the last 24 hours, and may print "
                f"{limit} a day: {sheets} more would pass it ({max(0, limit - used)} can be "
                f"printed now; these {sheets} from {when:%Y-%m-%d %H:%M} UTC)",
                retry_after=retry,
            )

    def _fits(self, runs: list[tuple[dt.datetime, int]], limit: int, sheets: int) -> dt.datetime:
        """When enough of ``runs`` have left the 24 hours for ``sheets`` more."""
        left = sum(n for _, n in runs)
        for asked_at, n in runs:
            left -= n
            if left + sheets <= limit:
                return asked_at + DAY
        return self.now + DAY


def _student_count(session: Session, course_id: int) -> int:
    return int(
        session.scalar(
            sa.select(sa.func.count(Membership.user_id)).where(
                Membership.course_id == course_id, Membership.role == STUDENT
            )
        )
        or 0
    )


def _counted_runs(
    session: Session, since: dt.datetime, course_id: int | None
) -> list[tuple[dt.datetime, int]]:
    """(asked at, sheets) of the runs asked for since ``since``, oldest first (PrintAllowance
    says how a run counts)."""
    made = (
        sa.select(sa.func.count(ExamSheet.id))
        .where(ExamSheet.print_id == ExamPrint.id)
        .scalar_subquery()
    )
    query = (
        sa.select(
            ExamPrint.created_at,
            ExamPrint.anonymous,
            ExamPrint.status,
            made,
            Assignment.course_id,
        )
        .join(Assignment, Assignment.id == ExamPrint.assignment_id)
        .where(ExamPrint.created_at >= since)
        .order_by(ExamPrint.created_at, ExamPrint.id)
    )
    if course_id is not None:
        query = query.where(Assignment.course_id == course_id)
    roster: dict[int, int] = {}
    counted = []
    for asked_at, anonymous, status, sheets, course in session.execute(query):
        if anonymous is not None:
            n = anonymous
        elif status in (QUEUED, RUNNING):
            if course not in roster:
                roster[course] = _student_count(session, course)
            n = roster[course]
        else:
            n = sheets
        counted.append((asked_at, int(n)))
    return counted


def _allowance(session: Session, course_id: int) -> PrintAllowance:
    config = current_app.config
    now = utcnow()
    pending = session.scalar(
        sa.select(ExamPrint)
        .join(Assignment, Assignment.id == ExamPrint.assignment_id)
        .where(Assignment.course_id == course_id, ExamPrint.status.in_([QUEUED, RUNNING]))
        .order_by(ExamPrint.id)
        .limit(1)
    )
    return PrintAllowance(
        per_print=int(config["GRADER_EXAM_SHEETS_PER_PRINT"]),
        per_course_day=int(config["GRADER_EXAM_SHEETS_PER_COURSE_DAY"]),
        per_day=int(config["GRADER_EXAM_SHEETS_PER_DAY"]),
        course_runs=_counted_runs(session, now - DAY, course_id),
        service_runs=_counted_runs(session, now - DAY, None),
        pending=pending,
        now=now,
    )


def _students(course_id: int) -> list[User]:
    return list(
        db.session.scalars(
            sa.select(User)
            .join(Membership, Membership.user_id == User.id)
            .where(Membership.course_id == course_id, Membership.role == STUDENT)
            .order_by(sa.func.lower(sa.func.coalesce(Membership.name, User.name, User.email)))
        )
    )


def make_sheets(print_id: int, progress: Progress | None = None) -> list[ExamSheet]:
    """The run's sheets, made once (a run taken up again after a worker died keeps those made):
    a sheet per student, each item the student's stored graded variant (made now if the student
    never opened it), or ``anonymous`` numbered sheets, each with a tree of its own."""
    run = db.session.get(ExamPrint, print_id)
    if run is None:
        raise NotFound("no such print run")
    trees, _ = printable_slots(run.assignment)
    people: list[User | None] = (
        [None] * run.anonymous
        if run.anonymous is not None
        else list(_students(run.assignment.course_id))
    )
    made = {s.number for s in run.sheets}
    for number, person in enumerate(people, start=1):
        if number not in made:
            with writing() as session:
                _sheet(session, run, number, person, trees)
        if progress:
            progress("sheets", number, len(people))
    db.session.expire(run, ["sheets"])
    return list(run.sheets)


def _sheet(
    session: Session, run: ExamPrint, number: int, person: User | None, trees: list[Slot]
) -> ExamSheet:
    sheet = ExamSheet(code=new_code(), print_run=run, number=number, user=person)
    session.add(sheet)
    for slot in trees:
        if person is not None:
            exercise: Exercise | None = graded_variant(session, slot, person)
            assert exercise is not None
            tree = {"tree": exercise.tree, "players": exercise.players}
            seed, version, params = exercise.seed, exercise.generator_version, exercise.params
        else:
            exercise = None
            seed = variant_seed(run.assignment_id, slot.index, -run.id, number)
            built, params = variant_tree(slot, seed)
            tree = built.to_dict()
            version = None
        session.add(
            ExamItem(
                sheet=sheet,
                slot=slot,
                slot_index=slot.index,
                exercise=exercise,
                seed=seed,
                generator_version=version,
                params=params,
                tree=tree,
            )
        )
    return sheet


@dataclass(frozen=True)
class PrintFiles:
    """What a run makes: one PDF per sheet (file name, bytes), all sheets in one, the key."""

    sheets: list[tuple[str, bytes]]
    combined: bytes
    key: bytes

    def archive(self) -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:  # PDFs are compressed already
            for name, data in self.sheets:
                z.writestr(f"sheets/{name}", data)
            z.writestr("all-sheets.pdf", self.combined)
            z.writestr("key.pdf", self.key)
        return out.getvalue()


def sheet_filename(sheet: ExamSheet) -> str:
    who = sheet.user.email.split("@")[0] if sheet.user is not None else "anonymous"
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in who)[:60]
    return f"{sheet.number:03d}-{safe}-{sheet.code}.pdf"


def render_print(print_id: int, progress: Progress | None = None) -> PrintFiles:
    """The run's PDFs, from its sheets (`make_sheets` first). Each sheet's HTML, and the key's
    in chunks of RENDER_CHUNK sheets, are written to files that one process a core renders and
    paints once each (services/paper/exam_pdf.py); pikepdf (qpdf) joins the sheets' PDFs into one for
    the print shop, painting nothing again."""
    import pikepdf

    run = db.session.get(ExamPrint, print_id)
    if run is None:
        raise NotFound("no such print run")
    sheets = list(run.sheets)
    trees, skipped = printable_slots(run.assignment)
    chunks = [sheets[i : i + RENDER_CHUNK] for i in range(0, len(sheets), RENDER_CHUNK)]
    with tempfile.TemporaryDirectory(prefix="exam-") as tmp:
        folder = Path(tmp)
        for number, sheet in enumerate(sheets):
            (folder / f"sheet-{number:05d}.html").write_text(
                sheet_html(print_view(run, [sheet], trees, skipped, key=False))
            )
        for number, chunk in enumerate(chunks):
            (folder / f"zkey-{number:05d}.html").write_text(
                sheet_html(print_view(run, chunk, trees, skipped, key=True))
            )
        _render_all(folder, len(sheets) + len(chunks), progress, len(sheets))
        combined, key = pikepdf.new(), pikepdf.new()
        per_sheet: list[tuple[str, bytes]] = []
        for number, sheet in enumerate(sheets):
            path = folder / f"sheet-{number:05d}.pdf"
            per_sheet.append((sheet_filename(sheet), path.read_bytes()))
            combined.pages.extend(pikepdf.open(path).pages)
            if progress and number % RENDER_CHUNK == 0:  # the lease renewed while joining
                progress("join", number, len(sheets))
        for number in range(len(chunks)):
            key.pages.extend(pikepdf.open(folder / f"zkey-{number:05d}.pdf").pages)
        files = PrintFiles(sheets=per_sheet, combined=_pdf_bytes(combined), key=_pdf_bytes(key))
        if progress:
            progress("join", len(sheets), len(sheets))
        return files


def _render_all(folder: Path, files: int, progress: Progress | None, sheets: int) -> None:
    """One `exam_pdf` process a core over the chunks in ``folder``; progress as they finish."""
    count = max(1, min(os.cpu_count() or 1, files))
    logs = [folder / f"render-{i}.log" for i in range(count)]
    processes = []
    for i, log_path in enumerate(logs):  # a file, not a pipe: a chatty renderer never blocks
        with log_path.open("w") as errors:
            processes.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "grader.services.paper.exam_pdf",
                        str(folder),
                        str(i),
                        str(count),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=errors,
                )
            )
    try:
        while any(p.poll() is None for p in processes):
            if progress:
                done = len(list(folder.glob("*.pdf")))
                progress("render", min(sheets, done * sheets // files), sheets)
            time.sleep(0.5)
    finally:
        for p in processes:
            if p.poll() is None:
                p.kill()
                p.wait()
    failed = [log for p, log in zip(processes, logs, strict=True) if p.returncode != 0]
    if failed:
        raise RuntimeError(f"rendering the sheets failed: {failed[0].read_text()[-2000:]}")
    if progress:
        progress("render", sheets, sheets)


def _pdf_bytes(pdf: Any) -> bytes:
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def print_to_dir(
    assignment_id: int,
    out: Path,
    *,
    paper: str = "a4",
    anonymous: int | None = None,
    progress: Progress | None = None,
) -> tuple[ExamPrint, PrintFiles]:
    """`grader exam print` (the operator's): a run made and rendered here under this process's
    lease, renewed by the runner's heartbeat (no worker takes it up meanwhile), its files
    written to ``out``: sheets/, all-sheets.pdf, key.pdf; the archive kept as a queued run's
    is, so the entry pages find its sheets. An error fails the run (the course may print again)
    and is raised."""
    run = create_print(assignment_id, paper=paper, anonymous=anonymous, enqueue=False)
    worker = f"cli:{socket.gethostname()}:{os.getpid()}"
    with writing() as session:
        leases.claim(session, ExamPrint, run.id, worker)
    beat = runner.Heartbeat(
        current_app._get_current_object(),  # type: ignore[attr-defined]  # Flask types the proxy as the app
        f"exam print {run.id}",
        lambda values: PRINT.beat(run.id, worker, values),
        leases.lease_seconds() / 4,
    )

    def report(phase: str, done: int, total: int) -> None:
        beat.update({"phase": phase, "done": done, "total": total})
        if progress is not None:
            progress(phase, done, total)

    beat.start()
    try:
        make_sheets(run.id, report)
        files = render_print(run.id, report)
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"[:2000]
        with writing() as session:
            leases.finish(
                session, ExamPrint, run.id, worker, FAILED, error=message, finished_at=utcnow()
            )
        raise
    finally:
        beat.stop.set()
        beat.join()
    (out / "sheets").mkdir(parents=True, exist_ok=True)
    for name, data in files.sheets:
        (out / "sheets" / name).write_bytes(data)
    (out / "all-sheets.pdf").write_bytes(files.combined)
    (out / "key.pdf").write_bytes(files.key)
    with writing() as session:
        _finish(session, run.id, worker, files.archive(), len(files.sheets))
    return run, files


def _finish(session: Session, print_id: int, worker: str, data: bytes, sheets: int) -> bool:
    """The archive stored and the run done, while ``worker`` holds its lease."""
    sha = hashlib.sha256(data).hexdigest()
    blobs.store().put(session, sha, data)
    return leases.finish(
        session,
        ExamPrint,
        print_id,
        worker,
        DONE,
        result_sha256=sha,
        finished_at=utcnow(),
        progress={"phase": "done", "done": sheets, "total": sheets},
    )


class PrintJob(runner.JobKind[int, tuple[bytes, int]]):
    """A print as a leased job: its sheets made and rendered, their archive stored; an error
    of ours gives the run back to the queue (failed after MAX_PRINT_ATTEMPTS claims)."""

    job, noun, model = EXAM, "exam print", ExamPrint

    def claim(self, job_id: int, worker: str) -> int | None:
        with writing() as session:
            return job_id if leases.claim(session, ExamPrint, job_id, worker) else None

    def run(self, claimed: int, progress: runner.Progress) -> tuple[bytes, int]:
        def report(phase: str, done: int, total: int) -> None:
            progress({"phase": phase, "done": done, "total": total})

        make_sheets(claimed, report)
        files = render_print(claimed, report)
        return files.archive(), len(files.sheets)

    def give_back(self, job_id: int, worker: str, message: str) -> str | None:
        message = message[:2000]
        return leases.give_back(
            ExamPrint,
            job_id,
            worker,
            MAX_PRINT_ATTEMPTS,
            {"error": message},
            {"error": message, "finished_at": utcnow()},
        )

    def record(self, job_id: int, worker: str, result: tuple[bytes, int]) -> bool:
        data, sheets = result
        with writing() as session:
            return _finish(session, job_id, worker, data, sheets)


PRINT = PrintJob()


def run_print(print_id: int, worker: str) -> str:
    """The queue's job: the print run by the leased-job runner (its outcome)."""
    return runner.run(PRINT, print_id, worker)


def sweep_prints(now: dt.datetime | None = None) -> list[int]:
    return leases.sweep(
        ExamPrint,
        MAX_PRINT_ATTEMPTS,
        failed_values={"error": "the worker printing it stopped, three times"},
        requeued_values={},
        now=now,
    )


@dataclass(frozen=True)
class PrintRuns:
    """The print page: the assignment's runs, newest first, and what the course may print."""

    staff: Staff
    assignment: Assignment
    runs: list[ExamPrint]
    allowance: PrintAllowance


def print_runs(user: User, assignment_id: int) -> PrintRuns:
    """The assignment's print runs, newest first, for its instructors."""
    teacher, assignment = staff_for_assignment(user, assignment_id, change=True)
    runs = db.session.scalars(
        sa.select(ExamPrint)
        .where(ExamPrint.assignment_id == assignment.id)
        .order_by(ExamPrint.id.desc())
    )
    return PrintRuns(
        teacher, assignment, list(runs), _allowance(db.session(), assignment.course_id)
    )


def get_print(user: User, print_id: int) -> ExamPrint:
    run = db.session.get(ExamPrint, print_id)
    if run is None:
        raise NotFound("no such print run")
    staff_for_assignment(user, run.assignment_id, change=True)
    return run


PRINT_FILES = ("sheets.zip", "all-sheets.pdf", "key.pdf")


def print_file(user: User, print_id: int, name: str) -> bytes:
    """One file of a finished run: the archive, or its combined sheets or key."""
    run = get_print(user, print_id)
    if name not in PRINT_FILES:
        raise NotFound(f"a print run has {', '.join(PRINT_FILES)}, not {name!r}")
    if run.status != DONE or run.result_sha256 is None:
        raise Conflict(
            "this print run has failed: print again"
            if run.status == FAILED
            else "this print run is not finished yet"
        )
    data = blobs.store().get(run.result_sha256)
    if name == "sheets.zip":
        return data
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return z.read(name)


# -- entering the answers written on paper ------------------------------------------------------


def find_sheet(user: User, code: str) -> ExamSheet:
    """A sheet of a course ``user`` teaches or assists (TAs enter answers too); NotFound for
    any other code, so a code reveals nothing of another course."""
    sheet = db.session.scalar(sa.select(ExamSheet).where(ExamSheet.code == read_code(code)))
    if sheet is None:
        raise NotFound(f"no exam sheet has the code {code.strip()[:40]!r}")
    try:
        staff(user, sheet.print_run.assignment.course_id)
    except Exception as exc:  # Forbidden or NotFound: the same answer, no sheet here
        raise NotFound(f"no exam sheet has the code {code.strip()[:40]!r}") from exc
    return sheet


@dataclass(frozen=True)
class Entry:
    """One question of a sheet as the entry page shows it."""

    sheet: ExamSheet
    item: ExamItem
    exercise: dict[str, Any]  # what the tree view needs (the page's exercise JSON)
    attempt: Attempt | None  # the answer entered so far, if any
    version: int  # entries so far: a save names the version it saw
    solution: dict[str, Any] | None  # the key: only once the answer has been saved
    students: list[tuple[int, str]] = field(default_factory=list)  # an untied sheet's choice
    next_url: tuple[str, int] | None = None  # the next question: (sheet code, slot index)


def _item(sheet: ExamSheet, slot_index: int) -> ExamItem:
    item = next((i for i in sheet.items if i.slot_index == slot_index), None)
    if item is None:
        raise NotFound("this sheet has no such question")
    return item


def _version(attempt: Attempt | None) -> int:
    return len(attempt.history or []) if attempt is not None else 0


def open_item(user: User, code: str, slot_index: int) -> Entry:
    sheet = find_sheet(user, code)
    item = _item(sheet, slot_index)
    attempt = db.session.get(Attempt, item.attempt_id) if item.attempt_id is not None else None
    tree = Tree.from_dict(item.tree)
    slot = item.slot
    conventions = Conventions.from_dict(slot.conventions)
    kind = KINDS[slot.kind]
    exercise = {
        "id": item.exercise_id or 0,
        "kind": slot.kind,
        "prompt": kind.prompt,
        "tree": item.tree["tree"],
        "players": item.tree["players"],
        "labels": tree.labels(),
        "conventions": slot.conventions,
        "conventions_text": kind.conventions_words(conventions, tree),
        "practice": False,
        "attempts_allowed": None,
        "attempts_used": 0,
        "replay_allowed": False,
        "solution_when": "once this sheet's answer is saved",
    }
    key = None
    if attempt is not None:
        key = {"key": kind.key(tree, conventions), "search": None}
    students = []
    if sheet.user_id is None:
        students = [(s.id, s.email) for s in _students(sheet.print_run.assignment.course_id)]
    return Entry(
        sheet, item, exercise, attempt, _version(attempt), key, students, _next(sheet, item)
    )


def _next(sheet: ExamSheet, item: ExamItem) -> tuple[str, int] | None:
    later = [i for i in sheet.items if i.slot_index > item.slot_index]
    if later:
        return sheet.code, later[0].slot_index
    following = db.session.scalar(
        sa.select(ExamSheet)
        .where(ExamSheet.print_id == sheet.print_id, ExamSheet.number > sheet.number)
        .order_by(ExamSheet.number)
        .limit(1)
    )
    if following is None or not following.items:
        return None
    return following.code, following.items[0].slot_index


def save_entry(
    user: User,
    code: str,
    slot_index: int,
    answer: dict[str, Any],
    *,
    version: int,
    confirm: bool = False,
    student_id: int | None = None,
) -> tuple[Attempt, dict[str, Any]]:
    """Grades what is written on a sheet and stores it as the student's attempt on paper.

    ``version`` is the number of entries the page showed: a save over an entry made since
    (another TA's) is refused and says whose it is; a change of a saved answer needs
    ``confirm``. An anonymous sheet is tied to ``student_id`` at its first save, its trees
    then becoming the student's graded variants. Returns the attempt and the key."""
    sheet = find_sheet(user, code)
    item = _item(sheet, slot_index)
    slot = item.slot
    check_open(slot.assignment.course)
    tree = Tree.from_dict(item.tree)
    conventions = Conventions.from_dict(slot.conventions)
    try:
        graded = grade(slot.kind, tree, conventions, answer)
    except ValueError as exc:
        raise Unprocessable(f"this is a {slot.kind} exercise: {exc}", slot.kind) from exc
    with writing() as session:
        session.refresh(sheet)
        session.refresh(item)
        if sheet.user_id is None:
            _tie(session, sheet, student_id)
        elif student_id is not None and student_id != sheet.user_id:
            raise Conflict("this sheet belongs to another student already")
        student = sheet.user
        assert student is not None and item.exercise_id is not None
        attempt = session.get(Attempt, item.attempt_id) if item.attempt_id is not None else None
        seen = _version(attempt)
        if version != seen:
            raise Conflict(_changed_words(attempt, "since you opened this sheet") + " Reload it.")
        if attempt is not None and attempt.answer == answer:
            return attempt, _key(item, tree, graded)
        if attempt is not None and not confirm:
            raise Conflict(
                _changed_words(attempt, "already")
                + " Tick “Replace the saved answer” to change it."
            )
        now = utcnow()
        entry = {
            "answer": answer,
            "score": graded.score,
            "entered_by": user.email,
            "entered_at": iso_utc(now),
        }
        fields = {"answer": answer, **graded.to_dict(), "entered_by_id": user.id}  # Attempt.GRADED
        if attempt is None:
            exercise = session.get(Exercise, item.exercise_id)
            assert exercise is not None
            attempt = Attempt(
                exercise_id=exercise.id,
                user_id=student.id,
                **{name: getattr(exercise, name) for name in Attempt.FROM_EXERCISE},
                created_at=now,
                history=[entry],
                **fields,
            )
            session.add(attempt)
            session.flush()
            item.attempt_id = attempt.id
        else:
            for name, value in fields.items():
                setattr(attempt, name, value)
            attempt.history = [*(attempt.history or []), entry]
        outbox.passback_after_commit(session, [(student.id, slot.id)])
    return attempt, _key(item, tree, graded)


def _key(item: ExamItem, tree: Tree, graded: Any) -> dict[str, Any]:
    exercise = item.exercise
    assert exercise is not None
    return solution(exercise, tree_of(exercise), graded, with_search=False)


def _changed_words(attempt: Attempt | None, when: str) -> str:
    if attempt is None or not attempt.history:
        return f"This sheet's answer was removed {when}."
    last = attempt.history[-1]
    kind = KINDS[attempt.kind]
    tree = tree_of(attempt.exercise)
    words = kind.describe(last["answer"], tree.labels())
    return (
        f"{last['entered_by']} saved an answer to this question {when} "
        f"({last['entered_at']}: {words}; score {last['score']:.2f})."
    )


def _tie(session: Session, sheet: ExamSheet, student_id: int | None) -> None:
    """An anonymous sheet becomes ``student_id``'s: its trees their graded variants."""
    if student_id is None:
        raise Invalid("choose the student this sheet belongs to before saving its first answer")
    course_id = sheet.print_run.assignment.course_id
    role = session.scalar(
        sa.select(Membership.role).where(
            Membership.course_id == course_id, Membership.user_id == student_id
        )
    )
    if role != STUDENT:
        raise Invalid("the sheet's student must be a student of this course")
    taken = session.scalar(
        sa.select(ExamSheet.code).where(
            ExamSheet.print_id == sheet.print_id, ExamSheet.user_id == student_id
        )
    )
    if taken is not None:
        raise Conflict(f"this student's sheet is {shown_code(taken)} already")
    student = session.get(User, student_id)
    assert student is not None
    for item in sheet.items:
        item.exercise = store_graded_variant(
            session,
            item.slot,
            student,
            Tree.from_dict(item.tree),
            seed=item.seed,
            params=item.params,
        )
    sheet.user = student
