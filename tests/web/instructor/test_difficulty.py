"""The difficulty of a class's own trees: the assignment page links to it, and it shows, per tree
slot, calibration's spread measured on the graded trees the students were actually given."""

from __future__ import annotations

import re

from grader.gametree import Conventions
from grader.gametree.calibrate import calibrate_trees, tree_measures
from grader.services.trees import exercises
from tests.instructor_support import ALICE, BOB, OUTSIDER, TEACHER, user


def _given(app, assignment_id, index):
    """Alice's and Bob's graded trees of the slot (given them as they open it)."""
    with app.app_context():
        return [
            exercises.tree_of(exercises.slot_exercise(user(email), assignment_id, index))
            for email in (ALICE, BOB)
        ]


def _section(html: str, index: int) -> str:
    return re.search(rf'data-slot="{index}">(.*?)</section>', html, re.S).group(1)


def test_the_page_measures_the_students_own_trees(client, app, teacher):
    trees = _given(app, teacher.assignment_id, 1)  # the generated values slot: depth 3
    _given(app, teacher.assignment_id, 0)  # the textbook tree: the same for both
    page = client.get(f"/instructor/assignments/{teacher.assignment_id}")
    assert f"/instructor/assignments/{teacher.assignment_id}/difficulty" in page.get_data(
        as_text=True
    )
    html = client.get(f"/instructor/assignments/{teacher.assignment_id}/difficulty").get_data(
        as_text=True
    )
    generated = _section(html, 1)
    assert "2 trees measured" in generated
    measured = [tree_measures("values", tree, Conventions()) for tree in trees]
    leaves = re.search(r'data-measure="leaves">(.*?)</tr>', generated, re.S).group(1)
    low = min(m["leaves"] for m in measured)
    high = max(m["leaves"] for m in measured)
    assert f"<td>{low} (" in leaves and f"<td>{high} (" in leaves
    # Each tree is named by its student; the rows are calibration's, on these very trees.
    assert "alice@example.com" in generated or "Alice" in generated
    rows = {r.answer: r for r in calibrate_trees("values", trees, Conventions())}
    key = re.search(r'data-answer="key">(.*?)</tr>', generated, re.S).group(1)
    assert f'<td class="num">{rows["key"].trees}</td>' in key
    no_pruning = re.search(r'data-answer="no-pruning">(.*?)</tr>', generated, re.S).group(1)
    assert f"{rows['no-pruning'].mean:.2f}" in no_pruning
    # The fixed textbook tree is every student's: no spread at all.
    fixed = _section(html, 0)
    assert "2 trees measured" in fixed
    sds = re.findall(
        r'data-measure="\w+">.*?<td class="num">[\d.]+</td><td class="num">([\d.]+)</td>',
        fixed,
        re.S,
    )
    assert sds and all(sd == "0.00" for sd in sds)


def test_only_the_courses_staff_see_it(client, auth, app, teacher):
    auth.logout()
    auth.login(OUTSIDER)
    response = client.get(f"/instructor/assignments/{teacher.assignment_id}/difficulty")
    assert response.status_code in (403, 404)


def test_a_best_order_slot_is_measured_against_the_order_as_given(client, app, teacher):
    # Best-order has no misconception variants: its class's trees are measured against the
    # answer given blind, each tree's order as given.
    from grader.services.teaching import editor

    params = {"depth": 3, "branching": "2-3", "values": "-20..20", "never_key": ["as-given"]}
    with app.app_context():
        slot = editor.add_slot(
            user(TEACHER),
            teacher.assignment_id,
            editor.SlotInput(kind="best-order", conventions={}, params=params, title="Order"),
        )
        index = slot.index
    trees = _given(app, teacher.assignment_id, index)
    html = client.get(f"/instructor/assignments/{teacher.assignment_id}/difficulty").get_data(
        as_text=True
    )
    section = _section(html, index)
    assert "2 trees measured" in section and "nothing is measured" not in section
    rows = {r.answer: r for r in calibrate_trees("best-order", trees, Conventions())}
    assert rows["as-given"].key_share == 0.0  # the band's never_key
    as_given = re.search(r'data-answer="as-given">(.*?)</tr>', section, re.S).group(1)
    assert "As given" in as_given and f"{rows['as-given'].mean:.2f}" in as_given
    nodes = re.search(r'data-measure="answers">(.*?)</tr>', section, re.S).group(1)
    counts = [tree_measures("best-order", tree, Conventions())["answers"] for tree in trees]
    assert f"<td>{min(counts)} (" in nodes and f"<td>{max(counts)} (" in nodes
