"""Bulk work is bounded (issue 36, section 4): an exam print's sheets, a course's and the
service's sheets in 24 hours, one print and one integrity check of a course at a time. Each
refusal says why in words, on the page and on the command line, and stores and queues
nothing. Counts of rows and of queue messages, never wall time."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import DONE, ExamPrint, IntegrityCheck
from tests.app_support import csrf_from
from tests.instructor_support import TEACHER, add_slot, make_room, user


@pytest.fixture
def sent(app: Any) -> list[tuple]:
    """The queue messages the requests send (the queue on the app, as the pages reach it)."""
    messages: list[tuple] = []
    app.extensions["grader_jobs"] = lambda job, args, priority: messages.append((job, args))
    return messages


def count(app: Any, model: Any) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count(model.id)))


def ask_print(client: Any, assignment_id: int, anonymous: int | str = "") -> Any:
    page = f"/instructor/assignments/{assignment_id}/exam"
    token = csrf_from(client.get(page).get_data(as_text=True))
    return client.post(page, data={"paper": "a4", "anonymous": str(anonymous), "csrf_token": token})


def finish_prints(app: Any) -> None:
    """The runs asked for so far, as a worker leaves them once printed."""
    with app.app_context():
        db.session.execute(sa.update(ExamPrint).values(status=DONE))
        db.session.commit()


def second_assignment(app: Any, course_id: int) -> int:
    from grader.services.teaching import editor

    with app.app_context():
        teacher = user(TEACHER)
        made = editor.create_assignment(
            teacher, course_id, editor.AssignmentInput(title="Homework 2")
        )
        add_slot(teacher, made.id, "values", "Values", params={"depth": 3, "min_cutoffs": 1})
        return made.id


def test_ten_prints_of_1000_sheets_are_refused_before_anything_is_stored(
    app, client, factory, auth, sent
):
    """The attack measured: ten requests for 1,000 anonymous sheets each (3.3 h of CPU, 6 GB)
    were all accepted. Each is refused now, naming the limit, and nothing is stored or queued."""
    room = make_room(app, factory)
    auth.login(TEACHER)
    for _ in range(10):
        reply = ask_print(client, room.assignment_id, 1000)
        text = reply.get_data(as_text=True)
        assert reply.status_code == 400, text
        assert "a print run makes at most 400 sheets" in text
        assert "1000 anonymous sheets asked for" in text
    assert count(app, ExamPrint) == 0 and sent == []


def test_a_roster_past_the_sheets_per_print_is_refused_and_says_how_to_print_it(
    app, client, factory, auth, sent
):
    room = make_room(app, factory)  # two students: Alice and Bob
    app.config["GRADER_EXAM_SHEETS_PER_PRINT"] = 1
    auth.login(TEACHER)
    reply = ask_print(client, room.assignment_id)
    text = reply.get_data(as_text=True)
    assert reply.status_code == 400
    assert "one sheet per student makes 2 sheets" in text
    assert "print anonymous sheets in runs of 1 or fewer" in text
    assert count(app, ExamPrint) == 0 and sent == []


def test_a_course_prints_one_run_at_a_time(app, client, factory, auth, sent):
    room = make_room(app, factory)
    other = second_assignment(app, room.course_id)
    auth.login(TEACHER)
    assert ask_print(client, room.assignment_id, 5).status_code == 302
    with app.app_context():
        first = db.session.scalar(sa.select(ExamPrint.id))
    assert sent == [("print_exam", (first,))]
    for assignment_id in (room.assignment_id, other):  # the same assignment, or another
        reply = ask_print(client, assignment_id, 5)
        text = reply.get_data(as_text=True)
        assert reply.status_code == 409
        assert f"print run {first} of “Homework 1” is still queued" in text
        assert "a course prints one run at a time" in text
    assert count(app, ExamPrint) == 1 and len(sent) == 1
    finish_prints(app)
    assert ask_print(client, other, 5).status_code == 302  # once it has finished


def test_a_courses_sheets_in_24_hours_are_bounded_then_the_services(
    app, client, factory, auth, sent
):
    """Past the course's daily sheets a print is a 429 whose Retry-After is when the oldest
    counted run leaves the 24 hours; another course prints until the service's own bound."""
    room = make_room(app, factory)
    app.config.update(
        GRADER_EXAM_SHEETS_PER_PRINT=20,
        GRADER_EXAM_SHEETS_PER_COURSE_DAY=30,
        GRADER_EXAM_SHEETS_PER_DAY=45,
    )
    auth.login(TEACHER)
    assert ask_print(client, room.assignment_id, 20).status_code == 302
    finish_prints(app)
    reply = ask_print(client, room.assignment_id, 11)
    text = reply.get_data(as_text=True)
    assert reply.status_code == 429
    assert "this course printed or queued 20 sheets in the last 24 hours" in text
    assert "may print 30 a day" in text and "10 can be printed now" in text
    assert 23 * 3600 < int(reply.headers["Retry-After"]) <= 24 * 3600
    assert count(app, ExamPrint) == 1 and len(sent) == 1
    assert ask_print(client, room.assignment_id, 10).status_code == 302  # what is left
    finish_prints(app)

    # Another course of the same teacher: its own 30 a day, but the service's 45 in all.
    course_id, _ = factory.course("Search 102", TEACHER)
    factory.user("carol@example.com")
    factory.member(course_id, "carol@example.com", "student")
    other = second_assignment(app, course_id)
    reply = ask_print(client, other, 20)
    text = reply.get_data(as_text=True)
    assert reply.status_code == 429
    assert "the service, for all its courses, printed or queued 30 sheets" in text
    assert "may print 45 a day" in text
    assert count(app, ExamPrint) == 2 and len(sent) == 2
    assert ask_print(client, other, 15).status_code == 302


def test_a_refused_print_says_when_it_fits_in_the_courses_zone(app, client, factory, auth, sent):
    """The time from which the sheets fit is told as the course's clock reads it, named: a
    course in America/Chicago reads CST, never UTC."""
    import datetime as dt
    from zoneinfo import ZoneInfo

    from grader.models import Course

    room = make_room(app, factory)
    with app.app_context():
        db.session.get(Course, room.course_id).timezone = "America/Chicago"
        db.session.commit()
    app.config.update(GRADER_EXAM_SHEETS_PER_PRINT=20, GRADER_EXAM_SHEETS_PER_COURSE_DAY=30)
    auth.login(TEACHER)
    assert ask_print(client, room.assignment_id, 20).status_code == 302
    finish_prints(app)
    with app.app_context():
        asked = db.session.scalar(sa.select(ExamPrint.created_at))
    fits = (asked + dt.timedelta(hours=24)).replace(tzinfo=dt.UTC)
    chicago = fits.astimezone(ZoneInfo("America/Chicago"))
    reply = ask_print(client, room.assignment_id, 11)
    text = " ".join(reply.get_data(as_text=True).split())
    assert reply.status_code == 429
    said = f"these 11 from {chicago:%a} {chicago.day} {chicago:%b %Y, %H:%M} "
    assert said + f"{chicago.tzname()} (America/Chicago)" in text, text
    assert chicago.tzname() in ("CST", "CDT") and "UTC" not in text


def test_the_print_page_states_the_bounds(app, client, factory, auth):
    room = make_room(app, factory)
    auth.login(TEACHER)
    text = client.get(f"/instructor/assignments/{room.assignment_id}/exam").get_data(as_text=True)
    assert "A print run makes at most 400 sheets, and a course prints one run at a time." in text
    assert "This course may print 1,000 sheets in any 24 hours: 0 printed or queued so far." in (
        " ".join(text.split())
    )


def test_the_command_line_print_is_bounded_too(app, factory, runner, tmp_path):
    room = make_room(app, factory)
    app.config["GRADER_EXAM_SHEETS_PER_PRINT"] = 1
    out = tmp_path / "out"
    args = ["exam", "print", "--assignment", str(room.assignment_id), "--out", str(out)]
    done = runner.invoke(args=[*args, "--anonymous", "2"])
    assert done.exit_code != 0
    assert "a print run makes at most 1 sheet (the service's limit)" in done.output
    assert count(app, ExamPrint) == 0 and not out.exists()


def test_a_course_runs_one_integrity_check_at_a_time(app, client, factory, auth, sent):
    """A second check of the course while one is queued is refused on the page, naming it,
    and nothing is stored or queued; asking again for the same one gives it back."""
    room = make_room(app, factory)
    other = second_assignment(app, room.course_id)
    auth.login(TEACHER)
    page = f"/instructor/assignments/{room.assignment_id}/answers-matching"
    token = csrf_from(client.get(page).get_data(as_text=True))
    assert client.post(page, data={"csrf_token": token}).status_code == 302
    with app.app_context():
        first = db.session.scalar(sa.select(IntegrityCheck.id))
    assert [job for job, _ in sent] == ["integrity_check"]
    reply = client.post(
        f"/instructor/assignments/{other}/answers-matching",
        data={"csrf_token": token},
        follow_redirects=True,
    )
    text = reply.get_data(as_text=True)
    assert f"answers check {first} of “Homework 1” is still queued" in text
    assert "a course runs one integrity check at a time" in text
    again = client.post(page, data={"csrf_token": token}, follow_redirects=True)
    assert f"Answers check {first} is queued." in again.get_data(as_text=True)
    assert count(app, IntegrityCheck) == 1 and len(sent) == 1


def test_the_command_line_check_is_refused_while_the_courses_check_runs(app, factory, runner, sent):
    from grader.services.integrity import answers

    room = make_room(app, factory)
    other = second_assignment(app, room.course_id)
    with app.app_context():
        first = answers.request_check(user(TEACHER), room.assignment_id).id
    done = runner.invoke(args=["integrity", "answers", "--assignment", str(other)])
    assert done.exit_code != 0
    assert f"answers check {first} of “Homework 1” is still queued" in done.output
    assert count(app, IntegrityCheck) == 1
