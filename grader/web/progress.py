"""Adaptive practice pages: the student's progress per misconception, "Practise my weak spots"
(one click, the next tree planned for them), what a weak-spots tree was meant to expose (after
an answer: `GET /api/exercises/<id>/aim`, in `web/api/student.py`), and the course's view for
its staff. Thin views over `grader.services.trees.practice`."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, render_template, url_for
from flask_login import current_user, login_required

from grader.gametree import VARIANTS
from grader.gametree.adaptive import (
    DESCRIPTIONS,
    MASTERED,
    MASTERY,
    NOT_SEEN,
    PRACTISING,
    Standing,
)
from grader.services.trees import practice
from grader.web import charts
from grader.web.forms import ActionForm
from grader.web.words import misconception_name

bp = Blueprint("progress", __name__)

COLOURS = {MASTERED: charts.PALETTE[2], PRACTISING: charts.PALETTE[1], NOT_SEEN: charts.PALETTE[8]}


@bp.before_request
@login_required
def _signed_in() -> None:
    """Every page here needs a signed-in user."""


@bp.get("/progress")
def student_progress() -> Any:
    standing = practice.progress(current_user)
    # A misconception not seen in the student's answers has no bar: right answers on trees
    # that expose it count towards mastering it, but a bar there would read as progress on
    # something they never showed; its note says the count.
    chart = charts.horizontal_bars(
        "Your progress per misconception",
        [misconception_name(s.code) for s in standing.standings],
        [None if s.status == NOT_SEEN else min(s.streak, MASTERY) for s in standing.standings],
        x_label=f"right answers in a row on trees that expose it ({MASTERY}: mastered)",
        y_label="misconception",
        colours=[COLOURS[s.status] for s in standing.standings],
        notes=[_note(s) for s in standing.standings],
        top_value=MASTERY,
    )
    return render_template(
        "progress/student.html",
        progress=standing,
        chart=chart,
        statuses=(MASTERED, PRACTISING),  # a misconception not seen has no bar
        colours=COLOURS,
        descriptions=DESCRIPTIONS,
    )


def _note(one: Standing) -> str:
    if one.status != NOT_SEEN:
        return one.status
    if one.streak:
        return f"not seen; {min(one.streak, MASTERY)} of {MASTERY} right in a row"
    return "not seen"


@bp.post("/practice/weak-spots")
def weak_spots() -> Any:
    if not ActionForm().validate_on_submit():
        return redirect(url_for("progress.student_progress"))
    exercise = practice.practise_weak_spots(current_user)
    return redirect(url_for("pages.exercise", exercise_id=exercise.id))


@bp.get("/instructor/courses/<int:course_id>/progress")
def course_progress(course_id: int) -> Any:
    course_progress = practice.course_progress(current_user, course_id)
    codes = list(VARIANTS)
    chart = charts.horizontal_bars(
        "Students who hold each misconception now",
        [misconception_name(c) for c in codes],
        [course_progress.holding[c] for c in codes],
        x_label="students practising it (their answers matched it, not mastered since)",
        y_label="misconception",
    )
    return render_template(
        "progress/course.html",
        staff=course_progress.staff,
        course=course_progress.staff.course,
        course_progress=course_progress,
        codes=codes,
        chart=chart,
        stuck_after=practice.STUCK,
    )
