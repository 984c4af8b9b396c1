"""Bad input is a clean 4xx, stores nothing and breaks nothing afterwards (issue 10)."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa

from grader.extensions import db
from tests.app_support import attempt_count

BIG = 2**63  # one past the largest id the database holds


@pytest.fixture
def teacher(factory, classroom):
    return {"Authorization": f"Bearer {factory.token('teacher@example.com')}"}


def practice(client, headers, kind, tree=None):
    response = client.post(
        "/api/exercises",
        headers=headers,
        json={"kind": kind, "tree": tree or [[3, 12, 8], [2, 4, 6]]},
    )
    assert response.status_code == 201
    return response.get_json()


def nested(depth: int) -> dict:
    inner: dict = {}
    for _ in range(depth):
        inner = {"x": inner}
    return inner


# Refused by the request's schema (the document states each kind's answer shape): 400s. A number
# as text is read by the answer grammar (gametree.numbers): "3" is a number, "three", "1e3",
# "3 4" and "- 3" are not.
BAD_ANSWERS = [
    ("prune", {"pruned": [], "value": 3, "extra": nested(20)}, "answer.pruned.extra: Extra inputs"),
    ("prune", {"pruned": [], "value": "three"}, "must be a number, a fraction such as 14/3"),
    ("prune", {"pruned": [], "value": "1e3"}, "must be a number, a fraction such as 14/3"),
    ("prune", {"pruned": [], "value": True}, "must be a number, a fraction such as 14/3"),
    ("prune", {"pruned": [], "value": [3]}, "must be a number, a fraction such as 14/3"),
    (
        "prune",
        {"pruned": [["1"]], "value": 3},
        "answer.pruned.pruned.0: Input should be a valid string",
    ),
    ("prune", {"pruned": ["01"], "value": 3}, "should match pattern"),
    (
        "values",
        {"values": {"": "3 4", "0": 3, "1": 2}},
        "must be a number, a fraction such as 14/3",
    ),
    ("values", {"values": {"": {"a": 1}}}, "must be a number, a fraction such as 14/3"),
    ("minimax", {"values": {"": 3}, "bounds": {}}, "answer.bounds.values: Extra inputs"),
    ("bounds", {"bounds": {"": ["-inf", "- 3"]}}, "must be a number, a fraction such as 14/3"),
    ("leaf-order", {"leaf_order": ["0.0"], "pruned": []}, "answer.leaf_order.pruned: Extra inputs"),
    ("leaf-order", {"leaf_order": ["0.0", "0.0"]}, "listed twice"),
    ("best-order", {"order": {"": [1, 0]}, "leaves": "4"}, "answer.order.leaves: Input should be"),
    ("best-order", {"leaves": 4}, "an answer is an object with one of pruned"),
]
# Schema-valid, but not this exercise's (its kind, its tree): 422s naming the kind.
UNFIT_ANSWERS = [
    ("prune", {"pruned": ["5"], "value": 3}, "no node at path '5'"),
    ("values", {"values": {"0.0": 3}}, "is a leaf"),
    ("minimax", {"bounds": {"": [1, 2]}}, "a minimax answer has only 'values'"),
    ("best-order", {"order": {"": [0, 1, 2]}}, "must list each of 0..1 once"),
]


@pytest.mark.parametrize(("kind", "answer", "reason"), UNFIT_ANSWERS)
def test_answers_unfit_for_their_exercise_are_a_422_naming_its_kind(
    client, app, student_headers, kind, answer, reason
):
    exercise = practice(client, student_headers, kind)
    response = client.post(
        exercise["urls"]["attempts"], headers=student_headers, json={"answer": answer}
    )
    body = response.get_json()
    assert response.status_code == 422, body
    assert body["kind"] == kind and body["error"].startswith(f"this is a {kind} exercise: ")
    assert reason in body["error"]
    assert attempt_count(app) == 0


@pytest.mark.parametrize(("kind", "answer", "reason"), BAD_ANSWERS)
def test_answers_are_checked_against_their_kinds_schema(
    client, app, student_headers, teacher, kind, answer, reason
):
    exercise = practice(client, student_headers, kind)
    response = client.post(
        exercise["urls"]["attempts"], headers=student_headers, json={"answer": answer}
    )
    assert response.status_code == 400, response.get_json()
    assert reason in response.get_json()["error"]
    assert attempt_count(app) == 0
    # Nothing broken afterwards: the lists still answer, for the student and the staff.
    for who in (student_headers, teacher):
        assert client.get("/api/attempts", headers=who).status_code == 200


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"])
def test_json_numbers_that_are_not_numbers_are_refused(client, app, student_headers, literal):
    exercise = practice(client, student_headers, "prune")
    body = '{"answer": {"pruned": [], "value": ' + literal + "}}"
    response = client.post(
        exercise["urls"]["attempts"],
        headers=student_headers,
        data=body,
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "not valid JSON" in response.get_json()["error"]
    assert attempt_count(app) == 0


def test_a_right_answer_spelled_strictly_is_still_graded(client, app, student_headers):
    exercise = practice(client, student_headers, "bounds")
    response = client.post(
        exercise["urls"]["attempts"],
        headers=student_headers,
        json={"answer": {"bounds": {"": ["inf", 3], "0": [-1e9, "-inf"]}}},
    )
    assert response.status_code == 201  # infinity spelled out is a number here
    assert attempt_count(app) == 1


def _routes(app, method):
    for rule in app.url_map.iter_rules():
        if method in rule.methods and any(
            type(c).__name__ == "IdConverter" for c in rule._converters.values()
        ):
            yield rule


def test_ids_beyond_the_database_are_404_on_every_route(app, client, auth, student_headers):
    auth.login("teacher@example.com")
    checked = 0
    for method in ("GET", "POST"):
        for rule in _routes(app, method):
            url = rule.rule
            for name in rule.arguments:
                url = url.replace(f"<int:{name}>", str(BIG)).replace(f"<{name}>", "x")
            for headers in ({}, student_headers):  # the session (pages) and a token (the API)
                response = client.open(url, method=method, headers=headers, json={})
                assert response.status_code == 404, (method, url, response.status_code)
                checked += 1
    assert checked > 40
    for query in (f"exercise_id={BIG}", f"assignment_id={BIG}"):
        response = client.get(f"/api/attempts?{query}", headers=student_headers)
        assert response.status_code == 404, query
    upload = client.post(
        "/api/engines",
        headers=student_headers,
        data={
            "assignment_id": str(BIG),
            "slot_index": "0",
            "file": (__import__("io").BytesIO(b"x"), "engine.py"),
        },
    )
    assert upload.status_code == 404


def test_json_nested_1000_deep_is_400_on_every_json_endpoint(
    app, client, student_headers, teacher, classroom
):
    document = client.get("/api/openapi.json").get_json()
    deep = "[" * 1000 + "]" * 1000
    body = f'{{"answer": {deep}, "kind": {deep}}}'
    checked = 0
    for path, operations in document["paths"].items():
        for method, op in operations.items():
            if "application/json" not in op.get("requestBody", {}).get("content", {}):
                continue
            url = re.sub(r"\{\w+\}", "1", path)
            for headers in (student_headers, teacher):
                response = client.open(
                    url,
                    method=method.upper(),
                    headers=headers,
                    data=body,
                    content_type="application/json",
                )
                assert response.status_code == 400, (path, response.status_code)
                assert "nested" in response.get_json()["error"]
                checked += 1
    assert checked >= 4
    assert attempt_count(app) == 0


def test_a_nested_tree_in_the_forms_is_400(client, auth, factory, classroom):
    auth.login()
    deep = "[" * 1000 + "]" * 1000
    response = client.post(
        "/practice",
        data={
            "csrf_token": auth.csrf(),
            "kind": "prune",
            "source": "nested",
            "nested": deep,
            "ties": "prune",
            "values_rule": "soft",
            "order": "ltr",
        },
    )
    assert response.status_code == 400
    assert "nested more than" in response.get_data(as_text=True)


def test_the_engine_slot_advertises_no_exercise_url(app, client, student_headers, classroom):
    from grader.services.engines import submissions

    with app.app_context():
        submissions.add_engine_slot(classroom["assignment_id"], suite="quick")
    assignment = client.get(
        f"/api/assignments/{classroom['assignment_id']}", headers=student_headers
    )
    slots = assignment.get_json()["slots"]
    engine = [s for s in slots if s["kind"] == "engine"]
    assert engine and "exercise" not in engine[0]["urls"] and "upload" in engine[0]["urls"]
    for slot in slots:  # every URL advertised answers
        for name, url in slot["urls"].items():
            method = "POST" if name == "upload" else "GET"
            if method == "GET":
                response = client.get(url, headers=student_headers)
                assert response.status_code in (200, 302), (name, url, response.status_code)


def test_an_engine_slot_has_no_exercise_and_says_where_its_work_goes(
    app, client, student_headers, classroom
):
    from grader.services.engines import submissions

    with app.app_context():
        index = submissions.add_engine_slot(classroom["assignment_id"], suite="quick").index
    base = f"/api/assignments/{classroom['assignment_id']}/slots/{index}"
    for response in (
        client.get(f"{base}/exercise", headers=student_headers),
        client.post(f"{base}/variants", headers=student_headers),
    ):
        assert response.status_code == 409
        error = response.get_json()["error"]
        assert "/api/engines" in error and "suite" not in error and "param" not in error
    documented = client.get("/api/openapi.json").get_json()["paths"]
    assert (
        "409"
        in documented["/api/assignments/{assignment_id}/slots/{index}/exercise"]["get"]["responses"]
    )


def test_an_answer_of_another_kind_is_a_422_naming_the_exercise_kind(
    client, app, student_headers, classroom
):
    url = f"/api/assignments/{classroom['assignment_id']}/slots/0/exercise"
    exercise = client.get(url, headers=student_headers).get_json()
    response = client.post(
        exercise["urls"]["attempts"],
        headers=student_headers,
        json={"answer": {"leaf_order": ["0.0"]}},
    )
    assert response.status_code == 422
    assert f"this is a {exercise['kind']} exercise" in response.get_json()["error"]
    assert response.get_json()["kind"] == exercise["kind"]
    documented = client.get("/api/openapi.json").get_json()
    submit = documented["paths"]["/api/exercises/{exercise_id}/attempts"]["post"]
    assert "422" in submit["responses"]
    error = documented["components"]["schemas"]["Error"]["properties"]
    assert "the exercise's kind" in error["kind"]["description"]


def test_a_fixed_best_order_slot_too_big_for_its_kind_is_refused(app, client, auth, classroom):
    from grader.services.teaching.editor import SlotInput, add_slot, preview

    wide = [[i, -i] for i in range(20)]  # 20 children at the root
    auth.login("teacher@example.com")
    headers = {"X-CSRFToken": auth.csrf()}
    response = client.post(
        f"/api/courses/{classroom['course_id']}/preview",
        headers=headers,
        json={"kind": "best-order", "tree": wide},
    )
    assert response.status_code == 422
    assert "at most 14 children" in response.get_json()["error"]
    page = f"/instructor/assignments/{classroom['assignment_id']}/slots/new"
    response = client.post(
        page,
        data={
            "csrf_token": auth.csrf(),
            "title": "Too wide",
            "kind": "best-order",
            "source": "nested",
            "nested": str(wide),
            "ties": "prune",
            "values_rule": "soft",
            "order": "ltr",
            "action": "save",
            "players": "max,min",
        },
    )
    assert response.status_code in (200, 400)
    assert "at most 14 children" in response.get_data(as_text=True)
    from grader.gametree import Tree
    from grader.models import Slot, User
    from grader.services import Invalid

    with app.app_context():
        before = db.session.scalar(sa.select(sa.func.count(Slot.id)))
        teacher = db.session.scalar(sa.select(User).where(User.email == "teacher@example.com"))
        spec = SlotInput(kind="best-order", conventions={}, tree=Tree.from_nested(wide))
        for call in (
            lambda: add_slot(teacher, classroom["assignment_id"], spec),
            lambda: preview(teacher, classroom["course_id"], spec),
        ):
            with pytest.raises(Invalid, match="at most 14 children"):
                call()
        assert db.session.scalar(sa.select(sa.func.count(Slot.id))) == before


def test_a_cs188_file_with_a_million_agents_is_refused(client, auth, classroom):
    from grader.gametree import Tree

    text = (
        Tree.from_nested([[3, 12, 8], [2, 4, 6]])
        .to_cs188()
        .replace('num_agents: "2"', 'num_agents: "1000000"')
    )
    auth.login("teacher@example.com")
    page = f"/instructor/assignments/{classroom['assignment_id']}/slots/new"
    response = client.post(
        page,
        data={
            "csrf_token": auth.csrf(),
            "title": "Agents",
            "kind": "prune",
            "source": "cs188",
            "cs188": text,
            "ties": "explore",
            "values_rule": "soft",
            "order": "ltr",
            "action": "preview",
        },
    )
    assert response.status_code in (200, 400)
    html = response.get_data(as_text=True)
    assert "num_agents must be 2..16" in html and len(html) < 200_000


def test_the_document_says_a_node_object_needs_children_and_which_files_are_taken(
    client, student_headers
):
    document = client.get("/api/openapi.json").get_json()
    schemas = document["components"]["schemas"]
    create = schemas["CreateExercise"]["properties"]["tree"]
    items = next(s for s in create["anyOf"] if s["type"] == "array")["items"]
    assert items == {"$ref": "#/components/schemas/TreeNode"}
    shapes = schemas["TreeNode"]["oneOf"]  # a leaf, a list of children (nodes), a node object
    assert shapes[0] == {"type": "number"} and shapes[1]["items"] == items
    assert shapes[2] == {"$ref": "#/components/schemas/NodeObject"}
    assert schemas["NodeObject"]["required"] == ["children"]
    assert schemas["NodeObject"]["properties"]["children"]["items"] == items
    response = client.post(
        "/api/exercises", headers=student_headers, json={"kind": "prune", "tree": [{}]}
    )
    assert response.status_code == 400 and "children" in response.get_json()["error"]
    upload = document["paths"]["/api/engines"]["post"]["requestBody"]["content"]
    assert upload["multipart/form-data"]["encoding"]["file"]["contentType"] == (
        "text/x-python, application/zip"
    )
