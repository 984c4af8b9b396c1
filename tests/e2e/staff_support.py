"""The staff's course that tests/e2e/test_reflow_targets.py reads at 320 and 640 px, as issue 50
tried a term: a course in America/Chicago, a CSV roster of long addresses and names (invites
still pending), a student with an extension and a group's accommodation, and an engine slot (its
staff page). Nothing else reads or changes it."""

from __future__ import annotations

import datetime as dt

STAFF = "reflow-teacher@example.com"
STUDENT = "a.student.with.a.long.address@university-example.edu"
ROSTER = "email,name\n" + "".join(
    f"student.number.{i}@university-example.edu,Student Number {i} Lastname\n" for i in range(4)
)


def seed_staff_course() -> None:
    """Made by the services, in an app context (tests/e2e/conftest.py's seeding)."""
    from grader.services import accounts
    from grader.services.courses import courses, extensions, groups, roster
    from grader.services.engines import submissions
    from tests.app_support import enrol
    from tests.e2e.e2e_support import PASSWORD

    teacher = accounts.create_user(STAFF, PASSWORD, "instructor")
    course = courses.create_course("Reflow 101", STAFF, timezone="America/Chicago")
    accounts.create_user(STUDENT, PASSWORD)
    enrol(course.id, STUDENT)
    roster.import_students(teacher, course.id, ROSTER)
    assignment = courses.create_assignment(course.id, "standard")
    due = dt.datetime(2026, 12, 12, 6, 17, tzinfo=dt.UTC)
    extensions.grant(
        teacher,
        course.id,
        extensions.ExtensionInput(assignment.id, email=STUDENT, due_at=due, extra_attempts=1),
    )
    groups.set_group(teacher, course.id, "accommodations 1.5x", [STUDENT])
    extensions.grant(
        teacher,
        course.id,
        extensions.ExtensionInput(assignment.id, group="accommodations 1.5x", due_at=due),
    )
    submissions.add_engine_slot(assignment.id, suite="quick")
