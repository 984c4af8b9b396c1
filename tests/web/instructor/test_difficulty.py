"""The difficulty of a class's own trees: the assignment page links to it, and it shows, per tree
slot, calibration's spread measured on the graded trees the students were actually given."""

from __future__ import annotations

import re

from grader.gametree import Conventions
from grader.gametree.calibrate import calibrate_trees, tree_measures
from grader.services.trees import exercises
from tests.instructor_support import ALICE, BOB, OUTSIDER, user


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
