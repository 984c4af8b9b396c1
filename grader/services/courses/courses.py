"""Courses, memberships and assignments built from TOML presets in `exercises/presets/`."""

from __future__ import annotations

import datetime as dt
import secrets
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.gametree import KINDS, Conventions, GeneratorParams
from grader.models import (
    INSTRUCTOR,
    STAFF_ROLES,
    Assignment,
    Course,
    Membership,
    Slot,
    User,
    utcnow,
)
from grader.services import Conflict, Forbidden, Invalid, NotFound
from grader.services.courses import zones
from grader.services.courses.staff import staff
from grader.services.transactions import writing

_JOIN_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I to read aloud


@dataclass(frozen=True)
class SlotSpec:
    kind: str
    params: dict[str, Any]
    conventions: dict[str, str]
    title: str | None = None
    attempts_allowed: int | None = 3
    practice_allowed: bool = True
    replay_allowed: bool = True


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    description: str = ""
    slots: list[SlotSpec] = field(default_factory=list)


def _slot_spec(raw: dict[str, Any], where: str) -> SlotSpec:
    known = {
        "kind",
        "params",
        "conventions",
        "title",
        "attempts_allowed",
        "practice_allowed",
        "replay_allowed",
    }
    unknown = set(raw) - known
    if unknown:
        raise Invalid(f"{where}: unknown keys {', '.join(sorted(unknown))}")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise Invalid(f"{where}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
    try:
        conventions = Conventions.from_dict(raw.get("conventions", {})).to_dict()
        params = GeneratorParams.from_dict(
            {**raw.get("params", {}), "kind": kind, "conventions": conventions}
        ).to_dict()
    except ValueError as exc:
        raise Invalid(f"{where}: {exc}") from exc
    attempts = raw.get("attempts_allowed", 3)
    if not isinstance(attempts, int) or isinstance(attempts, bool) or attempts < 0:
        raise Invalid(f"{where}: attempts_allowed must be a whole number (0: unlimited)")
    return SlotSpec(
        kind=kind,
        params=params,
        conventions=conventions,
        title=raw.get("title"),
        attempts_allowed=attempts or None,
        practice_allowed=bool(raw.get("practice_allowed", True)),
        replay_allowed=bool(raw.get("replay_allowed", True)),
    )


def presets_dir() -> Path:
    return Path(current_app.config["GRADER_PRESETS_DIR"])


def preset_names() -> list[str]:
    return sorted(p.stem for p in presets_dir().glob("*.toml"))


def load_preset(name: str) -> Preset:
    """The preset `exercises/presets/NAME.toml`, checked against the core's own validators."""
    path = presets_dir() / f"{name}.toml"
    if "/" in name or "\\" in name or not path.is_file():
        raise Invalid(f"no preset {name!r}; presets: {', '.join(preset_names())}")
    return read_preset(path, name)


def read_preset(path: Path, name: str) -> Preset:
    """A preset file anywhere (an instructor's own parameters too), checked like ``load_preset``."""
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise Invalid(f"preset {name}: {exc}") from exc
    slots = [
        _slot_spec(s, f"preset {name}, slot {i + 1}") for i, s in enumerate(raw.get("slots", []))
    ]
    if not slots:
        raise Invalid(f"preset {name} has no [[slots]]")
    return Preset(
        name=name, title=raw.get("title", name), description=raw.get("description", ""), slots=slots
    )


def _join_code() -> str:
    return "".join(secrets.choice(_JOIN_ALPHABET) for _ in range(8))


def create_course(
    name: str,
    instructor_email: str | None = None,
    *,
    by: User | None = None,
    timezone: str | None = None,
) -> Course:
    """A course with a fresh join code, in `timezone` (an IANA name; the server's
    GRADER_TIMEZONE when None). From the dashboard (`by`, who needs an instructor account) its
    creator teaches it; the operator (the CLI, the demo: `by` None) may name an existing
    account as its instructor."""
    timezone = timezone or zones.server_zone()
    zones.zone(timezone)
    if by is not None:
        if not by.is_instructor:
            raise Forbidden("only instructor accounts create courses")
        instructor_email = by.email
    name = (name or "").strip()
    if not name or len(name) > 200:
        raise Invalid("a course needs a name (at most 200 characters)")
    with writing() as session:
        instructor = None
        if instructor_email:
            instructor = session.scalar(
                sa.select(User).where(User.email == instructor_email.strip().lower())
            )
            if instructor is None:
                raise NotFound(f"no user {instructor_email}")
        course = Course(name=name, join_code=_join_code(), timezone=timezone.strip())
        session.add(course)
        if instructor is not None:
            session.add(Membership(user=instructor, course=course, role=INSTRUCTOR))
    return course


def set_timezone(course_id: int, timezone: str, *, by: User | None = None) -> Course:
    """The course's dates are shown and typed in another zone; every stored instant stays
    (a due date at 04:59 UTC is 23:59 in New York, then 05:59 in Berlin). From the dashboard
    (`by`) only its instructors; the operator (`by` None) any course."""
    zones.zone(timezone)
    if by is not None:
        staff(by, course_id, change=True)
    with writing() as session:
        course = course_in(session, course_id)
        course.timezone = timezone.strip()
    return course


def course_in(session: Session, course_id: int) -> Course:
    """The course in the caller's transaction; NotFound names the id of one that does not
    exist."""
    course = session.get(Course, course_id)
    if course is None:
        raise NotFound(f"no course {course_id}")
    return course


def check_open(course: Course) -> None:
    """Refuses new work (an attempt, an upload) in an archived course: it is read-only."""
    if course.archived_at is not None:
        raise Conflict(
            f"the course {course.name} was archived on "
            f"{zones.words(course.archived_at, course.timezone)}: it is "
            "read-only and takes no new attempts or uploads"
        )


def find_course(ref: str | int) -> Course:
    """A course by id or by exact name (CLI convenience)."""
    if isinstance(ref, int) or str(ref).isdigit():
        course = db.session.get(Course, int(ref))
    else:
        course = db.session.scalar(sa.select(Course).where(Course.name == ref))
    if course is None:
        raise NotFound(f"no course {ref}")
    return course


def create_assignment(
    course_id: int,
    preset_name: str | None,
    title: str | None = None,
    due_at: dt.datetime | None = None,
    **settings: Any,
) -> Assignment:
    """An assignment with a preset's slots (or none); ``settings`` are further Assignment
    columns (release date, late policy, score policy). Callers check who may do this."""
    preset = load_preset(preset_name) if preset_name else None
    if not title:
        if preset is None:  # an empty title too: it would make a nameless assignment
            raise Invalid("an assignment needs a title or a preset")
        title = preset.title
    with writing() as session:
        course_in(session, course_id)
        assignment = Assignment(
            course_id=course_id,
            title=title,
            preset=preset.name if preset else None,
            due_at=due_at,
            **settings,
        )
        session.add(assignment)
        for spec in preset.slots if preset else []:
            append_slot(
                session,
                assignment,
                title=spec.title,
                kind=spec.kind,
                params=spec.params,
                conventions=spec.conventions,
                attempts_allowed=spec.attempts_allowed,
                practice_allowed=spec.practice_allowed,
                replay_allowed=spec.replay_allowed,
            )
    return assignment


def append_slot(session: Session, assignment: Assignment, **fields: Any) -> Slot:
    """A new slot at the end of ``assignment``, in the caller's write transaction: the one way
    a slot is made (a preset's, the editor's, an engine slot). Its index is one past the
    largest stored, read inside that transaction so two additions never share one."""
    session.flush()  # the assignment has its id, the slots added before it are stored
    last = session.scalar(
        sa.select(sa.func.max(Slot.index)).where(Slot.assignment_id == assignment.id)
    )
    slot = Slot(assignment=assignment, index=0 if last is None else last + 1, **fields)
    session.add(slot)
    return slot


def memberships(user: User) -> list[Membership]:
    return list(
        db.session.scalars(
            sa.select(Membership)
            .where(Membership.user_id == user.id)
            .options(sa.orm.joinedload(Membership.course))
            .order_by(Membership.course_id)
        )
    )


def member_course_ids(user: User) -> sa.Select:
    """The ids of the courses this user is a member of (any role), as a subquery."""
    return sa.select(Membership.course_id).where(Membership.user_id == user.id)


def member_slot_ids(user: User) -> sa.Select:
    """The ids of the slots of the user's courses: a removed student's work stays stored, but
    they no longer read or answer it."""
    return (
        sa.select(Slot.id).join(Assignment).where(Assignment.course_id.in_(member_course_ids(user)))
    )


def taught_course_ids(user: User) -> sa.Select:
    """The ids of the courses this user teaches or assists (TA), as a subquery."""
    return sa.select(Membership.course_id).where(
        Membership.user_id == user.id, Membership.role.in_(STAFF_ROLES)
    )


def is_released(assignment: Assignment) -> bool:
    """Whether the course's students see ``assignment`` now: the rule of `_released` (no
    release date, or a release date passed), for a page that says so."""
    return assignment.release_at is None or assignment.release_at <= utcnow()


def _released(user: User) -> sa.ColumnElement[bool]:
    """Students see an assignment from its release date (`is_released`); its staff always."""
    return sa.or_(
        Assignment.release_at.is_(None),
        Assignment.release_at <= utcnow(),
        Assignment.course_id.in_(taught_course_ids(user)),
    )


def assignments_for(user: User) -> list[Assignment]:
    member_of = member_course_ids(user)
    return list(
        db.session.scalars(
            sa.select(Assignment)
            .where(Assignment.course_id.in_(member_of), _released(user))
            .options(sa.orm.selectinload(Assignment.slots), sa.orm.joinedload(Assignment.course))
            .order_by(Assignment.course_id, Assignment.id)
        )
    )


def course_assignments(course_id: int) -> list[Assignment]:
    """Every assignment of a course with its slots, oldest first, released or not (for the staff's
    gradebook and statistics: no permission check, callers check first)."""
    return list(
        db.session.scalars(
            sa.select(Assignment)
            .where(Assignment.course_id == course_id)
            .options(sa.orm.selectinload(Assignment.slots))
            .order_by(Assignment.id)
        )
    )


def get_assignment(user: User, assignment_id: int) -> Assignment:
    """An assignment of one of the user's courses; NotFound otherwise."""
    member_of = member_course_ids(user)
    assignment = db.session.scalar(
        sa.select(Assignment)
        .where(Assignment.id == assignment_id, Assignment.course_id.in_(member_of), _released(user))
        .options(sa.orm.selectinload(Assignment.slots), sa.orm.joinedload(Assignment.course))
    )
    if assignment is None:
        raise NotFound("no such assignment")
    return assignment


def get_slot(user: User, assignment_id: int, index: int) -> Slot:
    assignment = get_assignment(user, assignment_id)
    for slot in assignment.slots:
        if slot.index == index:
            return slot
    raise NotFound("no such exercise in this assignment")
