"""The dashboard's pages render for the course's staff, with what each part must show."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import ENGINE_KIND, Slot, utcnow
from grader.services.courses import zones
from tests.app_support import csrf_from
from tests.instructor_support import (
    ALICE,
    BOB,
    TA,
    TEACHER,
    answer,
    make_room,
    slot_preview,
    textbook_key,
)


@pytest.fixture
def room(app, factory):
    return make_room(app, factory)


@pytest.fixture
def teacher(auth, room):
    auth.login(TEACHER)
    return room


def _post(client, url, page, data, **kw):
    token = csrf_from(client.get(page).get_data(as_text=True))
    return client.post(url, data={"csrf_token": token, **data}, **kw)


def test_every_page_renders_for_the_instructor(client, app, teacher):
    room = teacher
    answer(app, ALICE, room.assignment_id, 0, {"pruned": [], "value": 3})
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    c, a = room.course_id, room.assignment_id
    for url in [
        "/instructor/",
        f"/instructor/courses/{c}",
        f"/instructor/courses/{c}/roster",
        f"/instructor/courses/{c}/assignments/new",
        f"/instructor/assignments/{a}",
        f"/instructor/assignments/{a}/slots/new",
        f"/instructor/assignments/{a}/slots/0",
        f"/instructor/courses/{c}/gradebook",
        f"/instructor/courses/{c}/statistics",
        f"/instructor/courses/{c}/misconceptions",
        f"/instructor/courses/{c}/audit",
        f"/instructor/courses/{c}/students/{room.ids[ALICE]}",
    ]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert "Traceback" not in response.get_data(as_text=True)


def test_the_drill_down_says_how_each_attempt_was_scored(client, app, teacher):
    # AIMA's tree: I and J (C's last two leaves) pruned, root 3; nothing marked is 2 errors.
    answer(app, ALICE, teacher.assignment_id, 0, {"pruned": [], "value": 3})
    html = client.get(
        f"/instructor/courses/{teacher.course_id}/students/{teacher.ids[ALICE]}"
    ).get_data(as_text=True)
    said = re.findall(r'data-role="scoring">(.*?)</li>', html, re.S)
    assert len(said) == 1
    assert "How attempt 1 was scored:</span> 2 errors: 2 missing marks at I and J" in said[0]
    assert "Score 0.50, by the rule: no error 1, 1 error 0.80" in said[0]


def test_the_upload_page_offers_the_assignment_rules_and_starter_engine(client, app, teacher):
    from grader.services.engines import submissions

    with app.app_context():
        slot = submissions.add_engine_slot(teacher.assignment_id, suite="quick")
    base = f"/assignments/{teacher.assignment_id}/slots/{slot.index}/engine"
    html = client.get(base).get_data(as_text=True)
    for name in ("assignment", "rules", "starter"):
        assert f'href="{base}/{name}"' in html
    with client.get(f"{base}/assignment") as text:
        assert text.status_code == 200 and "Checkers assignment" in text.get_data(as_text=True)
    with client.get(f"{base}/starter") as starter:
        assert starter.status_code == 200
        assert "filename=engine.py" in starter.headers["Content-Disposition"]
        assert "def " in starter.get_data(as_text=True)
    assert client.get(f"{base}/secrets").status_code == 404
    assert client.get(f"{base}/..%2f..%2fconfig.py").status_code == 404


def test_an_engine_slot_links_to_its_own_staff_page(client, app, teacher):
    from grader.services.engines import submissions

    with app.app_context():
        slot = submissions.add_engine_slot(teacher.assignment_id, suite="quick")
    a, index = teacher.assignment_id, slot.index
    engine_page = f"/instructor/assignments/{a}/slots/{index}/engines"
    html = client.get(f"/instructor/assignments/{a}").get_data(as_text=True)
    assert f'href="{engine_page}"' in html
    response = client.get(f"/instructor/assignments/{a}/slots/{index}")
    assert response.status_code == 302 and response.headers["Location"] == engine_page
    assert client.get(engine_page).status_code == 200
    c = teacher.course_id
    for url in [
        f"/instructor/courses/{c}/gradebook",
        f"/instructor/courses/{c}/statistics",
        f"/instructor/courses/{c}/misconceptions",
        f"/api/courses/{c}/gradebook.csv",
    ]:
        assert client.get(url).status_code == 200, url


def test_create_course_and_assignment_through_the_forms(client, teacher):
    response = _post(
        client,
        "/instructor/courses",
        "/instructor/",
        {"name": "Adversarial search"},
        follow_redirects=True,
    )
    html = response.get_data(as_text=True)
    assert "Adversarial search" in html and 'data-role="join-code"' in html
    course_id = int(re.search(r"/instructor/courses/(\d+)/roster", html).group(1))
    page = f"/instructor/courses/{course_id}/assignments/new"
    response = _post(
        client,
        page,
        page,
        {
            "title": "From a preset",
            "preset": "standard",
            "due_at": "2030-01-31T23:59",
            "late_percent_per_day": "10",
            "score_policy": "last",
        },
        follow_redirects=True,
    )
    html = response.get_data(as_text=True)
    assert "Values returned" in html and "Assignment created" in html


@pytest.mark.parametrize(
    ("source", "fields"),
    [
        ("leaves", {"leaves": "3,12,8,2,4,6,14,5,2", "leaf_branching": "3", "leaf_depth": "2"}),
        ("nested", {"nested": "[[3, 12, 8], [2, 4, 6], [14, 5, 2]]"}),
        ("draw", {"drawn": "[[3, 12, 8], [2, 4, 6], [14, 5, 2]]"}),
    ],
)
def test_textbook_slot_from_each_source(client, app, teacher, source, fields):
    page = f"/instructor/assignments/{teacher.assignment_id}/slots/new"
    data = {
        "title": f"From {source}",
        "kind": "prune",
        "source": source,
        "ties": "prune",
        "values_rule": "soft",
        "order": "ltr",
        "attempts_allowed": "2",
        "action": "save",
        "players": "max,min",
        **fields,
    }
    response = _post(client, page, page, data, follow_redirects=True)
    assert f"From {source}" in response.get_data(as_text=True)
    export = client.get(f"/instructor/assignments/{teacher.assignment_id}/slots/2/tree.test")
    assert export.status_code == 200
    assert export.headers["Content-Disposition"].startswith("attachment")
    assert "GraphGameTreeTest" in export.get_data(as_text=True)


def test_cs188_import_through_the_form(client, app, teacher):
    from grader.gametree import Tree

    nested = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]
    text = Tree.from_nested(nested).to_cs188()
    page = f"/instructor/assignments/{teacher.assignment_id}/slots/new"
    data = {
        "title": "CS188",
        "kind": "prune",
        "source": "cs188",
        "ties": "explore",
        "values_rule": "soft",
        "order": "ltr",
        "action": "save",
        "cs188": "",
        "cs188_file": (io.BytesIO(text.encode()), "tree.test"),
    }
    response = _post(
        client, page, page, data, follow_redirects=True, content_type="multipart/form-data"
    )
    assert response.status_code == 200
    # The slot is stored with the file's tree (the title alone is echoed by a refused form too).
    with app.app_context():
        slot = db.session.scalar(
            sa.select(Slot).where(
                Slot.assignment_id == teacher.assignment_id, Slot.title == "CS188"
            )
        )
        assert slot is not None and slot.kind == "prune"
        assert slot.tree == {"tree": nested, "players": ["max", "min"]}
        assert slot.conventions["ties"] == "explore"
    assert client.get(f"/instructor/assignments/{teacher.assignment_id}/slots/2").status_code == 200


def test_preview_page_shows_key_replay_data_and_separations(client, teacher):
    page = f"/instructor/assignments/{teacher.assignment_id}/slots/new"
    response = _post(client, page, page, slot_preview())
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert 'id="preview-data"' in html and 'data-code="shallow-cutoffs"' in html
    assert "needs a deep cutoff" in html  # depth 3 cannot tell shallow cutoffs apart
    assert 'data-role="calibration"' in html and 'data-answer="no-pruning"' in html


def test_a_chance_slot_preview_lists_the_chance_misconceptions(client, teacher):
    page = f"/instructor/assignments/{teacher.assignment_id}/slots/new"
    response = _post(
        client,
        page,
        page,
        slot_preview(
            depth="4",
            values="0..6",
            min_cutoffs="2",
            min_star1_cutoffs="1",
            players="max,chance",
            bounds="0..6",
        ),
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 200, html
    for code in ("chance-as-min", "chance-cut-as-min", "star1-unseen-mass", "no-pruning"):
        assert f'data-code="{code}"' in html, code
    assert "Leaf values lie in [0, 6]" in html  # the bounds stated with the conventions


def test_a_fixed_tree_preview_says_generated_statistics_do_not_apply(client, teacher):
    page = f"/instructor/assignments/{teacher.assignment_id}/slots/new"
    response = _post(
        client,
        page,
        page,
        {
            "kind": "best-order",
            "source": "nested",
            "nested": "[[3, 12, 8], [2, 4, 6], [14, 5, 2]]",
            "ties": "prune",
            "values_rule": "soft",
            "order": "ltr",
            "action": "preview",
        },
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "statistics over generated trees do not apply" in html
    assert "Over 1 trees" not in html and 'data-kind="best-order"' in html
    # The key names children by label in their best order, never as raw indices.
    key = re.search(r'data-role="key">([^<]*)<', html).group(1)
    assert "at A: " in key and "[" not in key, key


def test_bad_editor_input_is_reported(client, teacher):
    page = f"/instructor/assignments/{teacher.assignment_id}/slots/new"
    response = _post(
        client,
        page,
        page,
        {
            "kind": "prune",
            "source": "nested",
            "nested": "[[1, 2], [3",
            "ties": "prune",
            "values_rule": "soft",
            "order": "ltr",
            "action": "save",
        },
    )
    assert (
        response.status_code == 400
        and "the nested list: 2 “[” never closed" in response.get_data(as_text=True)
    )


def test_gradebook_page_csv_and_json(client, app, teacher):
    answer(app, ALICE, teacher.assignment_id, 0, textbook_key())
    html = client.get(f"/instructor/courses/{teacher.course_id}/gradebook").get_data(as_text=True)
    assert f'data-email="{ALICE}"' in html and "1.00" in html
    # A column per exercise under its assignment, and the assignment's sum.
    assert html.count('<th scope="col" class="num item"') == 2 and "1. Textbook tree" in html
    for url in (
        f"/instructor/courses/{teacher.course_id}/gradebook.csv",
        f"/api/courses/{teacher.course_id}/gradebook.csv",
    ):
        response = client.get(url)
        assert response.mimetype == "text/csv"
        assert response.headers["Content-Disposition"].startswith("attachment; filename=")
        rows = {r["email"]: r for r in csv.DictReader(io.StringIO(response.get_data(as_text=True)))}
        assert rows[ALICE]["Homework 1: 1. Textbook tree (/1)"] == "1.00"
        assert rows[BOB]["total (/2)"] == "0.00"
    data = client.get(f"/api/courses/{teacher.course_id}/gradebook").get_json()
    assert data["assignments"][0]["score_policy"] == "best"
    assert {s["email"] for s in data["students"]} == {ALICE, BOB}


def test_statistics_and_misconception_pages_have_accessible_charts(client, app, teacher):
    answer(app, ALICE, teacher.assignment_id, 0, {"pruned": [], "value": 3})
    answer(app, BOB, teacher.assignment_id, 0, textbook_key())
    stats = client.get(f"/instructor/courses/{teacher.course_id}/statistics").get_data(as_text=True)
    assert 'role="img"' in stats and "<title" in stats and "Score as a table" in stats
    assert 'data-role="discrimination">1.00' in stats
    page = client.get(f"/instructor/courses/{teacher.course_id}/misconceptions").get_data(
        as_text=True
    )
    assert "Wrong answers by misconception, whole course" in page
    # Plain names in the charts and tables, the codes on hover.
    assert "No pruning: 1" in page and "per week" in page and 'title="no-pruning"' in page
    assert "Scores on Homework 1: 1. Textbook tree" in stats
    data = client.get(f"/api/courses/{teacher.course_id}/misconceptions").get_json()
    assert data["total"] == {"no-pruning": 1}
    statistics = client.get(f"/api/courses/{teacher.course_id}/statistics").get_json()
    assert statistics["assignments"][0]["slots"][0]["share_perfect"] == 0.5


def test_regrade_button_and_audit_log(client, app, teacher):
    answer(app, ALICE, teacher.assignment_id, 0, textbook_key())
    page = f"/instructor/assignments/{teacher.assignment_id}/slots/0"
    response = _post(client, f"{page}/regrade", page, {}, follow_redirects=True)
    html = response.get_data(as_text=True)
    assert "Regraded 1 attempts: 0 changed" in html and "no score went down" in html
    entries = client.get(f"/api/courses/{teacher.course_id}/audit").get_json()["entries"]
    assert entries[0]["by"] == TEACHER and entries[0]["changes"] == {"reason": "manual regrade"}
    # The old address, deprecated, gives the same entries under its old name.
    old = client.get(f"/api/courses/{teacher.course_id}/regrades").get_json()["regrades"]
    assert old == entries


def test_roster_page_import_role_remove_and_join_code(client, app, teacher):
    c = teacher.course_id
    roster_page = f"/instructor/courses/{c}/roster"
    response = _post(
        client,
        f"{roster_page}/import",
        roster_page,
        {
            "csv_text": "",
            "csv_file": (io.BytesIO(b"email,name\nzed@example.com,Zed\n"), "students.csv"),
        },
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    assert "1 invited" in response.get_data(as_text=True)
    response = _post(
        client,
        f"{roster_page}/{teacher.ids[BOB]}/role",
        roster_page,
        {"role": "ta"},
        follow_redirects=True,
    )
    html = response.get_data(as_text=True)
    assert "the role is given when the account accepts" in html and "invited as TA" in html
    links = _post(client, f"{roster_page}/invites.csv", roster_page, {})
    rows = {r["email"]: r for r in csv.DictReader(io.StringIO(links.get_data(as_text=True)))}
    assert rows["zed@example.com"]["role"] == "student" and rows[BOB]["role"] == "ta"
    assert "/invite/" in rows[BOB]["link"]
    response = _post(
        client, f"{roster_page}/{teacher.ids[ALICE]}/remove", roster_page, {}, follow_redirects=True
    )
    assert "attempts are kept" in response.get_data(as_text=True)
    course_page = f"/instructor/courses/{c}"
    response = _post(client, f"{course_page}/join-code", course_page, {}, follow_redirects=True)
    assert teacher.join_code not in response.get_data(as_text=True)
    # An empty date is refused: the code stays open; closing now needs its confirmation.
    response = _post(
        client,
        f"{course_page}/join-code/expire",
        course_page,
        {"expires_at": ""},
        follow_redirects=True,
    )
    html = response.get_data(as_text=True)
    assert "Choose the date and time" in html and '<span class="right">open</span>' in html
    assert "Yes, close it now" in html
    response = _post(
        client,
        f"{course_page}/join-code/expire",
        course_page,
        {"expires_at": "", "now": "yes"},
        follow_redirects=True,
    )
    assert '<span class="wrong">expired</span>' in response.get_data(as_text=True)
    response = _post(client, f"{course_page}/join-code", course_page, {}, follow_redirects=True)
    response = _post(
        client,
        f"{course_page}/join-code/expire",
        course_page,
        {"expires_at": "2020-01-01T00:00"},
        follow_redirects=True,
    )
    assert "expired" in response.get_data(as_text=True)


def test_ta_sees_a_read_only_editor(client, auth, room):
    auth.login(TA)
    html = client.get(f"/instructor/assignments/{room.assignment_id}/slots/0").get_data(
        as_text=True
    )
    assert (
        "a TA (you read the course and answer problem reports; instructors change it)" in html
        and 'value="save"' not in html
        and 'value="preview"' in html
    )


# -- the assignment editor: what it lists, an engine slot from the form, who sees it ----------


def test_the_exercise_list_says_the_conventions_in_words(client, teacher):
    html = client.get(f"/instructor/assignments/{teacher.assignment_id}").get_data(as_text=True)
    assert "prune, soft, ltr" not in html
    # The forms' words for ties, cut nodes and children (the room's slots use the defaults).
    assert (
        "<td>prune when alpha &gt;= beta (AIMA); cut nodes report their best value so far; "
        "children left to right</td>"
    ) in html
    assert '<span class="code-words" title="values">Values returned</span>' in html


def test_an_engine_slot_is_added_from_the_editor(client, app, auth, teacher):
    editor_page = f"/instructor/assignments/{teacher.assignment_id}"
    action = f"/instructor/assignments/{teacher.assignment_id}/slots/engine"
    html = client.get(editor_page).get_data(as_text=True)
    assert f'action="{action}"' in html and "Add a checkers engine" in html
    assert '<option value="quick">quick</option>' in html and "About a minute" in html
    # Only the shipped suites: a path on the server is the operator's to name (grader CLI).
    refused = _post(client, action, editor_page, {"suite": "/etc/passwd"}, follow_redirects=True)
    assert "Graded with the suite: Not a valid choice" in refused.get_data(as_text=True)
    made = _post(client, action, editor_page, {"suite": "full", "title": ""}, follow_redirects=True)
    html = made.get_data(as_text=True)
    assert "Exercise 3 added: a checkers engine, graded with the full suite." in html
    assert "checkers engine, full suite" in html

    with app.app_context():
        slot = db.session.scalar(sa.select(Slot).where(Slot.index == 2))
        assert (slot.kind, slot.params, slot.title) == (
            ENGINE_KIND,
            {"suite": "full"},
            "Checkers engine",
        )
    # The student finds it on the assignment, and its upload page.
    auth.logout()
    auth.login(ALICE)
    page = client.get(f"/assignments/{teacher.assignment_id}").get_data(as_text=True)
    assert "Checkers engine" in page
    assert client.get(f"/assignments/{teacher.assignment_id}/slots/2/engine").status_code == 200


def test_a_ta_cannot_add_an_engine_slot(client, auth, room):
    auth.login(TA)
    editor_page = f"/instructor/assignments/{room.assignment_id}"
    html = client.get(editor_page).get_data(as_text=True)
    token = csrf_from(html)
    response = client.post(
        f"/instructor/assignments/{room.assignment_id}/slots/engine",
        data={"csrf_token": token, "suite": "quick"},
    )
    assert response.status_code == 403


def test_the_editor_says_whether_students_see_the_assignment(client, auth, teacher):
    page = f"/instructor/assignments/{teacher.assignment_id}"

    def said() -> str:
        html = client.get(page).get_data(as_text=True)
        found = re.search(r'data-role="visibility">(.*?)</p>', html, re.S)
        assert found
        return " ".join(re.sub(r"<[^>]+>", "", found.group(1)).split())

    assert (
        said()
        == "Visible to students: it has no release date, so the course's students see it now."
    )
    for release, words in [
        (utcnow() - dt.timedelta(days=1), "Visible to students since"),
        (
            utcnow() + dt.timedelta(days=3),
            "Not visible to students yet: they see it from its release date",
        ),
    ]:
        response = _post(
            client,
            page,
            page,
            {
                "title": "Homework 1",
                "release_at": release.strftime("%Y-%m-%dT%H:%M"),
                "score_policy": "best",
            },
        )
        assert response.status_code == 302
        assert said().startswith(words), said()
        assert zones.words(release.replace(second=0, microsecond=0), "UTC") in said()
    # What the last words claim is what a student gets: before its release, no page.
    auth.logout()
    auth.login(ALICE)
    assert client.get(f"/assignments/{teacher.assignment_id}").status_code == 404
