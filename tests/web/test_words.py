"""One set of words on every page: a misconception by its words with its code on hover, an
exercise kind by its class's title ("Order of evaluation", not "leaf-order"), from the one
mapping each (`misconception_name`, `kind_name`); and the progress chart draws no bar for a
misconception the student's answers never showed."""

from __future__ import annotations

import re

from grader.gametree import KINDS, VARIANTS
from grader.web.words import conventions_brief, kind_name, misconception_name
from tests.app_support import bearer
from tests.instructor_support import (
    ALICE,
    TEACHER,
    answer,
    slot_preview,
    textbook_key,
)

# Every code the pages could show, and the ways a bare code used to appear.
CODES = sorted(VARIANTS)
BARE = [re.compile(rf"<code>{re.escape(code)}</code>|\({re.escape(code)}\)") for code in CODES]


def _no_bare_codes(html: str) -> None:
    for pattern in BARE:
        assert not pattern.search(html), pattern.pattern
    for code in re.findall(r'class="code-words" title="([^"]+)"', html):
        words = misconception_name(code) if code in VARIANTS else kind_name(code)
        assert f'title="{code}">{words}</span>' in html


def test_the_one_mapping_of_kinds_and_misconceptions_to_words() -> None:
    assert kind_name("leaf-order") == "Order of evaluation" == KINDS["leaf-order"].title
    assert kind_name("engine") == "Checkers engine"
    # Each kind is called by its own title, and no two alike.
    assert [kind_name(k) for k in KINDS] == [kind.title for kind in KINDS.values()]
    assert len({kind.title for kind in KINDS.values()}) == len(KINDS)
    assert misconception_name("no-pruning") == "No pruning"
    assert misconception_name("cut-node-marked") == "Cut node marked"


def test_the_staff_pages_name_misconceptions_in_words(client, app, auth, room):
    # Nothing marked on AIMA's tree is plain minimax: the no-pruning misconception.
    for _ in range(3):
        answer(app, ALICE, room.assignment_id, 0, {"pruned": [], "value": 3})
    auth.login(TEACHER)
    c = room.course_id
    for url in [
        f"/instructor/courses/{c}/progress",
        f"/instructor/courses/{c}/students/{room.ids[ALICE]}",
        f"/instructor/courses/{c}/misconceptions",
        f"/instructor/courses/{c}/statistics",
        f"/instructor/assignments/{room.assignment_id}",
    ]:
        html = client.get(url).get_data(as_text=True)
        _no_bare_codes(html)
    drill_down = client.get(f"/instructor/courses/{c}/students/{room.ids[ALICE]}")
    html = drill_down.get_data(as_text=True)
    assert '<span class="code-words" title="no-pruning">No pruning</span>' in html
    assert '(<span class="code-words" title="prune">Pruned nodes</span>)' in html
    progress = client.get(f"/instructor/courses/{c}/progress").get_data(as_text=True)
    assert ">No pruning</text>" in progress  # the chart's rows too


def test_what_answers_score_names_its_rows_in_words(client, auth, room):
    auth.login(TEACHER)
    page = f"/instructor/assignments/{room.assignment_id}/slots/new"
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', client.get(page).text).group(1)
    html = client.post(
        page,
        data={"csrf_token": token, **slot_preview()},
    ).get_data(as_text=True)
    rows = dict(re.findall(r'<tr data-answer="([^"]+)">\s*<td>(.*?)</td>', html))
    assert rows["key"] == "The key" and rows["slip"] == "A single slip"
    assert rows["no-pruning"] == '<span class="code-words" title="no-pruning">No pruning</span>'
    assert "no error 1, 1 error 0.80, 2 errors 0.50, 3 errors 0.10, 4 or more 0" in html
    _no_bare_codes(html)


def test_student_pages_name_kinds_and_misconceptions_in_words(client, app, auth, factory, room):
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    auth.login(ALICE)
    headers = bearer(factory.token(ALICE))
    made = client.post(
        "/api/exercises",
        headers=headers,
        json={"kind": "leaf-order", "tree": [[3, 12, 8], [2, 4, 6], [14, 5, 2]]},
    ).get_json()
    exercise = client.get(f"/exercises/{made['id']}").get_data(as_text=True)
    assert "(Order of evaluation)" in exercise and "(leaf-order)" not in exercise
    assignment = client.get(f"/assignments/{room.assignment_id}").get_data(as_text=True)
    assert '<span class="code-words" title="prune">Pruned nodes</span>' in assignment
    for url in ["/progress", "/attempts", f"/assignments/{room.assignment_id}", "/practice"]:
        _no_bare_codes(client.get(url).get_data(as_text=True))
    practice = client.get("/practice").get_data(as_text=True)
    assert '<option value="leaf-order">Order of evaluation</option>' in practice


def _bars(html: str) -> dict[str, str | None]:
    """The progress chart's rows: each misconception's words -> its bar's title, or None."""
    chart = html.split('<svg class="chart"', 1)[1].split("</svg>", 1)[0]
    rows: dict[str, str | None] = {}
    for label in re.findall(r'text-anchor="end" [^>]*>([^<]+)</text>', chart):
        bar = re.search(rf"<rect [^>]*><title>{re.escape(label)}: (\d+)</title>", chart)
        rows[label] = bar.group(1) if bar else None
    return rows


def test_the_progress_chart_draws_no_bar_for_a_misconception_not_seen(client, app, auth, room):
    # One right answer on AIMA's tree: every misconception it exposes is one right answer in a
    # row, none was seen, so none has a bar; the note and the table say the count.
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    auth.login(ALICE)
    html = client.get("/progress").get_data(as_text=True)
    assert "0 mastered, 0 practising, 9 not seen, from 1 answer\n" in html
    bars = _bars(html)
    assert set(bars) == {misconception_name(c) for c in CODES}
    assert all(bar is None for bar in bars.values()), bars
    assert "No pruning: not seen; 1 of 3 right in a row" in html  # the chart's description
    assert "Not seen in your answers; 1 of 3 right in a row" in html  # the table
    # Shown once (nothing marked: plain minimax), no-pruning is practised: it gets its bar.
    answer(app, ALICE, room.assignment_id, 0, {"pruned": [], "value": 3})
    bars = _bars(client.get("/progress").get_data(as_text=True))
    assert bars["No pruning"] == "0"
    assert bars["Players swapped"] is None


def test_a_slots_conventions_in_words_say_its_leaf_bounds_and_depth_limit() -> None:
    brief = "prune when alpha >= beta (AIMA); cut nodes report their best value so far; children"
    assert conventions_brief({}) == brief + " left to right"
    # A chance slot's bounds are what Star1 cuts with: the list says them, as the form took them.
    assert conventions_brief({"bounds": [0, 10], "order": "rtl"}) == (
        brief + " right to left; leaf bounds 0..10"
    )
    assert conventions_brief({"depth": 2}) == brief + " left to right; depth limit 2 plies"
