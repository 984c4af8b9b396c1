"""The demo course `make run` serves: an instructor, a student, an assignment. Idempotent."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import TypedDict

import sqlalchemy as sa
from flask import current_app

from grader.extensions import db
from grader.models import INSTRUCTOR, STUDENT, Course, Membership, Slot
from grader.services import accounts
from grader.services.courses import courses, invites, roster
from grader.services.engines import submissions

COURSE = "Demo course: alpha-beta pruning"
PEOPLE = (("instructor@example.com", INSTRUCTOR), ("student@example.com", STUDENT))


def _logins_file() -> Path:
    return Path(current_app.instance_path) / "demo_logins.json"


def _passwords() -> dict[str, str]:
    """Random on first run, then kept in the instance folder so every run prints the same."""
    path = _logins_file()
    if path.exists():
        return json.loads(path.read_text())
    passwords = {email: secrets.token_urlsafe(9) for email, _ in PEOPLE}
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(passwords, handle)
    return passwords


class Seeded(TypedDict):
    logins: dict[str, str]  # e-mail -> password
    course: str
    join_code: str
    assignment: str
    assignment_id: int
    members: int


def seed(preset: str = "standard") -> Seeded:
    """Creates what is missing; returns the logins, the course's join code and the assignment."""
    passwords = _passwords()
    for email, role in PEOPLE:
        user = accounts.user_by_email(email)
        if user is None:
            accounts.create_user(email, passwords[email], role)
        else:
            accounts.set_password(user.id, passwords[email])
    course = db.session.scalar(sa.select(Course).where(Course.name == COURSE))
    if course is None:
        course = courses.create_course(COURSE, PEOPLE[0][0])
    for email, role in PEOPLE:
        # The instructor teaches it from its creation; a student is invited, and the demo, which
        # made the account, accepts as it.
        if role == STUDENT and roster.add_member(None, course.id, email).startswith("invited"):
            student = accounts.user_by_email(email)
            assert student is not None  # made above
            invites.accept_as(student, course.id)
    assignment = next(
        (a for a in db.session.get_one(Course, course.id).assignments if a.preset == preset), None
    )
    if assignment is None:
        assignment = courses.create_assignment(course.id, preset)
    slots = db.session.scalars(sa.select(Slot).where(Slot.assignment_id == assignment.id))
    if not any(submissions.is_engine_slot(s) for s in slots):
        submissions.add_engine_slot(assignment.id)  # the checkers engine upload, graded by a worker
    members = db.session.execute(
        sa.select(sa.func.count(Membership.id)).where(Membership.course_id == course.id)
    ).scalar_one()
    return {
        "logins": passwords,
        "course": course.name,
        "join_code": course.join_code,
        "assignment": assignment.title,
        "assignment_id": assignment.id,
        "members": members,
    }
