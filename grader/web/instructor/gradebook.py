"""The course's results: the gradebook (page and CSV), a student's attempts, the statistics,
the difficulty of a class's trees, the misconceptions and the audit log."""

from __future__ import annotations

from collections import Counter
from typing import Any

from flask import render_template
from flask_login import current_user

from grader.gametree import KINDS
from grader.gametree.calibrate import MISCONCEPTION_CEILING, SLIP_FLOOR
from grader.services.courses import audit_log
from grader.services.courses.staff import staff, staff_for_assignment
from grader.services.teaching import difficulty, gradebook, stats
from grader.services.trees import exercises
from grader.web import charts
from grader.web.instructor.blueprint import bp, csv_response
from grader.web.words import graded_by, misconception_name


@bp.get("/courses/<int:course_id>/gradebook")
def gradebook_page(course_id: int) -> Any:
    as_staff, book = gradebook.gradebook(current_user, course_id)
    return render_template(
        "instructor/gradebook.html", staff=as_staff, course=as_staff.course, book=book
    )


@bp.get("/courses/<int:course_id>/gradebook.csv")
def gradebook_download(course_id: int) -> Any:
    return csv_response(*gradebook.gradebook_csv(current_user, course_id))


@bp.get("/courses/<int:course_id>/students/<int:user_id>")
def student(course_id: int, user_id: int) -> Any:
    as_staff, person, assignments = gradebook.student_attempts(current_user, course_id, user_id)
    return render_template(
        "instructor/student.html",
        staff=as_staff,
        course=as_staff.course,
        student=person,
        assignments=assignments,
        kinds=KINDS,
        labels_for=lambda e: exercises.tree_of(e).labels(),
        graded_by=graded_by,
    )


@bp.get("/assignments/<int:assignment_id>/difficulty")
def difficulty_page(assignment_id: int) -> Any:
    as_staff, assignment = staff_for_assignment(current_user, assignment_id)
    return render_template(
        "instructor/difficulty.html",
        staff=as_staff,
        course=as_staff.course,
        assignment=assignment,
        slots=difficulty.class_difficulty(current_user, assignment_id),
        ceiling=MISCONCEPTION_CEILING,
        floor=SLIP_FLOOR,
    )


@bp.get("/courses/<int:course_id>/statistics")
def statistics_page(course_id: int) -> Any:
    as_staff, by_assignment = stats.statistics(current_user, course_id)
    histograms = {
        s.slot_id: charts.column_chart(
            f"Scores on {a.title}: {s.index + 1}. {s.title}",
            stats.histogram_labels(),
            s.histogram,
            x_label="slot score (best or last attempt)",
            y_label="students",
        )
        for a, slots in by_assignment
        for s in slots
    }
    return render_template(
        "instructor/statistics.html",
        staff=as_staff,
        course=as_staff.course,
        assignments=by_assignment,
        histograms=histograms,
        labels=stats.histogram_labels(),
    )


@bp.get("/courses/<int:course_id>/misconceptions")
def misconceptions_page(course_id: int) -> Any:
    as_staff, assignments, counts = stats.misconceptions(current_user, course_id)
    codes = counts.codes
    names = [misconception_name(c) for c in codes]  # the codes themselves show on hover
    overall = charts.horizontal_bars(
        "Wrong answers by misconception, whole course",
        names,
        [counts.total.get(c, 0) for c in codes],
        x_label="wrong attempts",
        y_label="misconception",
    )
    per_assignment = {
        a.id: charts.horizontal_bars(
            f"Wrong answers by misconception: {a.title}",
            names,
            [counts.by_assignment.get(a.id, Counter()).get(c, 0) for c in codes],
            x_label="wrong attempts",
            y_label="misconception",
        )
        for a in assignments
    }
    weeks = sorted(counts.by_week)
    over_time = charts.stacked_columns(
        "Wrong answers by misconception, per week",
        weeks,
        {
            misconception_name(c): [counts.by_week[w].get(c, 0) for w in weeks]
            for c in codes
            if any(counts.by_week[w].get(c, 0) for w in weeks)
        },
        x_label="ISO week",
        y_label="wrong attempts",
    )
    return render_template(
        "instructor/misconceptions.html",
        staff=as_staff,
        course=as_staff.course,
        assignments=assignments,
        misconceptions=counts,
        overall=overall,
        overall_values=[counts.total.get(c, 0) for c in codes],
        per_assignment=per_assignment,
        over_time=over_time,
        weeks=weeks,
    )


@bp.get("/courses/<int:course_id>/audit")
def audit(course_id: int) -> Any:
    as_staff = staff(current_user, course_id)
    found = audit_log.entries(current_user, course_id)
    return render_template(
        "instructor/audit.html",
        staff=as_staff,
        course=as_staff.course,
        entries=found,
        people=audit_log.people(found),
    )
