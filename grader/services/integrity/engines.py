"""Engine similarity: every student's latest submission of an engine slot compared with every
other (and, when asked, with the latest submissions of earlier offerings: other courses'
engine slots on the same suite, of courses the asking instructor teaches), by the fingerprints
of `fingerprints`; the pairs ranked; a pair side by side.

The comparison is O(n^2) in submissions, so it runs as a queue job (`checks`, `run`); each
pair's figures are kept by the two uploads' content hashes (`SimilarityPair`), and a later
check computes only the pairs it has not seen. An upload that cannot be read as Python text
(binary, not UTF-8, a broken archive, bytes lost) is skipped, with the reason on the page.
Nothing here changes a score.
"""

# Whole: one check: request, cached comparisons, report, a pair side by side.

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from grader.extensions import db
from grader.models import (
    ENGINES_CHECK,
    INSTRUCTOR,
    Assignment,
    Course,
    IntegrityCheck,
    Membership,
    SimilarityPair,
    Slot,
    Submission,
    User,
    iso_utc,
    utcnow,
)
from grader.services import Invalid, NotFound
from grader.services.courses.staff import Staff, staff_for_slot
from grader.services.engines import blobs
from grader.services.engines.submissions import (
    DEFAULT_SUITE,
    ENGINE_SLOTS,
    is_engine_slot,
    latest_ids,
)
from grader.services.integrity import checks
from grader.services.integrity.fingerprints import (
    Document,
    Figures,
    Region,
    Unreadable,
    basis,
    compare,
    document,
    regions,
    source_text,
)
from grader.services.transactions import writing

Progress = Callable[[dict[str, Any]], None]

MAX_PAIRS = 2000  # the pairs a check keeps, highest first (the rest are near 0)
STORE_CHUNK = 500  # cached figures written per statement


def _suite(slot: Slot) -> str:
    return str((slot.params or {}).get("suite", DEFAULT_SUITE))


def _engine_slot(
    user: User, assignment_id: int, index: int, *, change: bool = False
) -> tuple[Staff, Slot]:
    """The staff member (who may see integrity checks) and the engine slot."""
    who, slot = staff_for_slot(user, assignment_id, index)
    checks.integrity_staff(user, who.course.id, change=change)
    if not is_engine_slot(slot):
        raise NotFound("this exercise takes no engine uploads")
    return who, slot


def earlier_slots(slot: Slot, teacher: User | None) -> list[Slot]:
    """Earlier offerings of the slot: engine slots on the same suite in other courses, of
    assignments made before this one; of the courses `teacher` is an instructor of (every
    course for the operator's command line, `teacher` None)."""
    query = (
        sa.select(Slot)
        .join(Assignment)
        .where(
            ENGINE_SLOTS,
            Assignment.course_id != slot.assignment.course_id,
            Assignment.created_at < slot.assignment.created_at,
        )
        .order_by(Slot.id)
    )
    if teacher is not None:
        query = query.where(
            Assignment.course_id.in_(
                sa.select(Membership.course_id).where(
                    Membership.user_id == teacher.id, Membership.role == INSTRUCTOR
                )
            )
        )
    return [s for s in db.session.scalars(query) if _suite(s) == _suite(slot)]


def request_check(
    user: User | None,
    assignment_id: int,
    index: int,
    *,
    earlier: bool = False,
    wake: bool = True,
) -> IntegrityCheck:
    """Ask for the slot's similarity check (instructors; `user` None: the operator's command
    line). Queued for a worker unless `wake` is False."""
    if user is not None:
        _engine_slot(user, assignment_id, index, change=True)
    assignment = db.session.get(Assignment, assignment_id)
    slot = next((s for s in assignment.slots if s.index == index), None) if assignment else None
    if slot is None or not is_engine_slot(slot):
        raise NotFound("no engine slot there")
    older = [s.id for s in earlier_slots(slot, user)] if earlier else []
    params = {"earlier": earlier, "earlier_slots": older}
    return checks.request(ENGINES_CHECK, assignment_id, slot.id, params, user, wake=wake)


def latest_check(user: User, assignment_id: int, index: int) -> IntegrityCheck | None:
    """The slot's last similarity check, for the staff who may see it (the page polls it)."""
    _, slot = _engine_slot(user, assignment_id, index)
    return checks.latest(ENGINES_CHECK, assignment_id, slot.id)


# -- the job --------------------------------------------------------------------------------


def _latest(slot_id: int) -> list[Submission]:
    ids = latest_ids(slot_id)
    return list(
        db.session.scalars(
            sa.select(Submission).where(Submission.id.in_(ids)).order_by(Submission.id)
        )
    )


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def _read(submission: Submission) -> Document:
    """The upload's fingerprint; Unreadable with the reason when it cannot be compared."""
    try:
        raw = blobs.store().get(submission.sha256)
    except blobs.MissingBlob:
        raise Unreadable("its bytes are not stored") from None
    kind = PurePosixPath(submission.stored_path).suffix.lstrip(".")
    return document(source_text(raw, kind))


def _cached(key: str, shas: set[str]) -> dict[tuple[str, str], Figures]:
    found: dict[tuple[str, str], Figures] = {}
    ordered = sorted(shas)
    for start in range(0, len(ordered), 400):  # bounded IN lists
        chunk = ordered[start : start + 400]
        rows = db.session.execute(
            sa.select(SimilarityPair).where(
                SimilarityPair.basis == key, SimilarityPair.sha_a.in_(chunk)
            )
        ).scalars()
        for row in rows:
            if row.sha_b in shas:
                found[row.sha_a, row.sha_b] = Figures(row.similarity, row.a_share, row.b_share)
    return found


def _store(key: str, figures: dict[tuple[str, str], Figures]) -> None:
    rows = [
        {
            "basis": key,
            "sha_a": a,
            "sha_b": b,
            "similarity": f.similarity,
            "a_share": f.a_share,
            "b_share": f.b_share,
            "created_at": utcnow(),
        }
        for (a, b), f in figures.items()
    ]
    for start in range(0, len(rows), STORE_CHUNK):
        chunk = rows[start : start + STORE_CHUNK]
        with writing() as session:
            dialect = session.get_bind().dialect.name
            statement: Any = sa.insert(SimilarityPair)
            if dialect in ("sqlite", "postgresql"):  # another check stored them meanwhile
                insert = (sqlite if dialect == "sqlite" else postgresql).insert(SimilarityPair)
                statement = insert.on_conflict_do_nothing()
            session.connection().execute(statement, chunk)  # one statement, many rows


def compute(check: IntegrityCheck, progress: Progress) -> dict[str, Any]:
    """The check's result: the pairs (submission ids, figures) highest first, the skipped
    submissions with their reasons, how many pairs were compared and how many read back."""
    assert check.slot_id is not None
    current = _latest(check.slot_id)
    earlier = [s for slot_id in check.params.get("earlier_slots", []) for s in _latest(slot_id)]
    wanted = list(itertools.combinations(current, 2)) + [(a, b) for a in current for b in earlier]
    key = basis().key
    shas = {s.sha256 for s in current + earlier}
    known = _cached(key, shas)
    missing = {_key(a.sha256, b.sha256) for a, b in wanted} - set(known)
    to_read = sorted({sha for pair in missing for sha in pair})
    progress({"phase": "fingerprints", "done": 0, "total": len(to_read)})
    by_sha = {s.sha256: s for s in current + earlier}
    documents: dict[str, Document] = {}
    unreadable: dict[str, str] = {}
    for done, sha in enumerate(to_read, 1):
        try:
            documents[sha] = _read(by_sha[sha])
        except Unreadable as exc:
            unreadable[sha] = str(exc)
        progress({"phase": "fingerprints", "done": done, "total": len(to_read)})
    pending = sorted(p for p in missing if p[0] in documents and p[1] in documents)
    fresh: dict[tuple[str, str], Figures] = {}
    for done, (a, b) in enumerate(pending, 1):
        fresh[a, b] = compare(documents[a], documents[b])
        if done % 64 == 0 or done == len(pending):
            progress({"phase": "comparing", "done": done, "total": len(pending)})
    _store(key, fresh)
    figures = {**known, **fresh}
    pairs = []
    for left, right in wanted:
        f = figures.get(_key(left.sha256, right.sha256))
        if f is None or f.similarity <= 0:
            continue
        # The figures' shares are in the order of the content hashes.
        first, second = (left, right) if left.sha256 <= right.sha256 else (right, left)
        pairs.append(
            {
                "a": first.id,
                "b": second.id,
                "similarity": f.similarity,
                "a_share": f.a_share,
                "b_share": f.b_share,
            }
        )
    pairs.sort(key=lambda p: (-p["similarity"], p["a"], p["b"]))
    skipped = [
        {"submission": s.id, "reason": unreadable[s.sha256]}
        for s in current + earlier
        if s.sha256 in unreadable
    ]
    return {
        "basis": key,
        "submissions": len(current),
        "earlier_submissions": len(earlier),
        "pairs": pairs[:MAX_PAIRS],
        "pairs_total": len(pairs),
        "compared": len(fresh),
        "cached": sum(1 for a, b in wanted if _key(a.sha256, b.sha256) in known),
        "skipped": skipped,
    }


# -- what the staff read ----------------------------------------------------------------------


@dataclass(frozen=True)
class PairRow:
    a: Submission
    b: Submission
    a_label: str
    b_label: str
    similarity: float
    a_share: float
    b_share: float


@dataclass
class EngineReport:
    staff: Staff
    slot: Slot
    check: IntegrityCheck | None
    rows: list[PairRow] = field(default_factory=list)
    skipped: list[tuple[Submission, str, str]] = field(default_factory=list)
    earlier_offered: int = 0  # earlier offerings this viewer may compare with
    minimum: float = 0.0
    matching: int = 0  # the check's pairs at or above `minimum` (the page shows the first)

    @property
    def result(self) -> dict[str, Any]:
        return (self.check.result or {}) if self.check is not None else {}


def _labeller(user: User, course_id: int) -> Callable[[Submission], str]:
    """A submission's student as this viewer may read them: the e-mail address within the
    course, or of another course the viewer teaches; else only the other course's name."""
    taught = set(
        db.session.scalars(
            sa.select(Membership.course_id).where(
                Membership.user_id == user.id, Membership.role == INSTRUCTOR
            )
        )
    )
    names = dict(db.session.execute(sa.select(Course.id, Course.name)).all())

    def label(submission: Submission) -> str:
        course = submission.slot.assignment.course_id
        if course == course_id:
            return submission.owner.email
        if course in taught:
            return f"{submission.owner.email} ({names.get(course, 'another course')})"
        return f"a student of {names.get(course, 'another course')}"

    return label


def _submissions(ids: set[int]) -> dict[int, Submission]:
    if not ids:
        return {}
    return {
        s.id: s
        for s in db.session.scalars(
            sa.select(Submission)
            .where(Submission.id.in_(ids))
            .options(
                sa.orm.joinedload(Submission.owner),
                sa.orm.joinedload(Submission.slot).joinedload(Slot.assignment),
            )
        )
    }


def report(
    user: User, assignment_id: int, index: int, *, minimum: float = 0.0, limit: int = 300
) -> EngineReport:
    """The slot's last similarity check for its staff: pairs at or above `minimum`, highest
    first (at most `limit`), and the submissions it skipped."""
    if not 0.0 <= minimum <= 1.0:
        raise Invalid("the least similarity shown is a number from 0 to 1")
    who, slot = _engine_slot(user, assignment_id, index)
    check = checks.latest(ENGINES_CHECK, assignment_id, slot.id)
    found = EngineReport(
        who, slot, check, earlier_offered=len(earlier_slots(slot, user)), minimum=minimum
    )
    result = found.result
    matching = [p for p in result.get("pairs", []) if p["similarity"] >= minimum]
    found.matching = len(matching)
    pairs = matching[:limit]
    skipped = result.get("skipped", [])
    by_id = _submissions({p[x] for p in pairs for x in "ab"} | {s["submission"] for s in skipped})
    label = _labeller(user, who.course.id)
    for p in pairs:
        a, b = by_id.get(p["a"]), by_id.get(p["b"])
        if a is None or b is None:  # deleted since the check
            continue
        found.rows.append(
            PairRow(a, b, label(a), label(b), p["similarity"], p["a_share"], p["b_share"])
        )
    for s in skipped:
        if s["submission"] in by_id:
            submission = by_id[s["submission"]]
            found.skipped.append((submission, label(submission), s["reason"]))
    return found


def pairs_for_command(check: IntegrityCheck, minimum: float) -> list[dict[str, Any]]:
    """The check's pairs as the command line prints them: e-mail addresses and figures."""
    pairs = [p for p in (check.result or {}).get("pairs", []) if p["similarity"] >= minimum]
    by_id = _submissions({p[x] for p in pairs for x in "ab"})
    return [
        {
            "a": by_id[p["a"]].owner.email,
            "b": by_id[p["b"]].owner.email,
            "similarity": p["similarity"],
            "a_share": p["a_share"],
            "b_share": p["b_share"],
            "a_submission": p["a"],
            "b_submission": p["b"],
            "a_submitted_at": iso_utc(by_id[p["a"]].created_at),
            "b_submitted_at": iso_utc(by_id[p["b"]].created_at),
        }
        for p in pairs
        if p["a"] in by_id and p["b"] in by_id
    ]


# -- one pair side by side --------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One row of the side-by-side view: a matched region (`number` from 1, both sides) or
    code of `a` that matches nothing (`number` 0, `b` empty)."""

    number: int
    a: list[tuple[int, str]]
    b: list[tuple[int, str]]


@dataclass
class PairView:
    staff: Staff
    slot: Slot
    a: Submission
    b: Submission
    a_label: str
    b_label: str
    figures: Figures | None = None
    regions: list[Region] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    b_rest: list[list[tuple[int, str]]] = field(default_factory=list)  # b's unmatched runs
    unreadable: str | None = None


def _comparable(user: User, slot: Slot, submission_id: int) -> Submission:
    """A submission of this slot, or of an engine slot on the same suite in a course the user
    is an instructor of (an earlier offering); NotFound otherwise."""
    found = _submissions({submission_id}).get(submission_id)
    if found is None:
        raise NotFound(f"no submission {submission_id} to compare here")
    if found.slot_id == slot.id:
        return found
    teaches = db.session.scalar(
        sa.select(Membership.id).where(
            Membership.user_id == user.id,
            Membership.course_id == found.slot.assignment.course_id,
            Membership.role == INSTRUCTOR,
        )
    )
    if not teaches or not is_engine_slot(found.slot) or _suite(found.slot) != _suite(slot):
        raise NotFound(f"no submission {submission_id} to compare here")
    return found


def _numbered(text: str, first: int, last: int) -> list[tuple[int, str]]:
    lines = text.splitlines()
    return [(n, lines[n - 1]) for n in range(first, min(last, len(lines)) + 1)]


def _runs(numbers: list[int], text: str) -> list[list[tuple[int, str]]]:
    runs: list[list[tuple[int, str]]] = []
    for _, group in itertools.groupby(enumerate(numbers), lambda p: p[1] - p[0]):
        found = [n for _, n in group]
        runs.append(_numbered(text, found[0], found[-1]))
    return runs


def _aligned(
    a: Document, b: Document, found: list[Region]
) -> tuple[list[Row], list[list[tuple[int, str]]]]:
    """Rows in `a`'s order: each region beside its place in `b`, `a`'s other code between."""
    rows: list[Row] = []
    shown_a = 0
    a_count = len(a.text.splitlines())
    used_b: set[int] = set()
    for number, region in enumerate(found, 1):
        start = max(region.a_lines[0], shown_a + 1)
        if start > shown_a + 1:
            rows.append(Row(0, _numbered(a.text, shown_a + 1, start - 1), []))
        if region.a_lines[1] < start:
            continue
        rows.append(
            Row(
                number,
                _numbered(a.text, start, region.a_lines[1]),
                _numbered(b.text, *region.b_lines),
            )
        )
        used_b.update(range(region.b_lines[0], region.b_lines[1] + 1))
        shown_a = region.a_lines[1]
    if shown_a < a_count:
        rows.append(Row(0, _numbered(a.text, shown_a + 1, a_count), []))
    rest = [n for n in range(1, len(b.text.splitlines()) + 1) if n not in used_b]
    return rows, _runs(rest, b.text)


def pair_view(user: User, assignment_id: int, index: int, a_id: int, b_id: int) -> PairView:
    """Two submissions side by side: the figures, the shared regions highlighted and aligned
    (each of `a`'s regions beside where `b` has it), both submission times."""
    who, slot = _engine_slot(user, assignment_id, index)
    if a_id == b_id:
        raise Invalid("choose two different submissions")
    a, b = _comparable(user, slot, a_id), _comparable(user, slot, b_id)
    if a.slot_id != slot.id and b.slot_id != slot.id:
        raise NotFound("one of the two must be a submission of this exercise")
    label = _labeller(user, who.course.id)
    view = PairView(who, slot, a, b, label(a), label(b))
    try:
        doc_a = _read(a)
    except Unreadable as exc:
        view.unreadable = f"submission {a.id}: {exc}"
        return view
    try:
        doc_b = _read(b)
    except Unreadable as exc:
        view.unreadable = f"submission {b.id}: {exc}"
        return view
    view.figures = compare(doc_a, doc_b)
    view.regions = regions(doc_a, doc_b)
    view.rows, view.b_rest = _aligned(doc_a, doc_b, view.regions)
    return view


__all__ = [
    "EngineReport",
    "PairView",
    "compute",
    "earlier_slots",
    "latest_check",
    "pair_view",
    "pairs_for_command",
    "report",
    "request_check",
]
