"""A person's data as one download (GDPR articles 15 and 20): a ZIP of JSON files, one per kind
of record, and the engine uploads' original bytes.

The person's own export (their account page, `GET /api/me/export`) and an administrator's
(`/admin/accounts`, `grader user export`) hold the same files; only an administrator's also
holds `integrity.json`, what the integrity checks found about the account (the staff's
findings, with no classmate named). The work is bounded by the account's own rows; the ZIP is
written to a temporary file (on disk past a few MB); `download` gives it as a response.
"""

# Whole: one download: a reader per kind of record, each bounded by the account.

from __future__ import annotations

import datetime as dt
import json
import re
import tempfile
import zipfile
from typing import IO, Any

import sqlalchemy as sa

from grader.extensions import db
from grader.models import (
    STUDENT,
    ApiToken,
    Assignment,
    Attempt,
    Course,
    EngineResult,
    ErasureRequest,
    ExamItem,
    ExamPrint,
    ExamSheet,
    Exercise,
    IntegrityCheck,
    Invite,
    LtiRegistration,
    LtiUser,
    Membership,
    ProblemReport,
    Slot,
    Submission,
    User,
    iso_utc,
)
from grader.services import Conflict, Forbidden, NotFound
from grader.services.courses import deadlines, release, zones
from grader.services.engines import blobs

IN_MEMORY = 8 * 1024 * 1024  # bytes of ZIP kept in memory before the temporary file spills
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")

README = """\
Everything Alpha-Beta Grader holds about account {id}, as of {when}.

account.json           the account: e-mail address, name, role, when it was made
memberships.json       the courses you belong to, your role and the roster's name for you
api_tokens.json        your API tokens (names and dates; the tokens themselves are never stored)
invites.json           invitations sent to you
exercises.json         every exercise given to you, with its tree
attempts.json          every answer you submitted, with its score and the words it got (a score
                       still held until its release is marked "held", with its release date)
uploads.json           your engine uploads with their results; the files are in uploads/
exam_sheets.json       printed exam sheets made for you, with what was entered from them
lti_identities.json    the LMS accounts linked to yours
problem_reports.json   the problems you reported, with the staff's answers
erasure_request.json   your request for erasure, if you made one
deadlines.json         your own due dates and attempt limits (with any extension you were given)
{integrity}"""
INTEGRITY_LINE = (
    "integrity.json         what academic integrity checks found (staff exports only)\n"
)


def _plain(value: Any) -> Any:
    return iso_utc(value) if isinstance(value, dt.datetime) else value


def _columns(row: Any, names: tuple[str, ...]) -> dict[str, Any]:
    return {name: _plain(getattr(row, name)) for name in names}


def _owner_or_admin(actor: User | None, account_id: int, as_admin: bool) -> User:
    """The account to export: the actor's own, or any live one for an administrator asking as
    one (or the server's operator: None). Another person's is refused."""
    if actor is not None and (as_admin or actor.id != account_id) and not actor.is_admin:
        raise Forbidden("only the account's owner or an administrator exports its data")
    found = db.session.get(User, account_id)
    if found is None:
        raise NotFound(f"no account has the id {account_id}")
    if found.erased_at is not None:
        raise Conflict(f"account {account_id} was erased: it holds no personal data to export")
    return found


Places = dict[int, dict[str, Any]]  # a slot's place in words, by slot id, read once per export


def _slot_place(slot_id: int | None, places: Places) -> dict[str, Any]:
    """Where a slot is, in words (course, assignment, slot number)."""
    if slot_id is None:
        return {"course": None, "assignment": None, "slot": None}
    if slot_id not in places:
        places[slot_id] = _read_place(slot_id)
    return places[slot_id]


def _read_place(slot_id: int) -> dict[str, Any]:
    row = db.session.execute(
        sa.select(Course.name, Assignment.title, Slot.index, Slot.title)
        .join(Assignment, Assignment.course_id == Course.id)
        .join(Slot, Slot.assignment_id == Assignment.id)
        .where(Slot.id == slot_id)
    ).one()
    return {"course": row[0], "assignment": row[1], "slot": row[2] + 1, "slot_title": row[3]}


def _account(user: User) -> dict[str, Any]:
    account = _columns(user, ("id", "email", "name", "role", "is_admin", "created_at"))
    # Whether a second factor is on, never its secret (which would let the reader make codes).
    account["second_factor"] = user.totp_secret is not None
    return account


def _memberships(user: User) -> list[dict[str, Any]]:
    rows = db.session.execute(
        sa.select(Membership, Course.name)
        .join(Course, Course.id == Membership.course_id)
        .where(Membership.user_id == user.id)
        .order_by(Membership.id)
    )
    return [
        {
            "course_id": m.course_id,
            "course": name,
            "role": m.role,
            "roster_name": m.name,
            "since": _plain(m.created_at),
        }
        for m, name in rows
    ]


def _tokens(user: User) -> list[dict[str, Any]]:
    found = db.session.scalars(sa.select(ApiToken).where(ApiToken.user_id == user.id))
    return [
        _columns(t, ("id", "name", "scopes", "created_at", "expires_at", "last_used_at"))
        for t in found
    ]


def _invites(user: User) -> list[dict[str, Any]]:
    found = db.session.scalars(sa.select(Invite).where(Invite.user_id == user.id))
    return [
        _columns(i, ("course_id", "role", "created_at", "expires_at", "accepted_at")) for i in found
    ]


EXERCISE_FIELDS = (
    "id", "slot_id", "variant", "kind", "seed", "generator_version", "params", "tree", "players",
    "conventions", "created_at",
)  # fmt: skip
ATTEMPT_FIELDS = (
    "id", "exercise_id", "answer", "score", "penalty", "days_late", "parts", "feedback",
    "diagnosis", "diagnosis_text", "first_wrong", "scoring", "kind", "seed", "generator_version",
    "conventions", "created_at", "regraded_at",
)  # fmt: skip


def _exercises(user: User, places: Places) -> list[dict[str, Any]]:
    found = db.session.scalars(
        sa.select(Exercise).where(Exercise.owner_id == user.id).order_by(Exercise.id)
    )
    return [{**_columns(e, EXERCISE_FIELDS), **_slot_place(e.slot_id, places)} for e in found]


def _attempts(user: User) -> list[dict[str, Any]]:
    found = db.session.scalars(
        sa.select(Attempt).where(Attempt.user_id == user.id).order_by(Attempt.id)
    )
    out = []
    cache: dict[Any, Any] = {}
    for a in found:
        row = _columns(a, ATTEMPT_FIELDS)
        row["credited"] = a.credited
        # The history of paper entries, without who typed them (the staff's own data).
        row["history"] = [
            {k: v for k, v in entry.items() if k != "entered_by"} for entry in a.history or []
        ]
        assignment = release.work_assignment(a)
        if assignment is not None:
            until = release.held_work(user.id, a, cache=cache)
            row["held"] = until is not None
            if until is not None:  # the grade stays held here as on the pages, marked so
                row |= {k: None for k in ("score", "parts", "feedback", "credited", "scoring")}
                row |= {"diagnosis": None, "diagnosis_text": None, "first_wrong": None}
                row["history"] = [_held_entry(entry) for entry in row["history"]]
                row["released_at"] = zones.iso(until, assignment.course.timezone)
        row["entered_from_paper"] = a.entered_by_id is not None
        out.append(row)
    return out


def _held_entry(entry: Any) -> Any:
    """A paper entry of a held attempt: when and what was typed, not what it scored."""
    if not isinstance(entry, dict):
        return entry
    return {k: v for k, v in entry.items() if k not in HELD_ENTRY_FIELDS}


HELD_ENTRY_FIELDS = ("score", "parts", "diagnosis", "diagnosis_text", "feedback", "credited")


UPLOAD_FIELDS = (
    "id", "slot_id", "filename", "size", "sha256", "suite", "status", "score", "max_score",
    "days_late", "penalty", "tournament_opt_in", "created_at", "finished_at",
)  # fmt: skip


def _upload_name(submission: Submission) -> str:
    return f"uploads/{submission.id}-{_UNSAFE.sub('_', submission.filename)[:100]}"


def _uploads(user: User, archive: zipfile.ZipFile, places: Places) -> list[dict[str, Any]]:
    found = db.session.scalars(
        sa.select(Submission).where(Submission.owner_id == user.id).order_by(Submission.id)
    )
    out = []
    cache: dict[Any, Any] = {}
    store = blobs.store()
    for s in found:
        row = {**_columns(s, UPLOAD_FIELDS), **_slot_place(s.slot_id, places)}
        try:
            archive.writestr(_upload_name(s), store.get(s.sha256))
            row["file"] = _upload_name(s)
        except blobs.MissingBlob:
            row["file"] = None  # the bytes were lost before they were kept in the database
        until = release.held_work(user.id, s, cache=cache)
        row["held"] = until is not None
        if until is not None:  # as the upload's page and the API: graded, nothing of the grade
            row |= {"score": None, "max_score": None, "penalty": None, "result": None}
            row["released_at"] = zones.iso(until, s.slot.assignment.course.timezone)
            out.append(row)
            continue
        result = db.session.scalar(
            sa.select(EngineResult).where(EngineResult.submission_id == s.id)
        )
        row["result"] = (
            None
            if result is None
            else {
                "results_json": result.gradescope,
                "details": result.rich,
                "graded_at": _plain(result.created_at),
            }
        )
        out.append(row)
    return out


def _sheets(user: User) -> list[dict[str, Any]]:
    rows = db.session.execute(
        sa.select(ExamSheet, ExamPrint.assignment_id)
        .join(ExamPrint, ExamPrint.id == ExamSheet.print_id)
        .where(ExamSheet.user_id == user.id)
        .order_by(ExamSheet.id)
    )
    out = []
    for sheet, assignment_id in rows:
        items = db.session.scalars(
            sa.select(ExamItem).where(ExamItem.sheet_id == sheet.id).order_by(ExamItem.slot_index)
        )
        out.append(
            {
                **_columns(sheet, ("code", "number", "created_at")),
                "assignment_id": assignment_id,
                "entries": [
                    _columns(i, ("slot_id", "slot_index", "exercise_id", "tree", "attempt_id"))
                    for i in items
                ],
            }
        )
    return out


def _lti(user: User) -> list[dict[str, Any]]:
    rows = db.session.execute(
        sa.select(LtiUser.sub, LtiRegistration.issuer, LtiRegistration.client_id)
        .join(LtiRegistration, LtiRegistration.id == LtiUser.registration_id)
        .where(LtiUser.user_id == user.id)
        .order_by(LtiUser.id)
    )
    return [{"issuer": r[1], "client_id": r[2], "sub": r[0]} for r in rows]


def _deadlines(user: User) -> list[dict[str, Any]]:
    """The student's own terms on every assignment of their courses, as their pages show them
    (ISO 8601 in the course's time zone), with the extensions that give them."""
    assignments = list(
        db.session.scalars(
            sa.select(Assignment)
            .join(Membership, Membership.course_id == Assignment.course_id)
            .where(Membership.user_id == user.id, Membership.role == STUDENT)
            .order_by(Assignment.id)
        )
    )
    dues = deadlines.dues(user.id, assignments)
    out = []
    for assignment in assignments:
        zone = assignment.course.timezone
        terms = dues.assignments[assignment.id]
        out.append(
            {
                "assignment_id": assignment.id,
                "assignment": assignment.title,
                "course": assignment.course.name,
                "timezone": zone,
                "class_due_at": zones.iso(terms.class_due_at, zone),
                "your_due_at": zones.iso(terms.due_at, zone),
                "slots": [
                    {
                        "index": slot.index,
                        "title": slot.name,
                        "class_due_at": zones.iso(dues.slots[slot.id].class_due_at, zone),
                        "your_due_at": zones.iso(dues.slots[slot.id].due_at, zone),
                        "attempts_allowed": dues.slots[slot.id].attempts_allowed,
                        "late_penalty_waived": dues.slots[slot.id].waive_penalty,
                    }
                    for slot in assignment.slots
                ],
            }
        )
    return out


def _problem_reports(user: User, places: Places) -> list[dict[str, Any]]:
    rows = db.session.scalars(
        sa.select(ProblemReport).where(ProblemReport.user_id == user.id).order_by(ProblemReport.id)
    )
    return [
        {
            **_columns(
                r, ("id", "exercise_id", "attempt_id", "submission_id", "text", "created_at")
            ),
            **_slot_place(r.slot_id, places),
            "answer": r.answer,
            "answered_at": _plain(r.answered_at),
        }
        for r in rows
    ]


def _erasure_request(user: User) -> dict[str, Any] | None:
    found = db.session.scalar(sa.select(ErasureRequest).where(ErasureRequest.user_id == user.id))
    return None if found is None else {"asked_at": _plain(found.created_at)}


def _integrity(user: User) -> list[dict[str, Any]]:
    """What the checks found about the account: answers that fit a classmate's tree (or the
    account's tree fitting another's answer) and similar engine uploads, with no classmate
    named (their data is not the account's)."""
    uploads = set(
        db.session.scalars(sa.select(Submission.id).where(Submission.owner_id == user.id))
    )
    out = []
    for check in db.session.scalars(
        sa.select(IntegrityCheck)
        .where(IntegrityCheck.result.is_not(None))
        .order_by(IntegrityCheck.id)
    ):
        result = check.result or {}
        for flag in result.get("flags", []):
            role = {flag["copier"]: "answered", flag["source"]: "tree fitted"}.get(user.id)
            if role is not None:
                out.append(
                    {
                        "check": check.id,
                        "kind": check.kind,
                        "checked_at": _plain(check.finished_at),
                        "assignment_id": check.assignment_id,
                        "slot_id": flag["slot"],
                        "as": role,
                        "attempts": flag["attempts"],
                        "own_errors": flag["own_errors"],
                        "errors_there": flag["errors_there"],
                    }
                )
        for pair in result.get("pairs", []):
            mine = {pair["a"], pair["b"]} & uploads
            if mine:
                out.append(
                    {
                        "check": check.id,
                        "kind": check.kind,
                        "checked_at": _plain(check.finished_at),
                        "assignment_id": check.assignment_id,
                        "slot_id": check.slot_id,
                        "upload": min(mine),
                        "similarity": pair["similarity"],
                    }
                )
    return out


def export(actor: User | None, account_id: int, *, as_admin: bool = False) -> tuple[IO[bytes], str]:
    """The account's data as a ZIP in a temporary file (read from its start) and the file's
    name. `actor` is the owner, an administrator (`as_admin`: the administrators' page, whose
    export also holds integrity.json), or the server's operator (None: with integrity.json)."""
    user = _owner_or_admin(actor, account_id, as_admin)
    staff_export = actor is None or as_admin
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    out: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY)  # noqa: SIM115
    try:
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:

            def put(name: str, value: Any) -> None:
                archive.writestr(name, json.dumps(value, indent=1, ensure_ascii=False) + "\n")

            archive.writestr(
                "README.txt",
                README.format(
                    id=user.id,
                    when=zones.words(now, zones.server_zone()),
                    integrity=INTEGRITY_LINE if staff_export else "",
                ),
            )
            put("account.json", _account(user))
            put("memberships.json", _memberships(user))
            put("api_tokens.json", _tokens(user))
            put("invites.json", _invites(user))
            places: Places = {}
            put("exercises.json", _exercises(user, places))
            put("attempts.json", _attempts(user))
            put("uploads.json", _uploads(user, archive, places))
            put("exam_sheets.json", _sheets(user))
            put("lti_identities.json", _lti(user))
            put("problem_reports.json", _problem_reports(user, places))
            put("erasure_request.json", _erasure_request(user))
            put("deadlines.json", _deadlines(user))
            if staff_export:
                put("integrity.json", _integrity(user))
    except BaseException:
        out.close()
        raise
    out.seek(0)
    return out, f"grader-account-{user.id}-{now:%Y%m%d}.zip"


def download(actor: User | None, account_id: int, *, as_admin: bool = False) -> tuple[bytes, str]:
    """`export`'s ZIP as bytes, its temporary file closed: what a page or the API answers (a
    person's data is bounded by their own rows; spectree reads a response it validates)."""
    data, name = export(actor, account_id, as_admin=as_admin)
    with data:
        return data.read(), name
