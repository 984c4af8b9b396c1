"""Staff find their pages: a TA or instructor reaches each course's staff pages from the header
and the dashboard whatever their account-wide role, and the header says the role in the page's
course."""

from __future__ import annotations

import re


def header(html: str) -> str:
    return html.split("<main")[0]


def test_a_ta_with_a_student_account_reaches_the_staff_pages(factory, client, auth):
    room = factory.classroom()
    factory.user("ta@example.com")  # an account-wide student
    factory.member(room["course_id"], "ta@example.com", "ta")
    auth.login("ta@example.com")
    dashboard = client.get("/dashboard").get_data(as_text=True)
    assert 'href="/instructor/"' in header(dashboard)  # the header's Staff pages link
    assert re.search(r'href="/instructor/courses/\d+"[^>]*>Staff pages</a>', dashboard)
    course_page = client.get(f"/instructor/courses/{room['course_id']}")
    assert course_page.status_code == 200
    assert "Search 101: you are a TA" in header(course_page.get_data(as_text=True))
    assert client.get("/instructor/").status_code == 200
    gradebook = client.get(f"/instructor/courses/{room['course_id']}/gradebook")
    assert gradebook.status_code == 200


def test_the_header_says_the_role_in_the_course_of_the_page(factory, client, auth):
    room = factory.classroom()
    factory.user("ta@example.com")
    factory.member(room["course_id"], "ta@example.com", "ta")
    other, _ = factory.course("Games 202", "teacher@example.com")
    factory.member(other, "ta@example.com", "student")
    auth.login("ta@example.com")
    here = header(client.get(f"/assignments/{room['assignment_id']}").get_data(as_text=True))
    assert "Search 101: you are a TA" in here
    mine = factory.assignment(other)
    there = header(client.get(f"/assignments/{mine}").get_data(as_text=True))
    assert "Games 202: you are a student" in there
    assert "you are" not in header(client.get("/practice").get_data(as_text=True))


def test_a_student_sees_no_staff_link(factory, client, auth):
    factory.classroom()
    auth.login("student@example.com")
    html = client.get("/dashboard").get_data(as_text=True)
    assert "/instructor/" not in html and "Staff pages" not in html


def test_an_instructor_account_without_a_course_still_has_the_link(factory, client, auth):
    factory.user("new@example.com", "instructor")
    auth.login("new@example.com")
    assert 'href="/instructor/"' in header(client.get("/dashboard").get_data(as_text=True))


def test_the_header_says_the_role_on_every_course_page_a_ta_reaches(app, factory, client, auth):
    """Pages whose address names only an object (an exercise, an upload, a tournament) say the
    role in that object's course, as the pages whose address names the course do."""
    from grader.extensions import db
    from grader.models import Tournament
    from grader.services import accounts
    from grader.services.engines import submissions
    from grader.services.trees import exercises
    from tests.jobs.engine_support import engine_bytes

    room = factory.classroom()
    factory.user("ta@example.com")
    factory.member(room["course_id"], "ta@example.com", "ta")
    course, assignment = room["course_id"], room["assignment_id"]
    with app.app_context():
        student = accounts.user_by_email("student@example.com")
        exercise = exercises.slot_exercise(student, assignment, 0).id
        slot = submissions.add_engine_slot(assignment, suite="quick")
        index = slot.index
        upload = submissions.upload(
            student, assignment, index, engine_bytes("correct"), "engine.py"
        ).id
        tournament = Tournament(slot_id=slot.id, params={})
        db.session.add(tournament)
        db.session.commit()
        tournament_id = tournament.id
    auth.login("ta@example.com")
    pages = [
        f"/instructor/courses/{course}",
        f"/instructor/courses/{course}/gradebook",
        f"/instructor/courses/{course}/reports",
        f"/assignments/{assignment}",
        f"/instructor/assignments/{assignment}/slots/{index}/engines",
        f"/exercises/{exercise}",  # a student's exercise: its course from the exercise
        f"/engines/{upload}",  # a student's upload: from the upload
        f"/instructor/tournaments/{tournament_id}",  # from the tournament's slot
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert "Search 101: you are a TA" in header(response.get_data(as_text=True)), url
