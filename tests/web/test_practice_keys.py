"""Keys stay earned: a student cannot paste their open graded variant's tree into practice (the
practice endpoint grades any typed tree and hands its key back after one attempt)."""

from __future__ import annotations

from grader.gametree import Tree
from tests.app_support import bearer


def _graded(client, student_headers, classroom) -> dict:
    url = f"/api/assignments/{classroom['assignment_id']}/slots/0/exercise"
    return client.get(url, headers=student_headers).get_json()


def _mirrored(nested):
    """The same tree with every node's children in reverse order."""
    return [_mirrored(c) for c in reversed(nested)] if isinstance(nested, list) else nested


def test_the_graded_tree_is_refused_as_practice_in_any_child_order(
    client, student_headers, classroom
):
    graded = _graded(client, student_headers, classroom)
    for tree in (graded["tree"], _mirrored(graded["tree"])):
        for kind in ("prune", "values", "leaf-order"):
            response = client.post(
                "/api/exercises",
                headers=student_headers,
                json={"kind": kind, "tree": tree, "players": graded["players"]},
            )
            assert response.status_code == 403, response.get_json()
            error = response.get_json()["error"]
            assert "your graded exercise" in error and "up to the order of children" in error


def test_another_tree_and_an_earned_key_are_allowed(client, student_headers, classroom):
    graded = _graded(client, student_headers, classroom)
    # one leaf different: another tree
    other = Tree.from_nested(graded["tree"]).to_nested()
    parent = other
    *above, last = Tree.from_nested(other).leaves()[0].split(".")
    for index in above:
        parent = parent[int(index)]
    parent[int(last)] += 100
    response = client.post(
        "/api/exercises", headers=student_headers, json={"kind": "prune", "tree": other}
    )
    assert response.status_code == 201, response.get_json()
    # once every attempt is used the key is the student's: the tree may be practised
    for _ in range(graded["attempts_allowed"]):
        client.post(
            graded["urls"]["attempts"],
            headers=student_headers,
            json={"answer": {"pruned": [], "value": 12345}},
        )
    response = client.post(
        "/api/exercises",
        headers=student_headers,
        json={"kind": "prune", "tree": graded["tree"], "players": graded["players"]},
    )
    assert response.status_code == 201, response.get_json()


def test_someone_elses_graded_tree_is_not_refused(client, factory, student_headers, classroom):
    graded = _graded(client, student_headers, classroom)
    factory.user("other@example.com")
    factory.member(classroom["course_id"], "other@example.com")
    other = bearer(factory.token("other@example.com"))
    response = client.post(
        "/api/exercises",
        headers=other,
        json={"kind": "prune", "tree": graded["tree"], "players": graded["players"]},
    )
    assert response.status_code == 201
