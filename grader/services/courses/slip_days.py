"""Slip days: a course's budget of late days each student may spend without penalty, spent in
the order work was submitted (`deadlines.lateness_for` spends them; `deadlines.slip_days_used`
reads what was spent): the budget set, and a student's standing as their pages show it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from grader.models import Assignment, Course, User
from grader.services import Invalid
from grader.services.courses import audit_log
from grader.services.courses.courses import course_in
from grader.services.courses.deadlines import MAX_DAYS, slip_days_used
from grader.services.courses.recompute import respend_slip_days
from grader.services.courses.staff import staff
from grader.services.transactions import writing


def set_slip_days(actor: User | None, course_id: int, days: int) -> Course:
    """The course's budget of slip days per student (instructors; `actor` None: the operator).
    A change spends every student's slip days again under the new budget
    (`respend_slip_days`), written to the course's audit log with each changed score."""
    if actor is not None:
        staff(actor, course_id, change=True)
    if not 0 <= days <= MAX_DAYS:
        raise Invalid(f"slip days: 0 to {MAX_DAYS}", field="slip_days")
    with writing() as session:
        course = course_in(session, course_id)
        before = course.slip_days
        if before == days:
            return course
        course.slip_days = days
        details = respend_slip_days(session, course)
        audit_log.record(
            session,
            course.id,
            actor.id if actor is not None else None,
            f"Slip days per student: {before} to {days}",
            {"slip_days": [before, days]},
            details,
            None,
        )
    return course


@dataclass(frozen=True)
class SlipStanding:
    """A student's slip days as their pages show them."""

    budget: dict[int, int]  # course id -> slip days per student
    left: dict[int, int]  # course id -> days the student has left
    used: dict[int, int]  # assignment id -> days the student used on it


def slip_standing(user_id: int, assignments: Iterable[Assignment]) -> SlipStanding:
    budget: dict[int, int] = {}
    used: dict[int, int] = {}
    for assignment in assignments:
        budget[assignment.course_id] = assignment.course.slip_days
    spent: dict[int, int] = {}
    for course_id in budget:
        for (_, assignment_id), days in slip_days_used(course_id, user_id).items():
            used[assignment_id] = days
            spent[course_id] = spent.get(course_id, 0) + days
    left = {c: max(0, b - spent.get(c, 0)) for c, b in budget.items()}
    return SlipStanding(budget, left, used)
