"""Depth-limited exercises through the services and the API: a typed tree with evaluations, a
generated slot with evaluations and a depth limit, a CS188 file in the slot editor. The exercise
is stored and shown as the search sees it (horizon and terminal nodes as leaves)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.extensions import db
from grader.gametree import KINDS, Conventions, Tree
from grader.services import Invalid
from grader.services.teaching import editor
from grader.services.trees import exercises
from tests.app_support import bearer
from tests.instructor_support import ALICE, TEACHER, user

CS188 = Path(__file__).parents[1] / "gametree" / "data" / "cs188"
EVALUATED = [
    {"eval": 3, "children": [1, 5]},
    {"eval": 2, "children": [9, {"eval": 0, "children": [4]}]},
]


def test_typed_practice_with_evaluations_and_a_depth_limit(client, factory, room):
    student = bearer(factory.token(ALICE))
    response = client.post(
        "/api/exercises",
        headers=student,
        json={"kind": "values", "tree": EVALUATED, "conventions": {"depth": 1}},
    )
    assert response.status_code == 201, response.get_json()
    exercise = response.get_json()
    assert exercise["tree"] == [3, 2]  # the horizon: each child scored by its evaluation
    assert exercise["conventions"]["depth"] == 1
    assert "1 plies below the root" in exercise["conventions_text"]
    attempt = client.post(
        exercise["urls"]["attempts"], headers=student, json={"answer": {"values": {"": 3}}}
    ).get_json()
    assert attempt["score"] == 1.0
    # without a depth limit the whole tree is searched and the evaluations are not used
    whole = client.post(
        "/api/exercises", headers=student, json={"kind": "values", "tree": EVALUATED}
    ).get_json()
    assert whole["tree"] == [[1, 5], [9, [4]]]


def test_a_depth_limit_where_there_is_no_evaluation_is_refused(client, factory, room):
    student = bearer(factory.token(ALICE))
    response = client.post(
        "/api/exercises",
        headers=student,
        json={"kind": "prune", "tree": [[1, 2], [3, 4]], "conventions": {"depth": 1}},
    )
    assert response.status_code == 422
    assert "B lies at the depth limit (1) but has no evaluation" in response.get_json()["error"]


def test_a_generated_slot_with_evaluations_and_a_depth_limit(app, room):
    with app.app_context():
        slot = editor.add_slot(
            user(TEACHER),
            room.assignment_id,
            editor.SlotInput(
                kind="prune",
                conventions={"depth": 2},
                params={"depth": 4, "evaluations": True, "min_cutoffs": 1},
                title="Horizon",
            ),
        )
        exercise = exercises.slot_exercise(user(ALICE), room.assignment_id, slot.index)
        tree = exercises.tree_of(exercise)
        assert tree.depth() == 2 and not tree.has_evaluations
        key = KINDS["prune"].key(tree, Conventions.from_dict(exercise.conventions))
        assert key["pruned"]
        # the seed still rebuilds it: the stored tree is the rebuilt one cut at the horizon
        assert exercises.rebuild(exercise).cut(2) == tree
        with pytest.raises(Invalid, match="needs evaluations"):
            editor.add_slot(
                user(TEACHER),
                room.assignment_id,
                editor.SlotInput(kind="prune", conventions={"depth": 2}, params={"depth": 4}),
            )


def test_a_cs188_file_in_the_slot_editor_is_cut_at_its_depth(app, room):
    text = (CS188 / "q3" / "7-2a-check-depth-two-ghosts.test").read_text()
    with app.app_context():
        tree = editor.build_tree("cs188", cs188=text)
        assert tree.depth() == 3 and tree.to_nested() == [[[10]], [[0]], [[8]]]
        slot = editor.add_slot(
            user(TEACHER),
            room.assignment_id,
            editor.SlotInput(
                kind="values", conventions={"ties": "explore"}, tree=tree, title="CS188 depth"
            ),
        )
        stored = db.session.get(type(slot), slot.id)
        assert Tree.from_dict(stored.tree) == tree
        exercise = exercises.slot_exercise(user(ALICE), room.assignment_id, slot.index)
        key = KINDS["values"].key(exercises.tree_of(exercise), Conventions(ties="explore"))
        assert key["values"][""] == 10  # CS188's answer at depth 1: d1's evaluation, via Left
