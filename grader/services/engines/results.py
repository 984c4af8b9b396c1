"""The read model of engine submissions: what a student or the staff may see of one (its
status and progress, then its results: the failed tests grouped by the mistake
or the verdict they share, the passed ones counted per test kind, the timing chart, the games),
and the graded scores the gradebook counts.
Reads only: the intake is services/engines/submissions.py, the workers' writes services/engines/leases.py.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.models import (
    DONE,
    Assignment,
    EngineResult,
    Slot,
    Submission,
    User,
)
from grader.services import Forbidden, Invalid, NotFound, plural
from grader.services.courses import release
from grader.services.courses.courses import member_slot_ids, taught_course_ids

# -- who sees what --------------------------------------------------------------------------


def teaches(user: User, slot: Slot) -> bool:
    """Whether the user is on the staff of the slot's course (the page links the staff view)."""
    return slot.assignment.course_id in set(db.session.scalars(taught_course_ids(user)))


def _visible(user: User) -> sa.ColumnElement[bool]:
    taught = Submission.slot_id.in_(
        sa.select(Slot.id).join(Assignment).where(Assignment.course_id.in_(taught_course_ids(user)))
    )
    own = sa.and_(Submission.owner_id == user.id, Submission.slot_id.in_(member_slot_ids(user)))
    return sa.or_(own, taught)


def get_submission(user: User, submission_id: int) -> Submission:
    """The owner's (while a member of its course), or one of a course the user teaches;
    NotFound for anyone else."""
    found = db.session.scalar(
        sa.select(Submission)
        .where(Submission.id == submission_id, _visible(user))
        .options(
            sa.orm.joinedload(Submission.slot).joinedload(Slot.assignment),
            sa.orm.joinedload(Submission.owner),
        )
    )
    if found is None:
        raise NotFound("no such engine submission")
    return found


def result_of(submission: Submission) -> EngineResult | None:
    return db.session.scalar(
        sa.select(EngineResult).where(EngineResult.submission_id == submission.id)
    )


def held_from(user: User, submission: Submission) -> dt.datetime | None:
    """While the upload's score is held from the user, its release moment: held from its
    owner alone (staff see every result at once), as an attempt's score is."""
    return release.held_work(user.id, submission)


def shown_result(user: User, submission: Submission) -> EngineResult | None:
    """The upload's result as the user may read it (None until it is graded); refused while
    its score is held from them, since every test's verdict, points and game tell it."""
    held = held_from(user, submission)
    if held is not None:
        words = release.held_words(held, submission.slot.assignment)
        raise Forbidden(f"{words} Its results are shown then.")
    return result_of(submission)


def my_submissions(user: User, slot: Slot, limit: int = 50) -> list[Submission]:
    return list(
        db.session.scalars(
            sa.select(Submission)
            .where(Submission.owner_id == user.id, Submission.slot_id == slot.id)
            .order_by(Submission.id.desc())
            .limit(limit)
        )
    )


def position_of(name: str) -> tuple[str, str]:
    """A test's name as what it tests and its position: "Search depth 2: start" is ("Search
    depth 2", "start"); a game's name has no position ("Game vs random, ...", "")."""
    head, colon, position = name.rpartition(": ")
    return (head, position) if colon else (name, "")


def timing_rows(rich: dict[str, Any]) -> list[dict[str, Any]]:
    """Per timing test and depth: the engine's and the reference's search CPU seconds, as the
    timing test stored them (its extra's rows; migration 5c0d7e1f2a3b gave older results theirs)."""
    rows = []
    for test in rich.get("tests", []):
        if test.get("kind") != "timing":
            continue
        position = position_of(test["name"])[1]
        for row in (test.get("extra") or {}).get("rows", []):
            rows.append(
                {
                    "position": position,
                    "depth": int(row["depth"]),
                    "cpu": float(row["cpu"]),
                    "reference_cpu": float(row["reference_cpu"]),
                }
            )
    return rows


def grouped(tests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A table's rows: failed tests with the same verdict and the same output (one traceback
    repeated on 42 tests) become one row naming them all; the rest one row each."""
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


def failed_groups(tests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The graded tests that failed, grouped by what they share: the known mistake the run's
    explanation names for them (`diagnosis`), else their verdict. The group that costs the most
    points comes first; in each, identical failures make one row (`grouped`)."""
    from grader.checkers.variants import VARIANTS
    from grader.harness.verdicts import DESCRIPTIONS

    words = {verdict.value: text for verdict, text in DESCRIPTIONS.items()}
    found: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for t in tests:
        if t.get("verdict") == "passed" or not t.get("max_score"):
            continue
        code = t.get("diagnosis")
        key = ("mistake", code) if code in VARIANTS else ("verdict", str(t.get("verdict")))
        found.setdefault(key, []).append(t)
    groups = []
    for (by, what), members in found.items():
        count = plural(len(members), "test")
        verdicts = sorted({str(t.get("verdict")) for t in members})
        groups.append(
            {
                "code": what if by == "mistake" else None,
                "verdict": what if by == "verdict" else None,
                # The summary's own words for a mistake (grader/harness/diagnosis.py).
                "title": f"{count} failed the way a known mistake does ({what})"
                if by == "mistake"
                else f"{count}: {what} ({words.get(what, what)})",
                "about": VARIANTS[what].sentence if by == "mistake" else "",
                "verdicts": ", ".join(f"{v} ({words.get(v, v)})" for v in verdicts),
                "count": len(members),
                "lost": round(
                    sum((t["max_score"] or 0) - (t.get("score") or 0) for t in members), 4
                ),
                "rows": [
                    {
                        **row,
                        "test": position_of(row["name"])[0],
                        "position": position_of(row["name"])[1],
                    }
                    for row in grouped(members)
                ],
            }
        )
    return sorted(groups, key=lambda g: -g["lost"])


def passed_kinds(tests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per test kind, in the suite's order: how many of its graded tests passed (the page folds
    them into one line, "Move generation 13/13"), which, and its tests worth 0 points, which
    are not graded."""
    from grader.harness import TEST_KINDS

    kinds: dict[str, dict[str, Any]] = {}
    for t in tests:
        kind = str(t.get("kind"))
        entry = kinds.setdefault(
            kind,
            {
                "kind": kind,
                "title": TEST_KINDS[kind].title if kind in TEST_KINDS else kind,
                "passed": 0,
                "graded": 0,
                "tests": [],
                "ungraded": [],
            },
        )
        brief = {k: t.get(k) for k in ("name", "verdict", "score", "max_score")}
        if not t.get("max_score"):
            entry["ungraded"].append(brief)
            continue
        entry["graded"] += 1
        if t.get("verdict") == "passed":
            entry["passed"] += 1
            entry["tests"].append(brief)
    return [k for k in kinds.values() if k["passed"] or k["ungraded"]]


def summary(rich: dict[str, Any]) -> dict[str, Any]:
    """What the results page draws: the failed tests grouped (what to fix first), the passed
    ones per kind, the timing chart, the games; the Elo only when a game was rated."""
    tests = [
        {
            k: t.get(k)
            for k in ("name", "kind", "verdict", "score", "max_score", "cpu", "wall", "output")
        }
        | {
            "diagnosis": (t.get("extra") or {}).get("diagnosis"),
            "candidates": (t.get("extra") or {}).get("candidates") or [],
            "differs": (t.get("extra") or {}).get("differs") or [],
        }
        for t in rich.get("tests", [])
    ]
    elo = rich.get("elo")
    return {
        "complete": rich.get("complete"),
        "error": rich.get("error"),
        "elo": elo if isinstance(elo, dict) and elo.get("games") else None,
        "tests": tests,
        "failed": failed_groups(tests),
        "passed": passed_kinds(tests),
        "timing": timing_rows(rich),
        "reference_timed": reference_timed(rich),
        "games": [
            {
                "number": n,
                **{
                    k: g.get(k)
                    for k in ("name", "opponent", "colour", "ballot", "result", "points", "plies")
                },
            }
            for n, g in enumerate(rich.get("games", []))
        ],
        "matches": [
            {k: m.get(k) for k in ("opponent", "games", "played", "why")}
            for m in rich.get("matches") or []
            if isinstance(m, dict)
        ],
    }


def reference_timed(rich: dict[str, Any]) -> str:
    """When the reference's timings the run compared with were measured, in words (empty for
    a run without timing, or graded before the results said it)."""
    reference = rich.get("reference")
    if not isinstance(reference, dict) or not reference.get("timed_at"):
        return ""
    if reference.get("beside"):
        return (
            "The reference was timed beside each of your engine's runs, in the same grading "
            f"slot, from {reference['timed_at']}."
        )
    retime = reference.get("retime_seconds")  # graded before issue 51: a kept timing
    again = (
        f" (timed again once {float(retime) / 60:g} minutes old)"
        if isinstance(retime, int | float)
        else ""
    )
    return f"The reference was timed on this grading machine at {reference['timed_at']}{again}."


def game(user: User, submission_id: int, number: int) -> dict[str, Any]:
    """One game of a graded submission: its PDN, and each ply's move and position (FEN)."""
    from grader.checkers import InvalidPdnError, read_game

    submission = get_submission(user, submission_id)
    result = shown_result(user, submission)
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
    return {
        "number": number,
        "name": stored.get("name"),
        "headers": parsed.headers,
        "result": parsed.result,
        "pdn": stored["pdn"],
        "plies": plies,
    }


def engine_scores(
    course_id: int, assignment_id: int | None = None, user_id: int | None = None
) -> list[tuple[int, int, int, int, float, float, int, dt.datetime]]:
    """Graded engine submissions of a course (of one assignment, of one student) for the
    gradebook, oldest first: (id, user, slot, assignment, fraction of the suite's points,
    penalty, days late, created)."""
    query = (
        sa.select(
            Submission.id,
            Submission.owner_id,
            Submission.slot_id,
            Slot.assignment_id,
            Submission.score,
            Submission.max_score,
            Submission.penalty,
            Submission.days_late,
            Submission.created_at,
        )
        .join(Slot, Submission.slot_id == Slot.id)
        .join(Assignment, Slot.assignment_id == Assignment.id)
        .where(Assignment.course_id == course_id, Submission.status == DONE)
        .order_by(Submission.id)
    )
    if assignment_id is not None:
        query = query.where(Slot.assignment_id == assignment_id)
    if user_id is not None:
        query = query.where(Submission.owner_id == user_id)
    rows = db.session.execute(query)
    return [
        (
            r.id,
            r.owner_id,
            r.slot_id,
            r.assignment_id,
            (r.score or 0.0) / r.max_score if r.max_score else 0.0,
            r.penalty,
            r.days_late,
            r.created_at,
        )
        for r in rows
    ]
