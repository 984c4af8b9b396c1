"""Paper exams printed: an assignment as one sheet per student (or N anonymous, numbered
sheets), with its key, made and rendered as the leased PRINT job.

    request_print --queue (EXAM)--> run_print: the sheets are made (each student's stored
        graded variant, so a sheet's key is the stored key; or a tree per anonymous sheet),
        drawn (gametree.drawing), rendered to PDF (WeasyPrint) and archived as a Blob

A sheet's code is random (`secrets`), printed as text and as a QR code; it says nothing of the
tree or its key. The answers written on the sheets are typed back in by `entry`.
"""

# Whole: a print run from its request to its archive (sheets, PDFs, PRINT job).

from __future__ import annotations

import datetime as dt
import hashlib
import io
import os
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.orm import Session

from grader.extensions import EXAM, db
from grader.models import (
    DONE,
    FAILED,
    PAPER_SIZES,
    QUEUED,
    STUDENT,
    Assignment,
    Course,
    ExamItem,
    ExamPrint,
    ExamSheet,
    Exercise,
    Membership,
    Slot,
    User,
    utcnow,
)
from grader.services import Conflict, Invalid, NotFound, leases
from grader.services.courses.staff import Staff, staff_for_assignment
from grader.services.engines import blobs
from grader.services.leases import runner
from grader.services.paper.allowance import PrintAllowance, print_allowance, student_count
from grader.services.paper.codes import new_code
from grader.services.paper.sheets import print_view, sheet_html
from grader.services.transactions import writing
from grader.services.trees.exercises import graded_variant, variant_seed, variant_tree

MAX_PRINT_ATTEMPTS = 3


RENDER_CHUNK = 25  # sheets rendered per WeasyPrint document (progress between two)


Progress = Callable[[str, int, int], None]  # (phase, done, total)


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
        students = student_count(session, assignment.course_id)
        if anonymous is None and not students:
            raise Invalid(
                "the course has no students yet: print anonymous sheets, or add the roster"
            )
        allowance = print_allowance(session, assignment.course_id)
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


def course_students(course_id: int) -> list[User]:
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
        else list(course_students(run.assignment.course_id))
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
        teacher, assignment, list(runs), print_allowance(db.session(), assignment.course_id)
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
