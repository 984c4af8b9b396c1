"""The staff pages' words (issue 50): counts read "1 instructor", never "1 instructors"."""

from __future__ import annotations

import re
from html import unescape

from tests.app_support import csrf_from
from tests.instructor_support import TA, TEACHER, user
from tests.web.instructor.pages_support import field_error


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_counts_of_one_read_in_the_singular(client, teacher):
    page = client.get(f"/instructor/courses/{teacher.course_id}").get_data(as_text=True)
    people = _text(page.split('data-role="people"', 1)[1].split("</p>", 1)[0])
    assert "2 students, 1 TA, 1 instructor." in people
    token = csrf_from(page)
    imported = client.post(
        f"/instructor/courses/{teacher.course_id}/roster/import",
        data={"csrf_token": token, "csv_text": "zed@example.com,Zed\n"},
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "1 invite link" in imported and "1 invite links" not in imported
    assert TEACHER not in people


def test_a_refused_accommodations_list_comes_back_as_typed_beside_its_error(client, teacher):
    page_url = f"/instructor/assignments/{teacher.assignment_id}"
    token = csrf_from(client.get(page_url).get_data(as_text=True))
    rows = [f"student{n}@example.com,2026-12-08 23:59" for n in range(40)]
    typed = "bob@example.com,2026-12-08 23:59\n" + "\n".join(rows) + "\n"
    answer = client.post(
        f"{page_url}/extensions/import", data={"csrf_token": token, "csv_text": typed}
    )
    html = answer.get_data(as_text=True)
    assert answer.status_code == 422
    box = html.split('id="csv_text"', 1)[1].split("</textarea>", 1)[0]
    assert "student39@example.com,2026-12-08 23:59" in box and "bob@example.com" in box
    error = field_error(html, "csv_text")
    assert error.startswith("Nothing was applied")
    assert "line 41: student39@example.com is not a student of this course" in error
    # The message sits right after the box, not at the top of the page.
    assert html.index('id="csv_text-error"') - html.index('id="csv_text"') < len(typed) + 400


def test_a_refused_roster_import_applies_nothing_and_keeps_the_list(client, teacher):
    roster_page = f"/instructor/courses/{teacher.course_id}/roster"
    token = csrf_from(client.get(roster_page).get_data(as_text=True))
    typed = "zed@example.com,Zed\nnot-an-email,Nobody\n"
    answer = client.post(f"{roster_page}/import", data={"csrf_token": token, "csv_text": typed})
    html = answer.get_data(as_text=True)
    assert answer.status_code == 422
    assert "zed@example.com,Zed" in html.split('id="csv_text"', 1)[1].split("</textarea>")[0]
    assert "line 2" in field_error(html, "csv_text")
    roster = client.get(roster_page).get_data(as_text=True)
    assert "zed@example.com" not in roster.split('id="csv_text"')[0]


def test_a_course_refused_for_its_zone_keeps_its_name_and_offers_the_zones(client, teacher):
    page = client.get("/instructor/").get_data(as_text=True)
    assert 'list="time-zones"' in page
    assert '<option value="America/Chicago">' in page.split('id="time-zones"', 1)[1]
    answer = client.post(
        "/instructor/courses",
        data={"csrf_token": csrf_from(page), "name": "Search 201", "timezone": "Central"},
    )
    html = answer.get_data(as_text=True)
    assert answer.status_code == 422
    assert re.search(r'<input[^>]*id="name"[^>]*value="Search 201"', html)
    assert "is not an IANA time zone" in field_error(html, "timezone")


def test_a_course_page_refusing_a_zone_keeps_it_beside_its_error(client, teacher):
    page_url = f"/instructor/courses/{teacher.course_id}"
    page = client.get(page_url).get_data(as_text=True)
    answer = client.post(
        f"{page_url}/timezone", data={"csrf_token": csrf_from(page), "timezone": "Central"}
    )
    html = answer.get_data(as_text=True)
    assert answer.status_code == 422
    assert re.search(r'<input[^>]*id="timezone"[^>]*value="Central"', html)
    error = unescape(field_error(html, "timezone"))
    assert "'Central' is not an IANA time zone" in error
    assert '<option value="America/Chicago">' in html.split('id="time-zones"', 1)[1]
    # The message is the field's, not a flash at the top; the course keeps its zone.
    assert 'class="flash' not in html.split('id="main"', 1)[1].split('id="timezone"', 1)[0]
    shown = client.get(page_url).get_data(as_text=True)
    assert "Dates are typed and shown in <strong>UTC</strong>" in shown
    moved = unescape(
        client.post(
            f"{page_url}/timezone",
            data={"csrf_token": csrf_from(shown), "timezone": "America/Chicago"},
            follow_redirects=True,
        ).get_data(as_text=True)
    )
    assert "The course's dates are shown and typed in America/Chicago now." in moved
    assert "Dates are typed and shown in <strong>America/Chicago</strong>" in moved


def test_a_tas_dashboard_leads_with_the_courses_they_teach(app, client, auth, room):
    from grader.services.courses import slip_days

    with app.app_context():
        slip_days.set_slip_days(user(TEACHER), room.course_id, 2)
    auth.login(TA)
    html = client.get("/dashboard").get_data(as_text=True)
    main = html.split("<h1>Dashboard</h1>", 1)[1]
    first = re.search(r"<h2[^>]*>([^<]+)</h2>", main)
    assert first and first.group(1) == "Courses you teach"
    teaching = main.split('data-role="teaching"', 1)[1].split("</section>", 1)[0]
    assert f'href="/instructor/courses/{room.course_id}"' in teaching and "Search 101" in teaching
    # What a student of the course reads is not the TA's: no slots to start, no slip days.
    assert "not started" not in main and "Slip days left" not in main
    assert "Homework 1" not in main


def test_the_audit_log_says_its_changes_in_sentences(app, client, auth, factory):
    import datetime as dt

    from grader.services.courses import extensions, slip_days
    from tests.instructor_support import ALICE, make_room

    room = make_room(app, factory, due_at=dt.datetime(2026, 12, 5, 5, 59), late=10)
    with app.app_context():
        factory_user = user(TEACHER)
        extensions.grant(
            factory_user,
            room.course_id,
            extensions.ExtensionInput(
                assignment_id=room.assignment_id, email=ALICE, days=2, extra_attempts=1
            ),
        )
        slip_days.set_slip_days(factory_user, room.course_id, 2)
    auth.login(TEACHER)
    html = client.get(f"/instructor/courses/{room.course_id}/audit").get_data(as_text=True)
    said = [
        re.sub(r"\s+", " ", s)
        for s in re.findall(r'<p data-role="audit-change">(.*?)</p>', html, re.S)
    ]
    assert "Slip days per student: 0 before, 2 now." in said
    assert (
        "Extension granted to alice@example.com on Homework 1: due Mon 7 Dec 2026, 05:59 UTC, "
        "1 extra attempt." in said
    )
    assert "null" not in html and "→" not in html and "{&#34;" not in html


def test_demoting_oneself_is_not_allowed_and_says_so(client, teacher):
    roster_page = f"/instructor/courses/{teacher.course_id}/roster"
    token = csrf_from(client.get(roster_page).get_data(as_text=True))
    answer = client.post(
        f"{roster_page}/{teacher.ids[TEACHER]}/role", data={"csrf_token": token, "role": "ta"}
    )
    html = answer.get_data(as_text=True)
    assert answer.status_code == 403
    assert re.search(r"<h1>Not allowed <span[^>]*>\(error 403\)</span></h1>", html)
    assert "Changed meanwhile" not in html
    assert "another instructor of the course can" in html


def test_an_empty_assignment_warns_before_students_see_it(client, teacher):
    new_page = f"/instructor/courses/{teacher.course_id}/assignments/new"
    form = client.get(new_page).get_data(as_text=True)
    assert "an empty one (no preset) is shown to them before its exercises are added" in form
    made = client.post(
        new_page,
        data={
            "csrf_token": csrf_from(form),
            "title": "Quiz 0",
            "preset": "",
            "score_policy": "best",
        },
        follow_redirects=True,
    ).get_data(as_text=True)
    warning = _text(made.split('data-role="empty-warning"', 1)[1].split("</p>", 1)[0])
    assert "It has no exercise yet. Its students see an empty assignment now" in warning
    full = client.get(f"/instructor/assignments/{teacher.assignment_id}").get_data(as_text=True)
    assert 'data-role="empty-warning"' not in full


def test_a_course_without_answers_says_so_instead_of_drawing_zeros(client, teacher):
    c = teacher.course_id
    for page in (f"/instructor/courses/{c}/statistics", f"/instructor/courses/{c}/misconceptions"):
        html = client.get(page).get_data(as_text=True)
        assert '<svg class="chart"' not in html, page
        assert 'data-role="no-chart"' in html, page
    misconceptions = client.get(f"/instructor/courses/{c}/misconceptions").get_data(as_text=True)
    assert "Wrong answers by misconception, whole course: no wrong attempts yet." in _text(
        misconceptions
    )
