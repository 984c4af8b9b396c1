"""The JSON API: exercises, attempts, authorization, CSRF, limits, OpenAPI."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.gametree import KINDS, Conventions, Tree
from grader.models import Exercise
from grader.services import accounts
from tests.app_support import app_config, attempt_count, bearer


def key_for(exercise: dict) -> dict:
    tree = Tree.from_dict({"tree": exercise["tree"], "players": exercise["players"]})
    return KINDS[exercise["kind"]].key(tree, Conventions.from_dict(exercise["conventions"]))


def test_practice_exercise_round_trip(client, app, student_headers):
    response = client.post(
        "/api/exercises",
        headers=student_headers,
        json={"kind": "prune", "params": {"depth": 2, "branching": 3, "min_cutoffs": 1}},
    )
    assert response.status_code == 201, response.get_json()
    exercise = response.get_json()
    assert {"id", "kind", "tree", "players", "conventions", "prompt", "labels"} <= set(exercise)
    assert "solution" not in exercise and "key" not in exercise
    assert exercise["labels"][""] == "A" and exercise["practice"] is True
    assert client.get(exercise["urls"]["self"], headers=student_headers).get_json() == exercise

    answer = key_for(exercise)
    response = client.post(
        exercise["urls"]["attempts"], headers=student_headers, json={"answer": answer}
    )
    assert response.status_code == 201
    attempt = response.get_json()
    assert attempt["score"] == 1.0 and attempt["parts"] and attempt["feedback"]
    assert {"attempt_id", "score", "parts", "feedback", "diagnosis"} <= set(attempt)
    # Practice: the solution comes with the first stored attempt; its trace with the attempt.
    assert attempt["solution"]["key"] == answer and attempt["solution"]["search"] is None
    stored = client.get(
        f"/api/attempts/{attempt['attempt_id']}", headers=student_headers
    ).get_json()
    assert stored["solution"]["key"] == answer and stored["solution"]["search"]["trace"]
    assert attempt_count(app) == 1


def test_typed_leaves_as_in_the_delphi_visualizer(client, student_headers):
    response = client.post(
        "/api/exercises",
        headers=student_headers,
        json={"kind": "prune", "leaves": "3,12,8,2,4,6,14,5,2", "branching": 3, "depth": 2},
    )
    exercise = response.get_json()
    assert response.status_code == 201 and exercise["tree"] == [[3, 12, 8], [2, 4, 6], [14, 5, 2]]
    assert exercise["seed"] is None
    wrong = client.post(
        exercise["urls"]["attempts"],
        headers=student_headers,
        json={"answer": {"pruned": [], "value": 2}},
    ).get_json()
    assert wrong["score"] < 1 and wrong["first_wrong"]["label"]


@pytest.mark.parametrize(
    ("kind", "answer", "score", "words"),
    [
        # AIMA's tree: I and J (C's last two leaves) pruned, the root 3, B = 3, C = D = 2.
        ("prune", {"pruned": ["1.1", "1.2"], "value": 3}, 1.0, "No error: score 1, by the rule"),
        (
            "prune",
            {"pruned": [], "value": 2},
            0.1,
            "3 errors: 2 missing marks at I and J (pruned, not marked); 1 wrong root value. "
            "Score 0.10, by the rule: no error 1, 1 error 0.80, 2 errors 0.50, 3 errors 0.10, "
            "4 or more 0.",
        ),
        (
            "values",
            {"values": {"": 3, "0": 3, "1": 2, "2": 5}},
            0.8,
            "1 error: 1 wrong value at D.",
        ),
        # Knuth and Moore: 3 + 3 - 1 = 5 leaves at best; the order as given evaluates 7.
        ("best-order", {"order": {}}, 5 / 7, "Your ordering evaluates 7 leaves; the fewest"),
    ],
)
def test_an_attempt_says_how_its_score_came_about(
    client, student_headers, kind, answer, score, words
):
    exercise = client.post(
        "/api/exercises",
        headers=student_headers,
        json={"kind": kind, "tree": [[3, 12, 8], [2, 4, 6], [14, 5, 2]]},
    ).get_json()
    made = client.post(
        exercise["urls"]["attempts"], headers=student_headers, json={"answer": answer}
    )
    attempt = made.get_json()
    assert made.status_code == 201 and attempt["score"] == pytest.approx(score)
    assert attempt["scoring_words"].startswith(words)  # practice: the key is shown, nodes named
    again = client.get(f"/api/attempts/{attempt['attempt_id']}", headers=student_headers).get_json()
    assert again["scoring_words"] == attempt["scoring_words"]
    listed = client.get("/api/attempts", headers=student_headers).get_json()["attempts"][0]
    # The stored facts name every wrong node: the API gives words, the nodes with the key only.
    assert "scoring" not in attempt and "scoring" not in again
    # The list carries no solution, so its words count the errors without placing them.
    assert listed["scoring_words"].split(":")[0] == attempt["scoring_words"].split(":")[0]
    assert " at " not in listed["scoring_words"]


@pytest.mark.parametrize("kind, pruned", [("minimax", []), ("prune", ["1.1", "1.2"])])
def test_the_replay_is_the_kinds_own_search(client, student_headers, kind, pruned):
    # AIMA's tree: alpha-beta prunes the 4 and the 6; a minimax exercise replays plain minimax.
    exercise = client.post(
        "/api/exercises",
        headers=student_headers,
        json={"kind": kind, "tree": [[3, 12, 8], [2, 4, 6], [14, 5, 2]]},
    ).get_json()
    attempt = client.post(
        exercise["urls"]["attempts"], headers=student_headers, json={"answer": key_for(exercise)}
    ).get_json()
    again = client.get(f"/api/attempts/{attempt['attempt_id']}", headers=student_headers).get_json()
    search = again["solution"]["search"]
    assert search["value"] == 3 and search["pruned"] == pruned
    assert again["solution"] == {**attempt["solution"], "search": search}


@pytest.mark.parametrize(
    "body, message",
    [
        ({"kind": "nope"}, "kind must be one of"),
        ({"kind": "prune", "params": {"depth": 99}}, "depth"),
        ({"kind": "prune", "tree": [[1, "x"]]}, "tree"),
        ({"kind": "prune", "leaves": "1,2,3"}, "branching and depth"),
        ({"kind": "prune", "surprise": 1}, "surprise"),
    ],
)
def test_bad_exercise_requests(client, student_headers, body, message):
    response = client.post("/api/exercises", headers=student_headers, json=body)
    assert response.status_code == 400
    assert message in response.get_json()["error"]


def test_ungradable_answer_is_a_4xx_and_stores_nothing(client, app, student_headers, classroom):
    url = f"/api/assignments/{classroom['assignment_id']}/slots/0/exercise"
    exercise = client.get(url, headers=student_headers).get_json()
    assert exercise["kind"] == "prune"
    # Shapes the document states: a 400 from the request's schema.
    for answer in ({"value": 1}, {"pruned": "x", "value": 1}, {"pruned": [""], "value": 1}):
        response = client.post(
            exercise["urls"]["attempts"], headers=student_headers, json={"answer": answer}
        )
        assert response.status_code == 400 and response.get_json()["error"].startswith("body: ")
    # Schema-valid, but not this exercise's: another kind's shape, a node the tree lacks. A 422
    # whose body names the exercise's kind.
    for answer in ({"pruned": ["9.9.9"], "value": 1}, {"leaf_order": ["0.0"]}, {"values": {}}):
        response = client.post(
            exercise["urls"]["attempts"], headers=student_headers, json={"answer": answer}
        )
        body = response.get_json()
        assert response.status_code == 422, body
        assert body["kind"] == "prune" and body["error"].startswith("this is a prune exercise: ")
    assert (
        client.post(
            exercise["urls"]["attempts"], headers=student_headers, data="not json"
        ).status_code
        == 400
    )
    assert (
        client.post(
            exercise["urls"]["attempts"], headers=student_headers, json={"answer": []}
        ).status_code
        == 400
    )
    assert attempt_count(app) == 0
    again = client.get(exercise["urls"]["self"], headers=student_headers).get_json()
    assert again["attempts_used"] == 0


def test_graded_variant_limits_attempts_and_hides_the_solution(
    client, app, student_headers, classroom
):
    url = f"/api/assignments/{classroom['assignment_id']}/slots/0/exercise"
    exercise = client.get(url, headers=student_headers).get_json()
    assert exercise["practice"] is False and exercise["attempts_allowed"] == 3
    assert (
        client.get(url, headers=student_headers).get_json()["id"] == exercise["id"]
    )  # same variant
    wrong = {"pruned": [], "value": 12345}
    for n in range(3):
        response = client.post(
            exercise["urls"]["attempts"], headers=student_headers, json={"answer": wrong}
        )
        assert response.status_code == 201
        attempt = response.get_json()
        # Not full marks: the solution only once every attempt is used.
        assert (attempt["solution"] is None) == (n < 2)
    response = client.post(
        exercise["urls"]["attempts"], headers=student_headers, json={"answer": key_for(exercise)}
    )
    assert response.status_code == 409 and "no attempts left" in response.get_json()["error"]
    assert attempt_count(app) == 3
    assert client.get(exercise["urls"]["self"], headers=student_headers).get_json()[
        "solution_available"
    ]


def test_full_marks_reveal_the_replay(client, student_headers, classroom):
    url = f"/api/assignments/{classroom['assignment_id']}/slots/0/exercise"
    exercise = client.get(url, headers=student_headers).get_json()
    attempt = client.post(
        exercise["urls"]["attempts"], headers=student_headers, json={"answer": key_for(exercise)}
    ).get_json()
    assert attempt["score"] == 1.0 and attempt["solution"]["key"]
    fetched = client.get(
        f"/api/attempts/{attempt['attempt_id']}", headers=student_headers
    ).get_json()
    assert fetched["solution"]["search"]["trace"]
    assert fetched["solution"] == {**attempt["solution"], "search": fetched["solution"]["search"]}


def test_variant_seed_is_derived_and_rebuilds(app, client, student_headers, classroom):
    from grader.services.trees import exercises

    url = f"/api/assignments/{classroom['assignment_id']}/slots/0/exercise"
    exercise = client.get(url, headers=student_headers).get_json()
    with app.app_context():
        stored = db.session.get(Exercise, exercise["id"])
        assert stored.seed == exercises.variant_seed(
            classroom["assignment_id"], 0, stored.owner_id, 0
        )
        assert exercises.rebuild(stored) == exercises.tree_of(stored)
    other = client.post(
        f"/api/assignments/{classroom['assignment_id']}/slots/0/variants", headers=student_headers
    ).get_json()
    assert other["variant"] == 1 and other["practice"] and other["attempts_allowed"] is None
    assert other["seed"] != exercise["seed"]


def test_new_variant_refused_where_practice_is_not_allowed(
    client, factory, student_headers, classroom
):
    challenge = factory.assignment(classroom["course_id"], "challenge")
    response = client.post(
        f"/api/assignments/{challenge}/slots/2/variants", headers=student_headers
    )
    assert response.status_code == 403
    assert "no practice variants" in response.get_json()["error"]


def test_someone_elses_exercise_and_attempt_are_404(client, factory, student_headers, classroom):
    factory.user("other@example.com")
    factory.member(classroom["course_id"], "other@example.com")
    other = bearer(factory.token("other@example.com"))
    mine = client.post(
        "/api/exercises", headers=student_headers, json={"kind": "values"}
    ).get_json()
    attempt = client.post(
        mine["urls"]["attempts"], headers=student_headers, json={"answer": {"values": {}}}
    ).get_json()
    assert client.get(mine["urls"]["self"], headers=other).status_code == 404
    assert (
        client.post(
            mine["urls"]["attempts"], headers=other, json={"answer": {"values": {}}}
        ).status_code
        == 404
    )
    assert client.get(f"/api/attempts/{attempt['attempt_id']}", headers=other).status_code == 404
    assert client.get("/api/attempts", headers=other).get_json() == {"attempts": []}
    assert client.get("/api/exercises/999999", headers=student_headers).status_code == 404


def test_instructors_see_their_courses_only(client, factory, student_headers, classroom):
    url = f"/api/assignments/{classroom['assignment_id']}/slots/0/exercise"
    exercise = client.get(url, headers=student_headers).get_json()
    client.post(
        exercise["urls"]["attempts"],
        headers=student_headers,
        json={"answer": {"pruned": [], "value": 0}},
    )
    teacher = bearer(factory.token("teacher@example.com"))
    seen = client.get("/api/attempts", headers=teacher).get_json()["attempts"]
    assert [a["user"] for a in seen] == ["student@example.com"]
    assert client.get(exercise["urls"]["self"], headers=teacher).status_code == 200
    # The instructor may look but not answer for the student.
    assert (
        client.post(
            exercise["urls"]["attempts"],
            headers=teacher,
            json={"answer": {"pruned": [], "value": 0}},
        ).status_code
        == 403
    )

    factory.user("stranger@example.com", "instructor")
    factory.course("Elsewhere", "stranger@example.com")
    stranger = bearer(factory.token("stranger@example.com"))
    assert client.get("/api/attempts", headers=stranger).get_json() == {"attempts": []}
    assert client.get(exercise["urls"]["self"], headers=stranger).status_code == 404
    assert client.get(url, headers=stranger).status_code == 404
    assert client.get("/api/assignments", headers=stranger).get_json() == {"assignments": []}


def test_authentication(client, factory, classroom):
    assert client.get("/api/attempts").status_code == 401
    assert client.get("/api/attempts", headers=bearer("abg_wrong")).status_code == 401
    assert (
        client.get("/api/attempts", headers={"Authorization": "Basic dXNlcjpwYXNz"}).status_code
        == 401
    )
    old = factory.token("student@example.com")
    new = factory.token("student@example.com")
    assert client.get("/api/me", headers=bearer(old)).status_code == 200  # until revoked
    with factory.app.app_context():
        user_id = accounts.user_by_email("student@example.com").id
        accounts.revoke_token(user_id, accounts.list_tokens(user_id)[-1].id)  # the older one
    assert client.get("/api/me", headers=bearer(old)).status_code == 401
    me = client.get("/api/me", headers=bearer(new)).get_json()
    assert me["email"] == "student@example.com" and me["courses"][0]["name"] == "Search 101"


def test_session_requests_need_the_csrf_header(client, auth, app, classroom):
    auth.login()
    assert client.get("/api/me").status_code == 200
    refused = client.post("/api/exercises", json={"kind": "prune"})
    assert refused.status_code == 400 and "CSRF" in refused.get_json()["error"]
    accepted = client.post(
        "/api/exercises", json={"kind": "prune"}, headers={"X-CSRFToken": auth.csrf()}
    )
    assert accepted.status_code == 201
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Exercise.id))) == 1


def test_large_bodies_are_refused(client, student_headers):
    response = client.post(
        "/api/exercises", headers=student_headers, json={"kind": "prune", "leaves": "1," * 40_000}
    )
    assert response.status_code == 413 and "error" in response.get_json()


def test_assignments(client, student_headers, classroom):
    listed = client.get("/api/assignments", headers=student_headers).get_json()["assignments"]
    assert [a["id"] for a in listed] == [classroom["assignment_id"]]
    assert [s["kind"] for s in listed[0]["slots"]] == ["prune", "values", "leaf-order"]
    one = client.get(
        f"/api/assignments/{classroom['assignment_id']}", headers=student_headers
    ).get_json()
    assert one == listed[0]


def test_openapi_document_lists_every_api_route(app, client):
    from openapi_spec_validator import validate

    spec = client.get("/api/openapi.json").get_json()
    assert spec["openapi"].startswith("3.1")
    validate(spec)  # raises on an invalid OpenAPI 3.1 document
    documented = {(path, method.upper()) for path, ops in spec["paths"].items() for method in ops}
    routes = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
            routes |= {(path, m) for m in rule.methods - {"HEAD", "OPTIONS"}}
    assert documented == routes
    schemas = spec["components"]["schemas"]
    refs = re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', str(spec).replace("'", '"'))
    assert refs and all(name in schemas for name in refs)
    create = spec["paths"]["/api/exercises"]["post"]
    body = create["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert "kind" in schemas[body]["required"]
    assert "201" in create["responses"] and "400" in create["responses"]


def test_the_documents_schemas_are_written_when_asked_whole_for_every_thread():
    """The API's spectree writes its models' JSON schemas when the document is first read,
    not at import: the same schemas spectree itself writes, and a thread that asks while
    another writes waits for all of them."""
    import threading

    from pydantic import BaseModel
    from spectree import SpecTree

    from grader.web.api import _SchemasWhenAsked, schemas

    models = [
        value
        for value in vars(schemas).values()
        if isinstance(value, type)
        and issubclass(value, BaseModel)
        and value.__module__ == schemas.__name__
    ]
    naming = {"naming_strategy": lambda m: m.__name__, "nested_naming_strategy": lambda _p, c: c}
    lazy, eager = _SchemasWhenAsked(**naming), SpecTree("flask", **naming)
    for model in models:
        for mode in ("validation", "serialization"):
            assert lazy._add_model(model, mode) == eager._add_model(model, mode)
    assert len(models) > 30 and lazy._pending and eager.models

    start = threading.Barrier(4)
    seen: list[dict] = []

    def read() -> None:
        start.wait()
        seen.append(dict(lazy.models))

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 4 and all(models == eager.models for models in seen)
    assert list(lazy.models) == list(eager.models)


def test_every_operation_documents_its_success_and_its_errors(client):
    spec = client.get("/api/openapi.json").get_json()
    operations = {op["operationId"]: op for ops in spec["paths"].values() for op in ops.values()}
    assert len(operations) == 33
    for name, op in operations.items():
        success = [code for code in op["responses"] if code.startswith("2")]
        assert len(success) == 1 and op["responses"][success[0]]["content"], name
        errors = set(op["responses"]) - set(success)
        if op.get("security") == []:  # the no-op and this document
            assert errors == {"400", "414"}, name
        else:
            assert {"400", "401", "403", "404", "503"} <= errors, name
            assert ("413" in errors) == ("requestBody" in op), name
    assert {"409", "429"} <= set(operations["submit_attempt"]["responses"])
    assert "409" not in operations["get_exercise"]["responses"]
    assert "text/csv" in operations["api_gradebook_csv"]["responses"]["200"]["content"]
    # The audit log's old address stays, marked deprecated (docs/api.md).
    assert operations["api_regrades"]["deprecated"] is True
    assert "deprecated" not in operations["api_audit_log"]
    upload = operations["upload_engine"]["requestBody"]["content"]["multipart/form-data"]
    form = spec["components"]["schemas"][upload["schema"]["$ref"].rsplit("/", 1)[1]]
    assert form["properties"]["file"] == {
        **form["properties"]["file"],
        "type": "string",
        "format": "binary",
    }
    assert set(form["required"]) == {"assignment_id", "slot_index", "file"}
    assert form["additionalProperties"] is False


def test_a_request_that_breaks_its_model_is_our_400_with_details(client, student_headers):
    exercise = client.post(
        "/api/exercises", headers=student_headers, json={"kind": "prune"}
    ).get_json()
    response = client.post(
        exercise["urls"]["attempts"],
        headers=student_headers,
        json={"answer": {"values": {}}, "extra": 1},
    )
    assert response.status_code == 400
    body = response.get_json()
    assert set(body) == {"error", "details"} and body["error"].startswith("body: extra: ")
    assert body["details"] == [{"loc": ["extra"], "msg": "Extra inputs are not permitted"}]
    response = client.get("/api/attempts?limit=0", headers=student_headers)
    assert response.status_code == 400 and response.get_json()["error"].startswith("query: limit")
    response = client.get("/api/attempts?limit=1&limit=2", headers=student_headers)
    assert response.status_code == 400 and "more than once" in response.get_json()["error"]
    response = client.post(
        "/api/exercises",
        headers=student_headers,
        data="kind=prune",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 400 and "as JSON" in response.get_json()["error"]
    response = client.post("/api/engines", headers=student_headers, json={"assignment_id": 1})
    assert response.status_code == 400 and "multipart" in response.get_json()["error"]


def test_a_best_order_exercise_too_large_for_the_optimum_is_refused(client, app, student_headers):
    tree = [[[i, i + 1] for i in range(0, 420, 2)]]  # 420 leaves: beyond the optimum's 400
    response = client.post(
        "/api/exercises", headers=student_headers, json={"kind": "best-order", "tree": tree}
    )
    assert response.status_code == 422
    assert "at most 400 leaves" in response.get_json()["error"]
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Exercise.id))) == 0


def test_no_api_route_has_a_limit_the_limiters_filter_would_skip(app):
    """/api requests skip Flask-Limiter's per-request check: no /api view may have a limit."""
    from flask_limiter.util import get_qualified_name

    from grader.ratelimits import limiter

    marked = limiter._marked_for_limiting  # the views a limit decorates, by qualified name
    # The set the check reads is the right one: it holds the sign-in page.
    assert get_qualified_name(app.view_functions["auth.login"]) in marked
    api = {get_qualified_name(f) for name, f in app.view_functions.items() if name[:4] == "api."}
    assert len(api) > 20 and not api & marked


@pytest.fixture
def route_wide_limits_undone():
    """Flask-Limiter keeps the limits a configuration sets for every route on the limiter itself
    (one per process, as one app per process is served): an app made with them leaves them to
    every app made after it in this test process, so they are taken off again after the test."""
    from grader.ratelimits import limiter

    manager = limiter.limit_manager
    assert not manager._default_limits and not manager._application_limits  # the service sets none
    yield
    manager.set_default_limits([])
    manager.set_application_limits([])


@pytest.mark.parametrize("setting", ["RATELIMIT_DEFAULT", "RATELIMIT_APPLICATION"])
@pytest.mark.usefixtures("route_wide_limits_undone")
def test_limits_a_deployment_sets_for_every_route_hold_on_api_too(
    setting, tmp_path, db_file, monkeypatch
):
    """The filter above skips /api only while no limit is set for every route: a deployer's
    default or application-wide limit still counts /api requests."""
    from grader import create_app

    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path / "instance"))
    limited = create_app(app_config(db_file, **{setting: "2 per minute"})).test_client()
    assert [limited.get("/api/engines/1").status_code for _ in range(3)] == [401, 401, 429]


def test_each_kinds_answer_is_stated_and_its_key_is_valid_by_the_document(client, student_headers):
    """The document states one answer shape per kind: together their fields are the core's
    answer keys, and every kind's key, on generated trees, is valid against the document (read
    with jsonschema, as a client would) and graded; another kind's key is valid by the document
    too, and a 422 naming the exercise's kind (no schema can know the stored exercise)."""
    from jsonschema import Draft202012Validator

    from grader.gametree.kinds import ANSWER_KEYS

    document = client.get("/api/openapi.json").get_json()
    schemas = document["components"]["schemas"]
    shapes = [
        schemas[ref["$ref"].rpartition("/")[2]]
        for ref in schemas["SubmitAttempt"]["properties"]["answer"]["oneOf"]
    ]
    stated = {field for shape in shapes for field in shape["properties"]}
    assert stated == {key for keys in ANSWER_KEYS.values() for key in keys}
    submit = Draft202012Validator({**document, "$ref": "#/components/schemas/SubmitAttempt"})
    keys = {}
    for kind in KINDS:
        params = {"depth": 3, "branching": "2-3", "values": "-9..9"}
        exercise = client.post(
            "/api/exercises", headers=student_headers, json={"kind": kind, "params": params}
        ).get_json()
        tree = Tree.from_nested(exercise["tree"], exercise["players"])
        keys[kind] = (
            exercise,
            KINDS[kind].key(tree, Conventions.from_dict(exercise["conventions"])),
        )
    for kind, (exercise, key) in keys.items():
        assert submit.is_valid({"answer": key}), (kind, key)
        response = client.post(
            exercise["urls"]["attempts"], headers=student_headers, json={"answer": key}
        )
        assert response.status_code == 201 and response.get_json()["score"] == 1.0, kind
        other = keys["leaf-order" if kind != "leaf-order" else "prune"][1]
        assert submit.is_valid({"answer": other})
        response = client.post(
            exercise["urls"]["attempts"], headers=student_headers, json={"answer": other}
        )
        assert response.status_code == 422 and response.get_json()["kind"] == kind
    for refused in ({"pruned": [""], "value": 1}, {"values": {"x": 1}}, {"order": {"": [0, 0]}}):
        assert not submit.is_valid({"answer": refused})
        response = client.post(
            keys["prune"][0]["urls"]["attempts"], headers=student_headers, json={"answer": refused}
        )
        assert response.status_code == 400, refused


def _as_printed(value: object) -> object:
    """A key's value as the exercise page prints it: the minus sign U+2212, ∞ for infinity, a
    fraction with spaces around its slash."""
    if value in ("inf", "-inf"):
        return {"inf": "∞", "-inf": "\u2212∞"}[str(value)]
    if isinstance(value, str):
        return " " + value.replace("/", " / ").replace("-", "\u2212") + " "
    return f"\u2212{-value}" if value < 0 else str(value)


@pytest.mark.parametrize(
    ("kind", "tree"),
    [
        ("values", [[-3, -12, -8], [-2, -4, -6]]),
        ("bounds", [[-3, -12, -8], [-2, -4, -6]]),
        ("values", [{"chance": ["1/3", "2/3"], "children": [4, 5]}, 3]),
    ],
)
def test_numbers_written_as_the_page_prints_them_are_graded_like_numbers(
    client, student_headers, kind, tree
):
    exercise = client.post(
        "/api/exercises", headers=student_headers, json={"kind": kind, "tree": tree}
    ).get_json()
    key = key_for(exercise)
    printed = {
        part: {
            path: [_as_printed(v) for v in value] if isinstance(value, list) else _as_printed(value)
            for path, value in entries.items()
        }
        for part, entries in key.items()
    }
    assert printed != key
    response = client.post(
        exercise["urls"]["attempts"], headers=student_headers, json={"answer": printed}
    )
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["score"] == 1.0


def test_the_document_states_the_answer_grammar_itself(client):
    """A score's text pattern is the core's one declaration (gametree.numbers.NUMBER_TEXT): a
    client reading the document accepts and refuses what the grader does."""
    from jsonschema import Draft202012Validator

    from grader.gametree.numbers import NUMBER_TEXT

    document = client.get("/api/openapi.json").get_json()
    values = Draft202012Validator({**document, "$ref": "#/components/schemas/ValuesAnswer"})
    stated = document["components"]["schemas"]["PruneAnswer"]["properties"]["value"]["oneOf"]
    assert {"type": "string", "pattern": NUMBER_TEXT} in stated
    for text in ("\u22125", " 14 / 3 ", "\u2212∞", "inf", "3"):
        assert values.is_valid({"values": {"": text}}), text
    for text in ("abc", "1e3", "1/0", "- 5", "3 4"):
        assert not values.is_valid({"values": {"": text}}), text
