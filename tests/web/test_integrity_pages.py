"""The academic-integrity pages: engines that share code (per engine slot, a pair side by
side) and answers matching another student's tree (per assignment), for the course's
instructors; TAs when the course allows it; nothing of it for a student."""

from __future__ import annotations

import re
from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.gametree import KINDS, Conventions, Tree
from grader.models import IntegrityCheck, Submission
from grader.services.courses import zones
from tests.app_support import csrf_from
from tests.instructor_support import ALICE, BOB, TA, TEACHER, add_slot, make_room, user
from tests.services.integrity_support import DISGUISES, ORIGINAL, run_check, upload

NOTHING_DECIDED = "Nothing is decided automatically: no score changes."


@pytest.fixture
def room(app, factory):
    """The dashboard's room with an engine slot (index 2) where Alice handed in an engine and
    Bob a renamed copy of it, and a generated slot of one shape (index 3)."""
    from grader.services.engines import submissions

    made = make_room(app, factory)
    with app.app_context():
        engine_index = submissions.add_engine_slot(made.assignment_id, suite="quick").index
        add_slot(
            user(TEACHER),
            made.assignment_id,
            "values",
            "Values of a binary tree",
            params={"depth": 3, "branching": [2, 2]},
        )
    original = ORIGINAL.read_text()
    upload(app, ALICE, made.assignment_id, engine_index, original)
    upload(app, BOB, made.assignment_id, engine_index, DISGUISES["renamed"](original))
    return made


def _post(client: Any, page: str, url: str, data: dict[str, str] | None = None) -> Any:
    token = csrf_from(client.get(page).get_data(as_text=True))
    return client.post(url, data={"csrf_token": token, **(data or {})})


def _latest_check(app: Any) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.max(IntegrityCheck.id)))


def _similarity_url(room: Any) -> str:
    return f"/instructor/assignments/{room.assignment_id}/slots/2/similarity"


def _answers_url(room: Any) -> str:
    return f"/instructor/assignments/{room.assignment_id}/answers-matching"


def _submission(app: Any, email: str) -> Submission:
    with app.app_context():
        return db.session.scalar(sa.select(Submission).where(Submission.owner_id == user(email).id))


def test_the_similarity_page_follows_a_check_then_ranks_the_pairs(app, client, auth, room):
    auth.login(TEACHER)
    page = client.get(_similarity_url(room)).get_data(as_text=True)
    assert NOTHING_DECIDED in page and "No check has been run yet." in page
    response = _post(client, _similarity_url(room), _similarity_url(room))
    assert response.status_code == 302
    status = client.get(_similarity_url(room) + "/status").get_json()
    assert status["status"] == "queued" and status["done"] is False  # the page polls this
    waiting = client.get(_similarity_url(room)).get_data(as_text=True)
    assert "data-integrity-status" in waiting and "<progress" in waiting

    run_check(app, _latest_check(app))  # as a worker runs it
    assert client.get(_similarity_url(room) + "/status").get_json()["done"] is True
    page = client.get(_similarity_url(room)).get_data(as_text=True)
    assert NOTHING_DECIDED in page
    rows = re.findall(r'<tr data-a="([^"]+)" data-b="([^"]+)" data-similarity="([^"]+)"', page)
    assert len(rows) == 1
    a, b, similarity = rows[0]
    assert {a, b} == {ALICE, BOB} and float(similarity) > 0.9
    alice, bob = _submission(app, ALICE), _submission(app, BOB)
    for moment in (alice.created_at, bob.created_at):
        assert zones.words(moment, "UTC") in page  # the two submission times
    # Shown at or above a least similarity; none above 100%.
    assert "No pair shares code at 100% or more" not in page
    above = client.get(_similarity_url(room) + "?min=1").get_data(as_text=True)
    assert "data-similarity=" not in above and "No pair shares code at 100% or more" in above
    # The staff's submissions page links here.
    slot_page = client.get(f"/instructor/assignments/{room.assignment_id}/slots/2/engines")
    assert _similarity_url(room) in slot_page.get_data(as_text=True)


def test_a_pair_side_by_side_shows_both_times_and_the_aligned_regions(app, client, auth, room):
    auth.login(TEACHER)
    alice, bob = _submission(app, ALICE), _submission(app, BOB)
    url = f"{_similarity_url(room)}/{alice.id}/{bob.id}"
    page = client.get(url).get_data(as_text=True)
    assert NOTHING_DECIDED in page
    assert ALICE in page and BOB in page
    for side, moment in (("a", alice.created_at), ("b", bob.created_at)):
        cell = re.search(rf'data-role="submitted-{side}"><time[^>]*>([^<]+)<', page)
        assert cell and cell.group(1).startswith(zones.words(moment, "UTC"))
    # Each region in the same colour on both sides, one beside the other.
    sides = re.findall(
        r'<pre class="code (match-\d)" (?:id="match-\d+" )?data-match="(\d+)" data-side="([ab])"',
        page,
    )
    assert sides and len(sides) % 2 == 0
    for (colour_a, n_a, a), (colour_b, n_b, b) in zip(sides[::2], sides[1::2], strict=True):
        assert (a, b) == ("a", "b") and n_a == n_b and colour_a == colour_b
    # A renamed copy: each side shows its own names.
    copied = DISGUISES["renamed"](ORIGINAL.read_text())
    renamed_defs = [line for line in copied.splitlines() if line.startswith("def ")]
    assert "def parse_fen(fen):" in page and renamed_defs[0] in page
    assert renamed_defs[0] != "def parse_fen(fen):"
    # Any two submissions by their numbers; a missing number is said, not a crash.
    chosen = client.get(f"{_similarity_url(room)}/compare?a={bob.id}&b={alice.id}")
    assert chosen.status_code == 302 and chosen.headers["Location"].endswith(
        f"/similarity/{bob.id}/{alice.id}"
    )
    missing = client.get(f"{_similarity_url(room)}/compare?a=x", follow_redirects=True)
    assert "Give the numbers of two submissions" in missing.get_data(as_text=True)
    assert client.get(f"{_similarity_url(room)}/{alice.id}/{alice.id}").status_code == 400
    assert client.get(f"{_similarity_url(room)}/{alice.id}/999999").status_code == 404


def test_an_upload_that_cannot_be_read_is_listed_with_its_reason_never_a_500(
    app, client, auth, room
):
    from grader.services.transactions import writing

    with app.app_context():
        bob = db.session.get_one(Submission, _submission(app, BOB).id)
        with writing() as session:  # Bob's stored bytes went missing
            session.execute(
                sa.update(Submission).where(Submission.id == bob.id).values(sha256="0" * 64)
            )
    auth.login(TEACHER)
    _post(client, _similarity_url(room), _similarity_url(room))
    run_check(app, _latest_check(app))
    page = client.get(_similarity_url(room))
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert f"Submission {bob.id}" in text and "its bytes are not stored" in text
    pair = client.get(f"{_similarity_url(room)}/{_submission(app, ALICE).id}/{bob.id}")
    assert pair.status_code == 200 and "cannot be compared" in pair.get_data(as_text=True)


def test_a_least_similarity_that_is_no_number_from_0_to_1_is_a_400(client, auth, room):
    auth.login(TEACHER)
    for value in ("abc", "2", "-0.5", "nan", "inf"):
        assert client.get(f"{_similarity_url(room)}?min={value}").status_code == 400, value


def _key_of(app: Any, email: str, room: Any, index: int) -> tuple[int, dict[str, Any]]:
    from grader.services.trees import exercises

    with app.app_context():
        exercise = exercises.slot_exercise(user(email), room.assignment_id, index)
        tree = Tree.from_dict({"tree": exercise.tree, "players": exercise.players})
        key = KINDS[exercise.kind].key(tree, Conventions.from_dict(exercise.conventions))
        return exercise.id, key


def test_the_answers_page_shows_both_trees_side_by_side(app, client, auth, room):
    from grader.services.trees import attempts

    alice_exercise, alice_key = _key_of(app, ALICE, room, 3)
    bob_exercise, _ = _key_of(app, BOB, room, 3)
    with app.app_context():
        attempts.submit(user(ALICE), alice_exercise, alice_key)
        copied = attempts.submit(user(BOB), bob_exercise, alice_key).attempt
        assert copied.score <= 0.1  # three errors or more on Bob's own tree
    auth.login(TEACHER)
    assignment_page = client.get(f"/instructor/assignments/{room.assignment_id}")
    assert _answers_url(room) in assignment_page.get_data(as_text=True)
    assert "No check has been run yet." in client.get(_answers_url(room)).get_data(as_text=True)
    _post(client, _answers_url(room), _answers_url(room))
    assert client.get(_answers_url(room) + "/status").get_json()["status"] == "queued"
    run_check(app, _latest_check(app))
    page = client.get(_answers_url(room)).get_data(as_text=True)
    assert NOTHING_DECIDED in page
    flags = re.findall(r'data-role="flag" data-copier="([^"]+)" data-source="([^"]+)"', page)
    assert flags == [(BOB, ALICE)]
    drawing = re.search(r"data-trees='([^']+)'", page)
    assert drawing is not None
    import json

    data = json.loads(drawing.group(1))
    assert data["answer"] == alice_key and len(data["sides"]) == 2
    assert data["sides"][1]["key"] == alice_key  # Alice's tree, whose key Bob handed in
    assert zones.words(copied.created_at, "UTC") in page
    assert "exercise 1 (a fixed tree" in page  # the textbook slot is not checked, and says why


def test_tas_see_the_pages_only_when_the_course_allows_and_never_start_a_check(
    app, client, auth, room
):
    auth.login(TA)
    for url in (_similarity_url(room), _answers_url(room)):
        assert client.get(url).status_code == 403
    engines_page = client.get(f"/instructor/assignments/{room.assignment_id}/slots/2/engines")
    assert _similarity_url(room) not in engines_page.get_data(as_text=True)
    auth.logout()
    auth.login(TEACHER)
    course = f"/instructor/courses/{room.course_id}"
    response = _post(
        client,
        _similarity_url(room),
        f"{course}/integrity-access",
        {"ta_may_read": "y", "back": _similarity_url(room)},
    )
    assert response.status_code == 302 and response.headers["Location"].endswith(
        _similarity_url(room)
    )
    auth.logout()
    auth.login(TA)
    for url in (_similarity_url(room), _answers_url(room)):
        assert client.get(url).status_code == 200, url
    assert _post(client, _similarity_url(room), _similarity_url(room)).status_code == 403
    assert _post(client, _answers_url(room), _answers_url(room)).status_code == 403
    assert _post(client, _answers_url(room), f"{course}/integrity-access").status_code == 403


def test_the_setting_form_returns_only_to_a_dashboard_page(app, client, auth, room):
    auth.login(TEACHER)
    course = f"/instructor/courses/{room.course_id}"
    for back in ("https://evil.example/x", "//evil.example/x", "/login"):
        response = _post(client, course, f"{course}/integrity-access", {"back": back})
        assert response.status_code == 302 and response.headers["Location"].endswith(course)


def test_a_student_sees_nothing_of_it(app, client, auth, room):
    from grader.services.trees import attempts

    alice_exercise, alice_key = _key_of(app, ALICE, room, 3)
    bob_exercise, _ = _key_of(app, BOB, room, 3)
    with app.app_context():
        attempts.submit(user(ALICE), alice_exercise, alice_key)
        attempts.submit(user(BOB), bob_exercise, alice_key)
    auth.login(TEACHER)
    _post(client, _answers_url(room), _answers_url(room))
    run_check(app, _latest_check(app))
    _post(client, _similarity_url(room), _similarity_url(room))
    run_check(app, _latest_check(app))
    auth.logout()
    auth.login(BOB)  # flagged on both pages
    alice, bob = _submission(app, ALICE), _submission(app, BOB)
    for url in (
        _similarity_url(room),
        _answers_url(room),
        f"{_similarity_url(room)}/{alice.id}/{bob.id}",
        f"{_similarity_url(room)}/status",
        f"{_answers_url(room)}/status",
    ):
        assert client.get(url).status_code == 403, url
    for url in (
        "/",
        f"/assignments/{room.assignment_id}",
        f"/assignments/{room.assignment_id}/slots/2/engine",
        f"/engines/{bob.id}",
        f"/exercises/{bob_exercise}",
        "/attempts",
    ):
        response = client.get(url, follow_redirects=True)
        assert response.status_code == 200, url
        text = response.get_data(as_text=True)
        assert ALICE not in text and "similar" not in text.lower() and "integrity" not in text
