"""The dashboard's pages render for the course's staff, with what each part must show: the assignment
editor (slots from each source, previews, engine slots, a TA's read-only view)."""

from __future__ import annotations

import datetime as dt
import io
import re

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import ENGINE_KIND, Slot, utcnow
from grader.services.courses import zones
from tests.app_support import csrf_from
from tests.instructor_support import ALICE, TA, slot_preview
from tests.web.instructor.pages_support import field_error, post_form


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
    response = post_form(client, page, page, data, follow_redirects=True)
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
    response = post_form(
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
    response = post_form(client, page, page, slot_preview())
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert 'id="preview-data"' in html and 'data-code="shallow-cutoffs"' in html
    assert "needs a deep cutoff" in html  # depth 3 cannot tell shallow cutoffs apart
    assert 'data-role="calibration"' in html and 'data-answer="no-pruning"' in html


def test_a_chance_slot_preview_lists_the_chance_misconceptions(client, teacher):
    page = f"/instructor/assignments/{teacher.assignment_id}/slots/new"
    response = post_form(
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
    response = post_form(
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
    response = post_form(
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


def test_ta_sees_a_read_only_editor(client, auth, room):
    auth.login(TA)
    html = client.get(f"/instructor/assignments/{room.assignment_id}/slots/0").get_data(
        as_text=True
    )
    assert (
        "As a TA you read the course and answer problem reports; its instructors change it." in html
        and 'value="save"' not in html
        and 'value="preview"' in html
    )


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
    refused = post_form(client, action, editor_page, {"suite": "/etc/passwd", "title": "Mine"})
    html = refused.get_data(as_text=True)
    assert refused.status_code == 422 and "Not a valid choice" in field_error(html, "engine-suite")
    assert 'id="engine-title"' in html and 'value="Mine"' in html
    made = post_form(
        client, action, editor_page, {"suite": "full", "title": ""}, follow_redirects=True
    )
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
        response = post_form(
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
