"""The attempt path (issues 10 and 15): costliness decided from the exercise's stored facts
before its tree is built, the facts kept true when a slot's tree changes and filled by the
migration for exercises stored before it, and the statuses of the lean path unchanged."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.gametree import Tree
from grader.gametree.optimum import dp_size
from grader.gametree.solver import minimax
from grader.models import Exercise
from tests.app_support import attempt_count, bearer

SMALL = [[3, 5], [2, 9]]


def _exercise(app: Any, exercise_id: int) -> Exercise:
    with app.app_context():
        exercise = db.session.get(Exercise, exercise_id)
        assert exercise is not None
        db.session.expunge(exercise)
        return exercise


def _store(app: Any, exercise_id: int, **values: Any) -> None:
    with app.app_context():
        db.session.execute(sa.update(Exercise).where(Exercise.id == exercise_id).values(**values))
        db.session.commit()


@pytest.fixture
def student(factory: Any) -> dict[str, str]:
    factory.user("student@example.com")
    return bearer(factory.token("student@example.com"))


def test_an_exercise_stores_what_decides_whether_grading_it_is_costly(client, app, student):
    made = client.post(
        "/api/exercises",
        headers=student,
        json={"kind": "best-order", "tree": [[3, 5, 1], [2, 9, 4]]},
    ).get_json()
    exercise = _exercise(app, made["id"])
    tree = Tree.from_dict({"tree": exercise.tree, "players": exercise.players})
    assert exercise.node_count == tree.node_count() == 9
    assert exercise.dp_size == dp_size(tree) > 0
    prune = client.post(
        "/api/exercises", headers=student, json={"kind": "prune", "tree": SMALL}
    ).get_json()
    assert _exercise(app, prune["id"]).dp_size is None  # only best-order runs the optimum


def test_a_costly_attempt_is_refused_from_stored_facts_before_its_tree_is_built(
    client, app, student
):
    made = client.post(
        "/api/exercises", headers=student, json={"kind": "values", "tree": SMALL}
    ).get_json()
    # Stored facts say costly; the stored tree is one no search could read: a refusal that
    # built the tree first would fail on it instead of answering busy.
    _store(app, made["id"], node_count=2048, tree=[[3, "not a value"], {"x": 1}])
    lock = os.open(Path(app.instance_path) / "costly-0.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker holds the only costly-work permit
        response = client.post(
            made["urls"]["attempts"], headers=student, json={"answer": {"values": {"": 5}}}
        )
        assert response.status_code == 503 and response.headers["Retry-After"] == "1"
    finally:
        os.close(lock)
    assert attempt_count(app) == 0


def test_a_cheap_attempt_takes_no_costly_permit(client, app, student):
    made = client.post(
        "/api/exercises", headers=student, json={"kind": "values", "tree": SMALL}
    ).get_json()
    lock = os.open(Path(app.instance_path) / "costly-0.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        response = client.post(
            made["urls"]["attempts"],
            headers=student,
            json={"answer": {"values": {"": 3, "0": 3, "1": 2}}},
        )
        assert response.status_code == 201, response.get_json()
    finally:
        os.close(lock)
    assert attempt_count(app) == 1


def test_the_attempt_returned_is_the_row_stored(client, app, student):
    made = client.post(
        "/api/exercises", headers=student, json={"kind": "values", "tree": SMALL}
    ).get_json()
    answer = {"values": {"": 3, "0": 3, "1": 1}}
    shown = client.post(
        made["urls"]["attempts"], headers=student, json={"answer": answer}
    ).get_json()
    listed = client.get(f"/api/attempts/{shown['attempt_id']}", headers=student).get_json()
    assert {k: v for k, v in shown.items() if k != "solution"} == {
        k: v for k, v in listed.items() if k != "solution"
    }
    assert shown["answer"] == answer and shown["user"] == "student@example.com"
    assert 0 < shown["score"] < 1


def test_an_ungradable_answer_with_no_attempts_left_is_still_a_409(client, app, factory):
    room = factory.classroom()
    student = bearer(factory.token("student@example.com"))
    url = f"/api/assignments/{room['assignment_id']}/slots/0/exercise"
    exercise = client.get(url, headers=student).get_json()
    for _ in range(exercise["attempts_allowed"]):
        assert (
            client.post(
                exercise["urls"]["attempts"],
                headers=student,
                json={"answer": {"pruned": [], "value": 12345}},
            ).status_code
            == 201
        )
    response = client.post(
        exercise["urls"]["attempts"],
        headers=student,
        json={"answer": {"pruned": ["9.9"], "value": 1}},  # no such node
    )
    assert response.status_code == 409 and "no attempts left" in response.get_json()["error"]
    with_attempts_left = client.post(
        "/api/exercises", headers=student, json={"kind": "prune", "tree": SMALL}
    ).get_json()
    response = client.post(
        with_attempts_left["urls"]["attempts"],
        headers=student,
        json={"answer": {"pruned": ["9.9"], "value": 1}},  # no such node
    )
    assert response.status_code == 422


def test_the_migration_fills_the_facts_of_exercises_stored_before_it(app, runner, factory):
    owner = factory.user("owner@example.com")
    assert runner.invoke(args=["db", "downgrade", "5c0d7e1f2a3b"]).exit_code == 0
    trees = {"best-order": [[3, 5, 1], [2, 9, 4]], "prune": [[[1, 2], [3]], [4, [5, 6, 7]]]}
    with app.app_context():
        for kind, tree in trees.items():
            db.session.execute(
                sa.text(
                    "INSERT INTO exercise (owner_id, variant, kind, tree, players, conventions, "
                    "created_at) VALUES (:owner, 0, :kind, :tree, :players, :conventions, "
                    "'2026-01-01 00:00:00')"
                ),
                {
                    "owner": owner,
                    "kind": kind,
                    "tree": json.dumps(tree),
                    "players": json.dumps(["max", "min"]),
                    "conventions": json.dumps({}),
                },
            )
        db.session.commit()
        db.engine.dispose()
    result = runner.invoke(args=["db", "upgrade"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        stored = {e.kind: e for e in db.session.scalars(sa.select(Exercise))}
    for kind, nested in trees.items():
        tree = Tree.from_nested(nested)
        assert stored[kind].node_count == tree.node_count()
        assert stored[kind].dp_size == (dp_size(tree) if kind == "best-order" else None)


@pytest.mark.parametrize(
    "tree",
    [
        pytest.param(SMALL, id="small"),
        pytest.param(
            [[[i * 8 + j for j in range(8)] for i in range(8)] for _ in range(8)], id="585 nodes"
        ),
    ],
)
def test_the_response_to_an_attempt_carries_the_key_and_its_attempt_the_replay(
    client, student, tree
):
    """The reference search is the exercise's, the same for every attempt: the response to an
    attempt carries the key, and the attempt read back carries the search to replay."""
    made = client.post(
        "/api/exercises", headers=student, json={"kind": "values", "tree": tree}
    ).get_json()
    # The first attempt, which earns the solution, and a later one (a large tree's grading is
    # costly work: one attempt in the account's window)
    for _ in range(2 if tree is SMALL else 1):
        response = client.post(
            made["urls"]["attempts"], headers=student, json={"answer": {"values": {"": 1}}}
        )
        assert response.status_code == 201
        shown = response.get_json()
        assert shown["solution"]["search"] is None and shown["solution"]["key"]["values"]
        stored = client.get(f"/api/attempts/{shown['attempt_id']}", headers=student).get_json()
        search = stored["solution"]["search"]
        assert search["trace"] and search["value"] == minimax(Tree.from_nested(tree)).value
        assert len(response.data) < len(json.dumps(stored)) / 2  # the search is most of it


def test_an_edited_exercise_is_graded_against_its_new_tree_not_a_cached_one(client, app, factory):
    from grader.gametree import KINDS, Conventions
    from grader.services.teaching import editor
    from tests.instructor_support import user

    room = factory.classroom()
    student = bearer(factory.token("student@example.com"))
    # The same shape and node count, other leaves: only the tree's content tells them apart.
    before, after = [[3, 5], [2, 9]], [[8, 1], [6, 4]]
    with app.app_context():
        editor.update_slot(
            user("teacher@example.com"),
            room["assignment_id"],
            0,
            editor.SlotInput(kind="values", conventions={}, tree=Tree.from_nested(before)),
        )
    url = f"/api/assignments/{room['assignment_id']}/slots/0/exercise"
    exercise = client.get(url, headers=student).get_json()

    def key(nested: list[Any]) -> dict[str, Any]:
        return KINDS["values"].key(Tree.from_nested(nested), Conventions())

    assert key(before) != key(after)
    first = client.post(exercise["urls"]["attempts"], headers=student, json={"answer": key(before)})
    assert first.status_code == 201 and first.get_json()["score"] == 1  # its tree now cached
    with app.app_context():
        editor.update_slot(
            user("teacher@example.com"),
            room["assignment_id"],
            0,
            editor.SlotInput(kind="values", conventions={}, tree=Tree.from_nested(after)),
        )
    stale = client.post(exercise["urls"]["attempts"], headers=student, json={"answer": key(before)})
    fresh = client.post(exercise["urls"]["attempts"], headers=student, json={"answer": key(after)})
    assert stale.status_code == fresh.status_code == 201
    assert stale.get_json()["score"] < 1 and fresh.get_json()["score"] == 1


def test_the_tree_cache_keeps_the_latest_trees_and_parses_a_changed_one_again():
    from grader.services.trees.exercises import TreeCache

    cache = TreeCache(2, 100)

    def exercise(exercise_id: int, nested: list[Any]) -> Exercise:
        return Exercise(id=exercise_id, tree=nested, players=["max", "min"])

    one = cache.tree(exercise(1, [[1, 2], [3]]))
    assert cache.tree(exercise(1, [[1, 2], [3]])) is one  # parsed once
    changed = cache.tree(exercise(1, [[1, 2], [4]]))
    assert changed is not one and changed == Tree.from_nested([[1, 2], [4]])
    assert cache.tree(exercise(1, [[1, 2], [4]])) is changed
    swapped = cache.tree(Exercise(id=1, tree=[[1, 2], [4]], players=["min", "max"]))
    assert swapped.players == ("min", "max") and swapped is not changed
    two = cache.tree(exercise(2, [[5]]))
    cache.tree(exercise(1, [[1, 2], [4]]))  # 1 used after 2: 2 is the oldest
    cache.tree(exercise(3, [[6]]))  # over the size: 2 goes
    assert cache.tree(exercise(2, [[5]])) is not two
    assert cache.tree(exercise(2, [[5]])) == two
    unsaved = Exercise(tree=[[1, 2], [4]], players=["max", "min"])  # no id yet: parsed, not kept
    assert cache.tree(unsaved) == Tree.from_nested([[1, 2], [4]]) and len(cache) == 2


def test_the_tree_cache_holds_at_most_its_nodes():
    from grader.services.trees.exercises import TreeCache

    cache = TreeCache(10, 8)
    small, large = [[1, 2]], [[1, 2], [3, 4]]  # 4 nodes, 7 nodes
    first = cache.tree(Exercise(id=1, tree=small, players=["max", "min"]))
    assert cache.tree(Exercise(id=2, tree=small, players=["max", "min"])) is not first
    assert len(cache) == 2  # 8 nodes: at the bound
    cache.tree(Exercise(id=3, tree=large, players=["max", "min"]))
    assert len(cache) == 1  # 7 more nodes: both small trees go, oldest first
    cache.tree(Exercise(id=3, tree=small, players=["max", "min"]))  # replaced, not added
    cache.tree(Exercise(id=4, tree=small, players=["max", "min"]))
    assert len(cache) == 2


def test_an_attempt_in_a_course_outside_any_lms_marks_no_score_to_send(client, app, factory):
    # Placed slots are sent (tests/lti/test_advantage.py); the check is read with the count.
    from grader.models import LtiPassback

    room = factory.classroom()
    student = bearer(factory.token("student@example.com"))
    url = f"/api/assignments/{room['assignment_id']}/slots/0/exercise"
    exercise = client.get(url, headers=student).get_json()
    answer = {"answer": {"pruned": [], "value": 1}}
    assert (
        client.post(exercise["urls"]["attempts"], headers=student, json=answer).status_code == 201
    )
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(LtiPassback)) == 0
        assert attempt_count(app) == 1
