"""Server-rendered pages: dashboard, the exercise page's contract with its script, practice."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from grader import data


@pytest.fixture
def signed_in(factory, auth):
    room = factory.classroom()
    auth.login()
    return room


def _data_attributes(html: str) -> dict[str, str]:
    root = re.search(r'<div id="exercise-root"([^>]*)>', html, re.S).group(1)
    return dict(re.findall(r'data-([\w-]+)="([^"]*)"', root))


def _embedded(html: str) -> dict:
    return json.loads(
        re.search(
            r'<script type="application/json" id="exercise-data">(.*?)</script>', html, re.S
        ).group(1)
    )


def test_dashboard_lists_courses_and_assignments(client, signed_in):
    html = client.get("/dashboard").get_data(as_text=True)
    assert "Search 101" in html and "Alpha-beta pruning" in html
    assert f"/assignments/{signed_in['assignment_id']}/slots/0" in html
    assert client.get(f"/assignments/{signed_in['assignment_id']}").status_code == 200


def test_exercise_page_gives_its_script_what_it_needs(client, signed_in):
    response = client.get(f"/assignments/{signed_in['assignment_id']}/slots/0")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    data = _data_attributes(html)
    assert data["kind"] == "prune" and data["is-owner"] == "true"
    assert data["attempts-url"] == f"/api/exercises/{data['exercise-id']}/attempts"
    assert data["csrf-token"]
    assert '<script type="module" src="/static/exercise.js">' in html
    exercise = _embedded(html)
    assert exercise["id"] == int(data["exercise-id"]) and "solution" not in exercise
    # The page's own token is accepted by the API, as the script sends it.
    answer = {"pruned": [], "value": 0}
    posted = client.post(
        data["attempts-url"], json={"answer": answer}, headers={"X-CSRFToken": data["csrf-token"]}
    )
    assert posted.status_code == 201
    with client.get("/static/exercise.js") as script:
        assert script.status_code == 200


def test_another_tree_like_this_on_a_slot_is_its_next_practice_variant(client, auth, signed_in):
    url = f"/assignments/{signed_in['assignment_id']}/slots/0"
    html = client.get(url).get_data(as_text=True)
    assert "Another tree like this" in html
    exercise_id = _data_attributes(html)["exercise-id"]
    response = client.post(f"/exercises/{exercise_id}/another", data={"csrf_token": auth.csrf()})
    assert response.status_code == 302
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "practice variant 1" in page


def _practice(client, auth, **fields):
    data = {
        "csrf_token": auth.csrf(),
        "kind": "prune",
        "source": "generate",
        "depth": "2",
        "branching": "3",
        "values": "-5..5",
        "min_cutoffs": "1",
        "players": "max,min",
        "ties": "explore",
        "values_rule": "soft",
        "order": "ltr",
        **fields,
    }
    return client.post("/practice", data=data)


def test_practice_another_tree_with_the_same_settings_and_the_settings_kept(
    client, auth, signed_in
):
    first = _embedded(
        client.get(_practice(client, auth).headers["Location"]).get_data(as_text=True)
    )
    response = client.post(f"/exercises/{first['id']}/another", data={"csrf_token": auth.csrf()})
    second = _embedded(client.get(response.headers["Location"]).get_data(as_text=True))
    assert second["id"] != first["id"] and second["seed"] != first["seed"]
    assert (second["kind"], second["conventions"]) == (first["kind"], first["conventions"])
    assert len(second["tree"]) == 3 and all(len(child) == 3 for child in second["tree"])
    # The next visit to the practice page offers the settings used last.
    form = client.get("/practice").get_data(as_text=True)
    assert re.search(r'id="branching"[^>]*value="3"', form)
    assert re.search(r'<option selected value="explore">|<option value="explore" selected', form)


def test_a_typed_practice_tree_has_no_other_like_it(client, auth, signed_in):
    response = _practice(client, auth, source="nested", nested="[[3, 1], [2, 4]]")
    html = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Another tree like this" not in html
    exercise_id = _embedded(html)["id"]
    refused = client.post(f"/exercises/{exercise_id}/another", data={"csrf_token": auth.csrf()})
    assert refused.status_code == 400


def test_a_malformed_nested_list_is_told_in_words(client, auth, signed_in):
    response = _practice(client, auth, source="nested", nested="[[3, 1], [2 4]]")
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "the nested list: a comma is missing at character 13" in html
    assert "Expecting" not in html


def test_free_practice_can_be_watched_before_answering(client, auth, signed_in):
    practice = client.get(_practice(client, auth).headers["Location"]).get_data(as_text=True)
    preview = json.loads(
        re.search(
            r'<script type="application/json" id="preview-data">(.*?)</script>', practice, re.S
        )[1]
    )
    assert preview["trace"]
    # An assignment's exercise keeps its search until the attempt that earns it.
    graded = client.get(f"/assignments/{signed_in['assignment_id']}/slots/0").get_data(as_text=True)
    assert "preview-data" not in graded and "Watch the search" not in graded


def test_another_students_exercise_page_is_404(client, factory, auth, signed_in):
    url = f"/assignments/{signed_in['assignment_id']}/slots/0"
    exercise_id = _data_attributes(client.get(url).get_data(as_text=True))["exercise-id"]
    auth.logout()
    factory.user("other@example.com")
    auth.login("other@example.com")
    assert client.get(f"/exercises/{exercise_id}").status_code == 404
    assert client.get(url).status_code == 404  # not in the course


@pytest.mark.parametrize(
    "fields, tree",
    [
        (
            {
                "source": "leaves",
                "leaves": "3,12,8,2,4,6,14,5,2",
                "leaf_branching": "3",
                "leaf_depth": "2",
            },
            [[3, 12, 8], [2, 4, 6], [14, 5, 2]],
        ),
        ({"source": "nested", "nested": "[[1, 2], [3, 4]]"}, [[1, 2], [3, 4]]),
        (
            {
                "source": "generate",
                "depth": "2",
                "branching": "2",
                "values": "0..9",
                "min_cutoffs": "0",
            },
            None,
        ),
    ],
)
def test_practice_form_makes_an_exercise(client, auth, signed_in, fields, tree):
    form = {
        "kind": "prune",
        "ties": "prune",
        "values_rule": "soft",
        "order": "ltr",
        "players": "max,min",
        "csrf_token": auth.csrf(),
        **fields,
    }
    response = client.post("/practice", data=form)
    assert response.status_code == 302, response.get_data(as_text=True)
    exercise = _embedded(client.get(response.headers["Location"]).get_data(as_text=True))
    assert exercise["practice"] and exercise["assignment_id"] is None
    if tree is not None:
        assert exercise["tree"] == tree


def test_practice_form_reports_a_bad_tree(client, auth, signed_in):
    response = client.post(
        "/practice",
        data={
            "kind": "prune",
            "source": "nested",
            "nested": "[[1, 2], [3,",
            "ties": "prune",
            "values_rule": "soft",
            "order": "ltr",
            "csrf_token": auth.csrf(),
        },
    )
    assert response.status_code == 400
    assert "the nested list: 2 “[” never closed" in response.get_data(as_text=True)


def test_attempts_page(client, signed_in, auth):
    data = _data_attributes(
        client.get(f"/assignments/{signed_in['assignment_id']}/slots/0").get_data(as_text=True)
    )
    client.post(
        data["attempts-url"],
        json={"answer": {"pruned": [], "value": 0}},
        headers={"X-CSRFToken": data["csrf-token"]},
    )
    practice = client.post(
        "/practice",
        data={
            "csrf_token": auth.csrf(),
            "kind": "prune",
            "source": "nested",
            "nested": "[[3, 1], [2, 4]]",
            "ties": "prune",
            "values_rule": "soft",
            "order": "ltr",
        },
    ).headers["Location"]
    practice_id = practice.rsplit("/", 1)[1]
    client.post(
        f"/api/exercises/{practice_id}/attempts",
        json={"answer": {"pruned": [], "value": 0}},
        headers={"X-CSRFToken": data["csrf-token"]},
    )
    html = client.get("/attempts").get_data(as_text=True)
    # Graded work and practice apart, each exercise by its name, one rounding for scores.
    graded, practised = html.split("<h2>Assignments</h2>")[1].split("<h2>Practice</h2>")
    assert "exercise 1" in graded and f'/exercises/{data["exercise-id"]}"' in graded
    assert f"Practice: Pruned nodes, tree {practice_id}" in practised
    assert "exercise 1" not in practised
    assert f"#{data['exercise-id']}" not in html


@pytest.mark.parametrize(
    ("score", "shown"), [(0.625, "63%"), (0.63, "63%"), (0.285, "28%"), (1.0, "100%"), (None, "—")]
)
def test_one_rounding_for_percents_as_the_pages_script(app, score, shown):
    # Math.round(0.625 * 100) is 63 in the exercise page; the server's pages say the same.
    assert app.jinja_env.filters["percent"](score) == shown


def test_conventions_and_misconceptions_in_words(app):
    words = app.jinja_env.filters["conventions_words"](
        {"ties": "prune", "values": "hard", "order": "rtl"}
    )
    assert "right to left" in words and "{" not in words
    assert app.jinja_env.filters["misconception_name"]("no-pruning") == "No pruning"


def test_an_exercise_page_is_titled_by_its_slot_and_leads_back_and_on(client, signed_in):
    """The slots' titles as the preset gives them; the page of each links to its assignment and
    to the next slot, the last one to none."""
    preset = tomllib.loads(data.path("presets", "standard.toml").read_text())
    titles = [slot["title"] for slot in preset["slots"]]
    assignment = signed_in["assignment_id"]
    for index, title in enumerate(titles):
        html = client.get(f"/assignments/{assignment}/slots/{index}").get_data(as_text=True)
        assert re.search(rf"<h1>{re.escape(title)}\s*</h1>", html), title
        assert f"<title>{title} · {preset['title']} · Alpha-Beta Grader</title>" in html
        assert "(prune)" not in html and "Exercise 1" not in html
        nav = re.search(r'<nav class="exercise-nav".*?</nav>', html, re.S).group(0)
        assert f'href="/assignments/{assignment}" data-role="back">← {preset["title"]}</a>' in nav
        assert f"exercise {index + 1} of {len(titles)}" in nav
        following = f'href="/assignments/{assignment}/slots/{index + 1}" data-role="next">'
        if index + 1 < len(titles):
            assert f"{following}Next: {titles[index + 1]} →</a>" in nav
        else:
            assert 'data-role="next"' not in nav


def test_the_practice_form_folds_all_but_the_common_case(client, auth, signed_in):
    html = client.get("/practice").get_data(as_text=True)
    folds = re.findall(r"<details[^>]*>.*?</details>", html, re.S)
    assert len(folds) == 2 and all(" open" not in d.split(">")[0] for d in folds)
    folded = " ".join(folds)
    for name in ("values", "min_cutoffs", "players", "ties", "values_rule", "order"):
        assert f'id="{name}"' in folded, name
    for name in ("kind", "depth", "branching"):
        assert f'id="{name}"' in html and f'id="{name}"' not in folded, name
    # Each summary says what is inside it now: the defaults here.
    assert "(-9..9; at least 1 cutoff)" in folds[0]
    assert "(max,min; ties: prune when alpha &gt;= beta (AIMA);" in folds[1]
    # A field in error opens its fold, and says why.
    response = _practice(client, auth, min_cutoffs="99")
    assert response.status_code == 400
    shown = re.search(
        r"<details[^>]*>(?:(?!</details>).)*id=\"min_cutoffs\"",
        response.get_data(as_text=True),
        re.S,
    ).group(0)
    assert shown.startswith('<details class="more" data-role="more-generate" open>')


def test_the_exercise_page_names_its_kinds_module_and_serves_it(client, signed_in):
    """The page's script imports the kind's module by the URL in data-kind-module: served as a
    script of the site's own origin, which the Content-Security-Policy lets a module import."""
    html = client.get(f"/assignments/{signed_in['assignment_id']}/slots/0").get_data(as_text=True)
    data = _data_attributes(html)
    assert data["kind-module"] == "/static/js/kinds/prune.js"
    with client.get(data["kind-module"]) as module:
        assert module.status_code == 200
        assert module.mimetype in {"text/javascript", "application/javascript"}
        assert "export default" in module.get_data(as_text=True)
        assert "script-src 'self'" in module.headers["Content-Security-Policy"]
