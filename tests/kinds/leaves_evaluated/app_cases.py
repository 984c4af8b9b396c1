"""What a plugin kind is offered by, run by `test_leaves_evaluated.py` in a pytest of its own with
the kind loaded first (`GRADER_KIND_MODULES`), as a deployment loads its plugins before the app:
the API's document and a real answer, the pages, the forms. Not collected otherwise (its name is
not a test module's)."""

from __future__ import annotations

from openapi_spec_validator import validate

from grader.gametree import Conventions, Tree, solve
from tests.app_support import bearer
from tests.kinds.leaves_evaluated.kind import NAME

LEAVES = "3,12,8,2,4,6,14,5,2"  # AIMA's tree: 7 leaves evaluated (the 2nd MIN cut after one)


def _exercise(client, factory) -> tuple[dict, dict]:
    factory.classroom()
    student = bearer(factory.token("student@example.com"))
    body = {"kind": NAME, "leaves": LEAVES, "branching": 3, "depth": 2}
    response = client.post("/api/exercises", headers=student, json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json(), student


def test_the_openapi_document_states_its_answer_and_name(client):
    spec = client.get("/api/openapi.json").get_json()
    validate(spec)
    schemas = spec["components"]["schemas"]
    answer = schemas["LeavesEvaluatedAnswer"]
    assert answer["properties"]["leaf_count"]["minimum"] == 0
    assert answer["required"] == ["leaf_count"] and answer["additionalProperties"] is False
    submit = next(s for name, s in schemas.items() if name.startswith("SubmitAttempt"))
    shapes = [ref["$ref"].rsplit("/", 1)[1] for ref in submit["properties"]["answer"]["oneOf"]]
    assert "LeavesEvaluatedAnswer" in shapes and "PruneAnswer" in shapes
    kinds = schemas[next(n for n in schemas if n.startswith("CreateExercise"))]["properties"]
    assert NAME in kinds["kind"]["enum"]


def test_an_answer_is_posted_and_graded(client, factory):
    exercise, student = _exercise(client, factory)
    tree = Tree.from_dict({"tree": exercise["tree"], "players": exercise["players"]})
    evaluated = len(solve(tree, Conventions.from_dict(exercise["conventions"])).leaf_order)
    assert evaluated == 7
    url = exercise["urls"]["attempts"]
    right = client.post(url, headers=student, json={"answer": {"leaf_count": 7}})
    assert right.status_code == 201, right.get_json()
    assert right.get_json()["score"] == 1.0
    wrong = client.post(url, headers=student, json={"answer": {"leaf_count": 9}}).get_json()
    assert wrong["score"] == 0.0 and wrong["feedback"] == ["Alpha-beta evaluates 7 leaves."]
    refused = client.post(url, headers=student, json={"answer": {"leaf_count": -1}})
    assert refused.status_code == 400  # the API refuses a body outside its document


def test_its_exercise_page_names_its_module_and_the_forms_offer_it(client, factory, auth):
    exercise, _ = _exercise(client, factory)
    auth.login()
    page = client.get(f"/exercises/{exercise['id']}").get_data(as_text=True)
    assert 'data-kind-module="/kinds/leaves-evaluated/leaves-evaluated.js"' in page
    assert 'data-kind-styles="/kinds/leaves-evaluated/leaves-evaluated.css"' in page
    assert "Leaves evaluated" in page  # its title, as pages call it
    practice = client.get("/practice").get_data(as_text=True)
    assert '<option value="leaves-evaluated">Leaves evaluated</option>' in practice
