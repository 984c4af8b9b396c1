"""The paper exam's pages: printing through the queue's job body, progress and files, and an
answer entered from a sheet by a TA."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.gametree import KINDS, Conventions, Tree
from grader.models import ExamItem, ExamPrint, ExamSheet, Slot
from tests.app_support import csrf_from
from tests.instructor_support import ALICE, TA, TEACHER, TEXTBOOK, make_room


def test_an_instructor_prints_a_worker_renders_and_a_ta_enters_an_answer(
    app: Any, client: Any, factory: Any, auth: Any
) -> None:
    from grader.services.paper import printing

    room = make_room(app, factory)
    auth.login(TEACHER)
    page = client.get(f"/instructor/assignments/{room.assignment_id}/exam")
    assert page.status_code == 200 and "Print the sheets" in page.get_data(as_text=True)
    sent: list[tuple] = []
    app.extensions["grader_jobs"] = lambda job, args, priority: sent.append((job, args))
    reply = client.post(
        f"/instructor/assignments/{room.assignment_id}/exam",
        data={"paper": "a4", "anonymous": "", "csrf_token": csrf_from(page.get_data(as_text=True))},
    )
    assert reply.status_code == 302
    with app.app_context():
        run_id = db.session.scalar(sa.select(ExamPrint.id))
    assert sent == [("print_exam", (run_id,))]  # the job is queued, not done in the request
    status = client.get(f"/instructor/exam-prints/{run_id}").get_json()
    assert status["status"] == "queued" and status["files"] == {}
    assert client.get(f"/instructor/exam-prints/{run_id}/key.pdf").status_code == 409
    with app.app_context():  # the worker's job body
        printing.run_print(run_id, "test-worker")
    status = client.get(f"/instructor/exam-prints/{run_id}").get_json()
    assert status["status"] == "done" and status["progress"]["phase"] == "done"
    archive = client.get(status["files"]["sheets.zip"])
    assert archive.headers["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(archive.data)).namelist()
    assert len([n for n in names if n.startswith("sheets/")]) == 2  # Alice and Bob
    key = client.get(status["files"]["key.pdf"])
    assert key.data.startswith(b"%PDF") and "attachment" in key.headers["Content-Disposition"]

    # A TA opens Alice's sheet by its code (typed in lower case, with spaces), then saves.
    with app.app_context():
        code, index = db.session.execute(
            sa.select(ExamSheet.code, ExamItem.slot_index)
            .join(ExamItem)
            .join(Slot)
            .where(ExamSheet.user_id == room.ids[ALICE], Slot.title == "Textbook tree")
        ).one()
    auth.logout()
    auth.login(TA)
    opened = client.get("/exams/sheets", query_string={"code": f" {code[:5].lower()} {code[5:]} "})
    assert opened.status_code == 302
    entry = client.get(f"/exams/sheets/{code}/{index}")
    html = entry.get_data(as_text=True)
    assert entry.status_code == 200 and ALICE in html
    key_answer = KINDS["prune"].key(Tree.from_nested(TEXTBOOK), Conventions())
    token = csrf_from(client.get("/practice").get_data(as_text=True))
    headers = {"X-CSRFToken": token}
    saved = client.post(
        f"/exams/sheets/{code}/{index}",
        json={"answer": key_answer, "version": 0},
        headers=headers,
    )
    assert saved.status_code == 200, saved.get_json()
    body = saved.get_json()
    assert body["score"] == 1.0 and body["version"] == 1 and body["solution"]["key"] == key_answer
    assert body["user"] == ALICE and body["history"][0]["entered_by"] == TA
    # A stale version (another entry since), an ungradable answer, unknown keys, bad types.
    stale = {"answer": {"pruned": [], "value": 3}, "version": 0}
    assert (
        client.post(f"/exams/sheets/{code}/{index}", json=stale, headers=headers).status_code == 409
    )
    assert (
        client.post(
            f"/exams/sheets/{code}/{index}", json={"answer": {}, "version": 1}, headers=headers
        ).status_code
        == 422  # well formed, not of the exercise's kind (as the API's answer)
    )
    for bad in (
        {"answer": key_answer, "version": 1, "x": 1},
        {"answer": key_answer, "version": "1"},
    ):
        assert (
            client.post(f"/exams/sheets/{code}/{index}", json=bad, headers=headers).status_code
            == 400
        )
    assert client.get("/exams/sheets/AAAAA-AAAAA").status_code == 404
    assert client.get("/exams/sheets", query_string={"code": "nope"}).status_code == 404


def test_students_see_no_exam_page(app: Any, client: Any, factory: Any, auth: Any) -> None:
    room = make_room(app, factory)
    auth.login(ALICE)
    assert client.get(f"/instructor/assignments/{room.assignment_id}/exam").status_code == 403
    assert client.get("/exams/sheets", query_string={"code": "AAAAA-AAAAA"}).status_code == 404


def test_an_answers_entries_are_told_in_the_courses_zone(
    app: Any, client: Any, factory: Any, auth: Any
) -> None:
    """The entries of an answer on paper, on the page, in the save's reply and in a refusal,
    are told in the course's zone, named (issue 50's one clock), never as ISO's UTC."""
    import re

    from grader.models import Course
    from tests.services.paper.paper_support import sheets_made, textbook_item

    room = make_room(app, factory)
    with app.app_context():
        db.session.get(Course, room.course_id).timezone = "America/Chicago"
        db.session.commit()
    code, index = textbook_item(app, sheets_made(app, room), ALICE)
    auth.login(TA)
    url = f"/exams/sheets/{code}/{index}"
    headers = {"X-CSRFToken": csrf_from(client.get("/practice").get_data(as_text=True))}
    wrong = {"pruned": [], "value": 3}
    saved = client.post(url, json={"answer": wrong, "version": 0}, headers=headers).get_json()
    chicago = r"\w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d C[SD]T \(America/Chicago\)"
    [line] = saved["history_lines"]
    assert re.fullmatch(chicago + rf": {re.escape(TA)}, score 0\.\d\d", line), line
    page = client.get(url).get_data(as_text=True)
    listed = page.split('data-role="history"', 1)[1].split("</ol>", 1)[0]
    assert f"<li>{line}</li>" in listed and "Z:" not in listed
    refused = client.post(url, json={"answer": wrong, "version": 0}, headers=headers)
    assert refused.status_code == 409
    said = " ".join(refused.get_data(as_text=True).replace("&#39;", "'").split())
    assert re.search(
        rf"saved an answer to this question since you opened this sheet \({chicago}: ", said
    ), said
