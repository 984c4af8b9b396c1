"""Issue 49, findings 1-3: with "hold scores until release" on, the Attempts page, "Download my
data" and the progress and weak-spots pages told the student what the hold keeps from them. Each
reader now asks the one gate (`release.held_work`); staff keep the full view."""

from __future__ import annotations

import io
import json
import zipfile

from tests.instructor_support import ALICE, TA, TEACHER
from tests.security.held_support import held_course, release

PLAIN_MINIMAX = "plain minimax"


def test_the_attempts_page_shows_no_held_score_or_diagnosis(app, factory, client, auth):
    """Finding 1: /attempts printed "100%", "50% — Your answer is plain minimax…" and the paper
    entry's score."""
    held = held_course(app, factory)
    auth.login(ALICE)
    page = client.get("/attempts").get_data(as_text=True)
    assert PLAIN_MINIMAX not in page
    assert "submitted; your score is released on" in page
    assert [
        name for name in held.figures if "percent" in name and held.figures[name].search(page)
    ] == []
    # The course's staff see every score at once.
    auth.logout()
    auth.login(TEACHER)
    staff_page = client.get("/attempts").get_data(as_text=True)
    assert "100%" in staff_page and PLAIN_MINIMAX in staff_page
    # And the student at release.
    release(app, held)
    auth.logout()
    auth.login(ALICE)
    page = client.get("/attempts").get_data(as_text=True)
    assert "100%" in page and PLAIN_MINIMAX in page


def _export(client) -> zipfile.ZipFile:
    sent = client.get("/api/me/export")
    assert sent.status_code == 200
    return zipfile.ZipFile(io.BytesIO(sent.data))


def test_the_data_export_carries_no_held_result_nor_paper_history_score(app, factory, client, auth):
    """Finding 2: uploads.json held the upload's score and its whole results.json; a held
    attempt's history kept each paper entry's score."""
    held = held_course(app, factory)
    auth.login(ALICE)
    archive = _export(client)
    (upload,) = json.loads(archive.read("uploads.json"))
    assert upload["held"] is True and upload["released_at"] is not None
    assert upload["score"] is None and upload["max_score"] is None and upload["result"] is None
    paper = next(a for a in json.loads(archive.read("attempts.json")) if a["entered_from_paper"])
    assert paper["held"] is True and paper["history"]
    assert all("score" not in entry for entry in paper["history"])
    assert all("answer" in entry for entry in paper["history"])  # what was typed stays hers
    release(app, held)
    archive = _export(client)
    (upload,) = json.loads(archive.read("uploads.json"))
    assert upload["score"] == 29.75 and upload["result"]["results_json"]["score"] == 29.75
    paper = next(a for a in json.loads(archive.read("attempts.json")) if a["entered_from_paper"])
    assert all("score" in entry for entry in paper["history"])


def test_progress_and_weak_spots_do_not_tell_whether_held_answers_were_right(
    app, factory, client, auth
):
    """Finding 3: progress said "No pruning: … your answers matched it once" and "1 of 3 right
    in a row" from held answers; weak spots and the aim planned from them."""
    from grader.services.trees import practice
    from tests.instructor_support import user

    held = held_course(app, factory)
    auth.login(ALICE)
    page = client.get("/progress").get_data(as_text=True)
    assert "your answers matched it" not in page
    with app.app_context():
        standing = {s.code: s for s in practice.progress(user(ALICE)).standings}
        assert standing["no-pruning"].shown == 0  # the held wrong answer is not counted yet
        # The course's staff see the student's standing from every answer at once.
        row = next(
            r
            for r in practice.course_progress(user(TEACHER), held.room.course_id).students
            if r.email == ALICE
        )
        assert "no-pruning" in row.practising
    release(app, held)
    page = client.get("/progress").get_data(as_text=True)
    assert "your answers matched it" in page


def test_the_gradebook_says_which_scores_students_cannot_see_yet(app, factory, client, auth):
    """Staff keep the full view, and the gradebook says what the student does not see yet, so a
    TA can answer "what's my grade?"."""
    held = held_course(app, factory)
    auth.login(TA)
    page = client.get(f"/instructor/courses/{held.room.course_id}/gradebook")
    text = page.get_data(as_text=True)
    row = text[text.index(f'data-email="{ALICE}"') :].split("</tr>")[0]
    assert 'data-role="held"' in row and "held until" in row
    assert "cannot see yet" in text
    release(app, held)
    text = client.get(f"/instructor/courses/{held.room.course_id}/gradebook").get_data(as_text=True)
    assert 'data-role="held"' not in text and "cannot see yet" not in text
