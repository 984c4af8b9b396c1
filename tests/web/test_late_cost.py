"""No silent slip days (issue 50): before a late answer is stored, the exercise page and the API
say how late it is and what it will cost under the course's rule ("each started day counts");
the result, the API and the upload's page say what it spent. One function computes the cost
(`deadlines.cost_now` over `lateness_for`, which stores it)."""

from __future__ import annotations

import datetime as dt
import re

from grader.models import utcnow
from grader.services.courses import slip_days
from tests.app_support import bearer
from tests.instructor_support import ALICE, TEACHER, make_room, textbook_key, user


def _late_room(app, factory, slips: int):
    # A day and 36 minutes after the due time: two started days, so two days late.
    room = make_room(app, factory, due_at=utcnow() - dt.timedelta(days=1, minutes=36), late=10)
    with app.app_context():
        slip_days.set_slip_days(user(TEACHER), room.course_id, slips)
    return room


def _notice(html: str) -> str:
    found = re.search(r'<p class="flash" data-role="late-cost">(.*?)</p>', html, re.S)
    assert found, "the page says nothing of lateness"
    return re.sub(r"<[^>]+>", "", found.group(1))


def test_the_page_says_what_a_late_answer_will_spend_and_the_result_what_it_spent(
    app, client, auth, factory
):
    room = _late_room(app, factory, slips=2)
    auth.login(ALICE)
    notice = _notice(client.get(f"/assignments/{room.assignment_id}/slots/0").get_data(True))
    assert re.fullmatch(
        r"Late: Sent now, this work is 1 day 3\d minutes past your due time, so it is 2 days "
        r"late \(each started day counts\): it will spend 2 slip days\. "
        r"You have 2 slip days left for it\.",
        notice,
    ), notice
    headers = bearer(factory.token(ALICE))
    exercise = client.get(
        f"/api/assignments/{room.assignment_id}/slots/0/exercise", headers=headers
    ).get_json()
    assert exercise["late_cost"]["days_late"] == 2
    assert (exercise["late_cost"]["slip_days"], exercise["late_cost"]["penalty"]) == (2, 0)
    assert exercise["late_cost"]["words"] in notice
    made = client.post(
        exercise["urls"]["attempts"], headers=headers, json={"answer": textbook_key()}
    ).get_json()
    assert (made["days_late"], made["slip_days"], made["penalty"]) == (2, 2, 0)
    assert made["late_words"] == (
        "This work was 2 days late (each started day counts): it spent 2 slip days."
    )
    listed = client.get(f"/api/attempts/{made['attempt_id']}", headers=headers).get_json()
    assert listed["late_words"] == made["late_words"]


def test_the_penalty_beyond_the_slip_days_is_named_before(app, client, auth, factory):
    room = _late_room(app, factory, slips=1)
    auth.login(ALICE)
    notice = _notice(client.get(f"/assignments/{room.assignment_id}/slots/0").get_data(True))
    assert (
        "so it is 2 days late (each started day counts): it will spend 1 slip day and will take "
        "10% off the score (10% for each late day slip days do not cover). "
        "You have 1 slip day left for it." in notice
    )


def test_an_answer_on_time_says_nothing_of_lateness(app, client, auth, factory):
    room = make_room(app, factory, due_at=utcnow() + dt.timedelta(days=2), late=10)
    auth.login(ALICE)
    page = client.get(f"/assignments/{room.assignment_id}/slots/0").get_data(as_text=True)
    assert 'data-role="late-cost"' not in page


def test_the_engine_slot_says_what_a_late_upload_will_spend(app, client, auth, factory):
    from grader.services.engines import submissions

    room = _late_room(app, factory, slips=2)
    with app.app_context():
        index = submissions.add_engine_slot(room.assignment_id, suite="quick").index
    auth.login(ALICE)
    page = client.get(f"/assignments/{room.assignment_id}/slots/{index}/engine")
    notice = _notice(page.get_data(as_text=True))
    assert "so it is 2 days late (each started day counts): it will spend 2 slip days." in notice
