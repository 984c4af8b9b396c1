"""The guard against typing one's own graded tree into practice holds up to a strictly
increasing map of the leaf values (issue 49, finding 7: writing every leaf v as 2v+1 gave an
accepted tree whose key is the graded key). Alpha-beta's key depends only on the order of the
leaves, ties included, so the guard compares trees by that order."""

from __future__ import annotations

from typing import Any


def mapped(nested: Any, f) -> Any:
    """The tree with every number (leaf or evaluation) v written as f(v)."""
    if isinstance(nested, list):
        return [mapped(c, f) for c in nested]
    if isinstance(nested, dict):
        return {k: mapped(v, f) if k in ("eval", "children") else v for k, v in nested.items()}
    return f(nested) if isinstance(nested, (int, float)) else nested


def test_a_graded_tree_under_an_increasing_map_is_refused(client, student_headers, classroom):
    url = f"/api/assignments/{classroom['assignment_id']}/slots/0/exercise"
    graded = client.get(url, headers=student_headers).get_json()
    for f in (lambda v: 2 * v + 1, lambda v: 1000 + v * v * v, lambda v: v / 4 - 0.5):
        response = client.post(
            "/api/exercises",
            headers=student_headers,
            json={"kind": "prune", "tree": mapped(graded["tree"], f), "players": graded["players"]},
        )
        assert response.status_code == 403, response.get_json()
        assert "your graded exercise" in response.get_json()["error"]
    # A map that reverses the order is another exercise (its key differs): allowed.
    response = client.post(
        "/api/exercises",
        headers=student_headers,
        json={
            "kind": "prune",
            "tree": mapped(graded["tree"], lambda v: -v),
            "players": graded["players"],
        },
    )
    assert response.status_code == 201, response.get_json()
