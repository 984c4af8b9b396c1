"""The Regrades tab: an instructor starts a regrade with a reason, a worker computes its preview
(the one runner, as `grader worker` runs it), the page shows the histogram of changes with its
table and each student's old and new score and what changed; the choice applies it, and the
student reads on their dashboard what changed and why. A TA reads but may not start or apply."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import TermRegrade
from tests.app_support import csrf_from
from tests.services.term_regrade_support import (
    STUDENTS,
    TA,
    TEACHER,
    build_term,
    group_of,
    plant_rule_change,
    plant_suite_fix,
)

COUNT = 6


@pytest.fixture
def term(app, factory, tmp_path, monkeypatch):
    made = build_term(app, factory, tmp_path, COUNT)
    plant_suite_fix(made)
    plant_rule_change(monkeypatch)
    return made


def _start(client, term) -> int:
    page = client.get(f"/instructor/courses/{term.course_id}/regrades")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'aria-current="page">Regrades</a>' in html
    done = client.post(
        f"/instructor/courses/{term.course_id}/regrades",
        data={
            "csrf_token": csrf_from(html),
            "scope": f"a{term.assignment_id}",
            "reason": "the perft test was worth too much",
        },
    )
    assert done.status_code == 302
    return int(done.headers["Location"].rsplit("/", 1)[1])


def _compute(app, regrade_id: int) -> None:
    from grader.jobs import run_term_regrade

    with app.app_context():
        assert run_term_regrade(regrade_id, "test-worker") == "done"
        db.session.remove()


def test_the_preview_page_then_the_choice_then_the_students_note(app, client, auth, term):
    auth.login(TEACHER)
    regrade_id = _start(client, term)
    waiting = client.get(f"/instructor/regrades/{regrade_id}").get_data(as_text=True)
    assert "being computed at low priority (queued)" in waiting
    _compute(app, regrade_id)
    html = client.get(f"/instructor/regrades/{regrade_id}").get_data(as_text=True)
    moved = sum(group_of(i) != "same" for i in range(COUNT)) + sum(
        group_of(i, 1) != "same" for i in range(COUNT)
    )
    people = sum(group_of(i) != "same" or group_of(i, 1) != "same" for i in range(COUNT))
    assert f"{moved} scores of {people} students change" in html
    rows = re.findall(r'<tr data-change="(up|down)">', html)
    assert len(rows) == moved and set(rows) == {"up", "down"}
    assert re.search(r'<svg [^>]*role="img"', html)
    assert "Change in percentage points as a table" in html
    assert "Perft 4: start: 3 of 3 is now 1 of 1" in html
    assert "Nothing is applied yet" in html
    done = client.post(
        f"/instructor/regrades/{regrade_id}/apply",
        data={"csrf_token": csrf_from(html), "choice": "replace"},
        follow_redirects=True,
    )
    text = done.get_data(as_text=True)
    uploads = sum(group_of(i) != "same" for i in range(COUNT))
    attempts = 3 * sum(group_of(i, 1) != "same" for i in range(COUNT))
    assert (
        f"Applied (replace every changed score): {uploads + attempts} scores changed, 0 kept"
        in text
    )
    assert "Applied</strong>" in text and "Apply</button>" not in text
    auth.logout()
    lowered = next(i for i in range(COUNT) if group_of(i) == "down")
    auth.login(STUDENTS[lowered])
    dashboard = client.get("/dashboard").get_data(as_text=True)
    assert "Changed scores" in dashboard
    assert "was regraded because the perft test was worth too much" in dashboard
    assert re.search(r"Your score there went from [\d.]+% to [\d.]+%", dashboard)


def test_a_ta_reads_the_preview_but_cannot_start_or_apply(app, client, auth, term):
    auth.login(TEACHER)
    regrade_id = _start(client, term)
    _compute(app, regrade_id)
    auth.logout()
    auth.login(TA)
    html = client.get(f"/instructor/regrades/{regrade_id}").get_data(as_text=True)
    assert "students change" in html and "Apply</button>" not in html
    listing = client.get(f"/instructor/courses/{term.course_id}/regrades").get_data(as_text=True)
    assert "Start a regrade" not in listing
    refused = client.post(
        f"/instructor/regrades/{regrade_id}/apply",
        data={"csrf_token": csrf_from(html), "choice": "replace"},
    )
    assert refused.status_code == 403
    with app.app_context():
        assert db.session.get_one(TermRegrade, regrade_id).choice is None
        assert db.session.scalar(sa.select(sa.func.count()).select_from(TermRegrade)) == 1


def test_the_api_starts_previews_and_applies_with_a_staff_token(app, client, factory, term):
    teacher = {"Authorization": f"Bearer {factory.token(TEACHER)}"}
    reader = {"Authorization": f"Bearer {factory.token(TEACHER, ('read',))}"}
    url = f"/api/courses/{term.course_id}/term-regrades"
    body = {"assignment_id": term.assignment_id, "reason": "the suite was fixed"}
    assert client.post(url, json=body, headers=reader).status_code == 403  # scope staff
    assert client.post(url, json=body | {"extra": 1}, headers=teacher).status_code == 400
    started = client.post(url, json=body, headers=teacher)
    assert started.status_code == 202 and started.get_json()["status"] == "queued"
    regrade_id = started.get_json()["id"]
    apply = f"/api/term-regrades/{regrade_id}/apply"
    early = client.post(apply, json={"choice": "replace"}, headers=teacher)
    assert early.status_code == 409
    _compute(app, regrade_id)
    got = client.get(f"/api/term-regrades/{regrade_id}", headers=teacher).get_json()
    uploads = sum(group_of(i) != "same" for i in range(COUNT))
    attempts = 3 * sum(group_of(i, 1) != "same" for i in range(COUNT))
    assert got["status"] == "done" and got["examined"] == COUNT * 4
    assert len(got["students"]) == sum(
        (group_of(i) != "same") + (group_of(i, 1) != "same") for i in range(COUNT)
    )
    assert sum(got["histogram"]["counts"]) == len(got["students"])
    done = client.post(apply, json={"choice": "keep_higher"}, headers=teacher)
    assert done.status_code == 200
    lowered_uploads = sum(group_of(i) == "down" for i in range(COUNT))
    lowered_attempts = 3 * sum(group_of(i, 1) == "down" for i in range(COUNT))
    assert done.get_json() == {
        "changed": uploads + attempts - lowered_uploads - lowered_attempts,
        "kept": lowered_uploads + lowered_attempts,
        "stale": 0,
    }
    listed = client.get(url, headers=teacher).get_json()["regrades"]
    assert [r["choice"] for r in listed] == ["keep_higher"]


def test_the_staff_pages_say_what_gave_each_score_and_unknown_for_older_ones(
    app, client, auth, term
):
    from grader.models import Attempt, Submission, grader_version

    auth.login(TEACHER)
    student = term.ids[STUDENTS[0]]
    drill = f"/instructor/courses/{term.course_id}/students/{student}"
    uploads = f"/instructor/assignments/{term.assignment_id}/slots/0/engines"
    now = f"graded by grader {grader_version()}"
    assert f"{now}, rule 1" in client.get(drill).get_data(as_text=True)  # before the plant
    assert f"{now}, suite " in client.get(uploads).get_data(as_text=True)
    with app.app_context():
        db.session.execute(sa.update(Attempt).values(grader_version=None, rule_version=None))
        db.session.execute(sa.update(Submission).values(grader_version=None, suite_version=None))
        db.session.commit()
    unknown = "graded before versions were recorded (unknown versions)"
    assert unknown in client.get(drill).get_data(as_text=True)
    assert unknown in client.get(uploads).get_data(as_text=True)


def test_a_note_on_held_scores_waits_for_their_release(app, client, auth, term):
    import datetime as dt

    from grader.models import Assignment, utcnow
    from grader.services.teaching import regrade_choice

    auth.login(TEACHER)
    regrade_id = _start(client, term)
    _compute(app, regrade_id)
    with app.app_context():
        assignment = db.session.get_one(Assignment, term.assignment_id)
        assignment.hold_scores = True
        assignment.scores_release_at = utcnow() + dt.timedelta(days=2)
        db.session.commit()
    client.post(
        f"/instructor/regrades/{regrade_id}/apply",
        data={
            "csrf_token": csrf_from(
                client.get(f"/instructor/regrades/{regrade_id}").get_data(as_text=True)
            ),
            "choice": "replace",
        },
    )
    from tests.instructor_support import user

    lowered = STUDENTS[next(i for i in range(COUNT) if group_of(i) == "down")]
    with app.app_context():
        assert regrade_choice.notes(user(lowered)) == []  # held: not a word of it yet
        assignment = db.session.get_one(Assignment, term.assignment_id)
        assignment.scores_release_at = utcnow() - dt.timedelta(minutes=1)
        db.session.commit()
        assert len(regrade_choice.notes(user(lowered))) == 1


def test_a_student_or_another_course_s_instructor_reads_no_preview(
    app, client, auth, term, factory
):
    auth.login(TEACHER)
    regrade_id = _start(client, term)
    _compute(app, regrade_id)
    auth.logout()
    factory.user("other@example.com", "instructor")
    factory.course("Another course", "other@example.com")
    # A student of the course is refused; to another course's instructor it is not there.
    for email, refused in ((STUDENTS[0], 403), ("other@example.com", 404)):
        token = {"Authorization": f"Bearer {factory.token(email, ('read', 'staff'))}"}
        assert client.get(f"/api/term-regrades/{regrade_id}", headers=token).status_code == refused
        assert (
            client.post(
                f"/api/term-regrades/{regrade_id}/apply",
                json={"choice": "replace"},
                headers=token,
            ).status_code
            == refused
        )
        auth.login(email)
        assert client.get(f"/instructor/regrades/{regrade_id}").status_code == refused
        auth.logout()
    with app.app_context():
        assert db.session.get_one(TermRegrade, regrade_id).choice is None


def test_the_page_and_the_api_say_how_many_uploads_ran_in_the_sandbox(
    app, client, auth, factory, term
):
    # While the job runs the tests a suite gained, its progress is in words on the page and in
    # the API; once done, each upload run in the sandbox is listed with its points.
    auth.login(TEACHER)
    regrade_id = _start(client, term)
    with app.app_context():
        regrade = db.session.get_one(TermRegrade, regrade_id)
        regrade.status = "running"
        regrade.progress = {"phase": "sandbox", "uploads_done": 3, "uploads_total": 12}
        db.session.commit()
    html = client.get(f"/instructor/regrades/{regrade_id}").get_data(as_text=True)
    assert (
        'low priority (running: <span data-role="regrade-progress">3 of 12 uploads run in the '
        "sandbox</span>)" in html
    )
    teacher = {"Authorization": f"Bearer {factory.token(TEACHER)}"}
    got = client.get(f"/api/term-regrades/{regrade_id}", headers=teacher).get_json()
    assert got["progress"] == "3 of 12 uploads run in the sandbox"
    with app.app_context():
        regrade = db.session.get_one(TermRegrade, regrade_id)
        regrade.status, regrade.progress = "queued", {"phase": "queued"}
        db.session.commit()
    _compute(app, regrade_id)
    with app.app_context():
        regrade = db.session.get_one(TermRegrade, regrade_id)
        row = regrade.result["students"][0]
        upload = {
            "type": "submission",
            "id": 7,
            "user_id": row["user_id"],
            "student": row["student"],
            "slot_id": term.engine_slot,
            "slot": "“Term”, exercise 1 (Engine)",
            "old": 0.75,
            "new": 0.8,
            "old_points": [3.0, 4.0],
            "new_points": [4.0, 5.0],
            "changes": [
                "Move generation: start: new in the suite, run in the sandbox: passed, 1 of 1"
            ],
        }
        regrade.result = {**regrade.result, "sandbox": [upload]}
        db.session.commit()
    html = client.get(f"/instructor/regrades/{regrade_id}").get_data(as_text=True)
    assert "1 upload had the tests their suite gained since run in the sandbox" in html
    (listed,) = re.findall(r'<tr data-upload="7">(.*?)</tr>', html, re.S)
    assert "3 of 4 (75.00%)" in listed and "4 of 5 (80.00%)" in listed
    assert "Move generation: start: new in the suite, run in the sandbox: passed, 1 of 1" in listed
    got = client.get(f"/api/term-regrades/{regrade_id}", headers=teacher).get_json()
    assert got["progress"] is None and got["sandbox"][0]["new_points"] == [4.0, 5.0]
