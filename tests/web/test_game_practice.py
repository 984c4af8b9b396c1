"""Practice from a game on the real database: the form, the stored exercise, the boards on the
exercise page, grading as any other tree."""

from __future__ import annotations

import json
import re

from grader.gametree import KINDS, Conventions, Tree
from grader.gametree.games import game_tree
from tests.app_support import csrf_from


def _make(client, **fields) -> object:
    token = csrf_from(client.get("/practice/game").get_data(as_text=True))
    data = {
        "kind": "minimax",
        "game": "tic-tac-toe",
        "start": "",
        "depth": 2,
        "branching": 3,
        "ties": "prune",
        "csrf_token": token,
        **fields,
    }
    return client.post("/practice/game", data=data)


def _boards(html: str) -> dict:
    match = re.search(
        r'<script type="application/json" id="game-boards">(.*?)</script>', html, re.S
    )
    assert match, "no boards on the page"
    return json.loads(match.group(1))


def test_a_tic_tac_toe_exercise_with_its_boards_graded_like_any_tree(client, auth, factory):
    factory.user("student@example.com")
    auth.login()
    response = _make(client, start="XO..O.X..", depth=1, branching=5)
    assert response.status_code == 302, response.get_data(as_text=True)
    exercise_id = int(response.headers["Location"].rsplit("/", 1)[1])
    html = client.get(f"/exercises/{exercise_id}").get_data(as_text=True)
    boards = _boards(html)
    expected = game_tree("tic-tac-toe", "XO..O.X..", depth=1, branching=5)
    assert boards["positions"] == json.loads(json.dumps(expected.positions))
    assert boards["positions"]["1"] == {
        "board": ["XO.", "XO.", "X.."],
        "move": "X on 4",
        "position": "XO.XO.X..",
    }
    assert "hover over or focus a node" in html
    headers = {"Authorization": f"Bearer {factory.token('student@example.com')}"}
    data = client.get(f"/api/exercises/{exercise_id}", headers=headers).get_json()
    assert data["tree"] == expected.tree.to_nested()
    tree = Tree.from_dict({"tree": data["tree"], "players": data["players"]})
    key = KINDS["minimax"].key(tree, Conventions.from_dict(data["conventions"]))
    graded = client.post(
        f"/api/exercises/{exercise_id}/attempts", headers=headers, json={"answer": key}
    ).get_json()
    assert graded["score"] == 1.0 and graded["solution"]["key"]["values"][""] == 1


def test_a_random_start_is_seeded_and_kept(app, client, auth, factory):
    factory.user("student@example.com")
    auth.login()
    response = _make(client, game="connect-4", start="random", kind="prune")
    assert response.status_code == 302
    exercise_id = int(response.headers["Location"].rsplit("/", 1)[1])
    from grader.extensions import db
    from grader.models import Exercise

    with app.app_context():
        params = db.session.get(Exercise, exercise_id).params
    assert params["game"] == "connect-4" and params["start_seed"] and params["start"]
    rebuilt = game_tree("connect-4", params["start"], depth=2, branching=3)
    html = client.get(f"/exercises/{exercise_id}").get_data(as_text=True)
    assert _boards(html)["start"] == rebuilt.start


def test_bad_positions_and_sizes_are_a_400_with_the_reason(client, auth, factory):
    factory.user("student@example.com")
    auth.login()
    response = _make(client, start="XXXX.....")
    assert response.status_code == 400 and "X moves first" in response.get_data(as_text=True)
    response = _make(client, game="checkers", start="W:Wjunk")
    assert response.status_code == 400 and "not a checkers FEN" in response.get_data(as_text=True)
    response = _make(client, game="connect-4", depth=8, branching=9)
    assert response.status_code == 400


def test_other_exercises_have_no_boards(client, auth, factory):
    factory.user("student@example.com")
    auth.login()
    headers = {"Authorization": f"Bearer {factory.token('student@example.com')}"}
    made = client.post(
        "/api/exercises", headers=headers, json={"kind": "prune", "tree": [[3, 5], [2, 9]]}
    ).get_json()
    assert 'id="game-boards"' not in client.get(f"/exercises/{made['id']}").get_data(as_text=True)


def test_the_slot_editor_makes_a_fixed_tree_from_a_game_with_boards(client, auth, factory):
    room = factory.classroom()
    auth.login("teacher@example.com")
    page = f"/instructor/assignments/{room['assignment_id']}/slots/new"
    token = csrf_from(client.get(page).get_data(as_text=True))
    assert "Fixed: from a game" in client.get(page).get_data(as_text=True)
    response = client.post(
        page,
        data={
            "csrf_token": token,
            "title": "Noughts",
            "kind": "minimax",
            "source": "game",
            "game": "tic-tac-toe",
            "game_start": "XO..O.X..",
            "game_depth": "1",
            "game_branching": "5",
            "ties": "prune",
            "values_rule": "soft",
            "order": "ltr",
            "attempts_allowed": "2",
            "action": "save",
            "players": "max,min",
        },
        follow_redirects=True,
    )
    assert response.status_code == 200 and "Noughts" in response.get_data(as_text=True)
    slots = client.get(f"/api/assignments/{room['assignment_id']}").get_json()["slots"]
    index = next(s["index"] for s in slots if s["title"] == "Noughts")
    editor = client.get(f"/instructor/assignments/{room['assignment_id']}/slots/{index}")
    html = editor.get_data(as_text=True)
    assert '<input checked id="source-5" name="source" type="radio" value="game">' in html
    assert 'value="XO..O.X.."' in html
    auth.logout()
    auth.login()
    html = client.get(f"/assignments/{room['assignment_id']}/slots/{index}").get_data(as_text=True)
    boards = _boards(html)
    assert boards["start"] == "XO..O.X.."
    assert boards["positions"]["1"]["move"] == "X on 4"
