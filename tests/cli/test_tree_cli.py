"""The `grader tree` command: through click's runner, and once as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.cli import main

AIMA = "[[3,12,8],[2,4,6],[14,5,2]]"  # AIMA figure 5.5: root 3, the 4 and the 6 pruned


def run(*args: str, stdin: str | None = None):
    result = CliRunner().invoke(main, ["tree", *args], input=stdin)
    return result


def test_solve_json_has_the_documented_fields():
    result = run("solve", "--tree", AIMA, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["value"] == 3
    assert data["best_move"] == 0
    assert data["pruned"] == ["1.1", "1.2"]
    assert data["leaf_order"] == ["0.0", "0.1", "0.2", "1.0", "2.0", "2.1", "2.2"]
    assert data["nodes"][""] | {"label": "A", "player": "max"} == data["nodes"][""]
    assert data["nodes"]["1"]["value"] == 2 and data["nodes"]["1"]["beta"] == 2
    assert [c["path"] for c in data["cutoffs"]] == ["1"]


def test_solve_text_names_the_cutoff_with_labels():
    result = run("solve", "--leaves", "3,12,8,2,4,6,14,5,2", "--branching", "3", "--depth", "2")
    assert result.exit_code == 0, result.output
    assert "value: 3" in result.output
    assert "At C, alpha = 3 >= beta = 2" in result.output
    assert "pruned: I J" in result.output


def test_explore_prunes_less_on_a_tie():
    # Tie at C: C's first leaf equals alpha = 3. prune stops there; explore goes on.
    tree = "[[3,4],[3,9]]"
    pruned = json.loads(run("solve", "--tree", tree, "--json").output)["pruned"]
    explored = json.loads(run("solve", "--tree", tree, "--ties", "explore", "--json").output)[
        "pruned"
    ]
    assert pruned == ["1.1"]
    assert explored == []


def test_batch_answers_each_line_and_reports_errors_per_line():
    lines = '{"tree": [[1,2],[3,4]]}\n{"tree": []}\nnot json\n{"tree": [[5]], "players": "min"}\n'
    result = run("solve", "--batch", stdin=lines)
    assert result.exit_code == 0, result.output
    out = [json.loads(line) for line in result.output.splitlines()]
    assert [o.get("value") for o in out] == [3, None, None, 5]
    assert "at least one child" in out[1]["error"]
    assert "error" in out[2]


def test_grade_prune_answer_with_partial_credit():
    answer = json.dumps({"pruned": ["1.1"], "value": 3})
    result = run("grade", "--tree", AIMA, "--kind", "prune", "--answer", answer, "--json")
    assert result.exit_code == 0, result.output
    grade = json.loads(result.output)
    # Key {1.1, 1.2}, answer {1.1}: one pruned subtree missed, one error: 0.8.
    assert grade["score"] == pytest.approx(0.8)
    assert grade["parts"] == {"pruned": 0.5, "value": 1.0}
    assert grade["first_wrong"]["label"] == "C"
    assert grade["scoring"] == {"errors": {"missing-mark": ["1.2"]}}  # J, C's third leaf
    said = run("grade", "--tree", AIMA, "--kind", "prune", "--answer", answer)
    assert "how: 1 error: 1 missing mark at J (pruned, not marked). Score 0.80" in said.output


def test_grade_refuses_an_ungradable_answer():
    result = run("grade", "--tree", AIMA, "--kind", "prune", "--answer", '{"pruned": ["7"]}')
    assert result.exit_code == 1
    assert "cannot grade this answer" in result.output


def test_grade_reads_numbers_by_the_answer_grammar():
    # The numbers as the page prints them: a chance node's 14/3 with spaces, C's -5 with the
    # minus sign U+2212; a word is refused in the grammar's words, naming the node's path.
    tree = '[{"chance": ["1/3", "2/3"], "children": [4, 5]}, [-5, 2]]'
    answer = json.dumps({"values": {"": " 14 / 3 ", "0": "14/3", "1": "\u22125"}})
    result = run("grade", "--tree", tree, "--kind", "values", "--answer", answer, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["score"] == 1.0
    refused = run(
        "grade", "--tree", tree, "--kind", "values", "--answer", '{"values": {"1": "abc"}}'
    )
    assert refused.exit_code == 1
    assert (
        "the value at '1' must be a number, a fraction such as 14/3 (or inf, -inf), got 'abc'"
        in refused.output
    )


def test_solve_reads_bounds_by_the_answer_grammar():
    tree = "[[3,12,9],[2,7,7]]"
    said = run("solve", "--tree", tree, "--players", "max,chance", "--bounds", " 0 ..12")
    assert said.exit_code == 0 and "pruned: I" in said.output, said.output
    refused = run("solve", "--tree", tree, "--players", "max,chance", "--bounds", "0..1e3")
    assert refused.exit_code != 0
    assert "each bound of L..U must be a number, a fraction such as 14/3" in refused.output


def test_best_order_reaches_the_knuth_moore_count():
    result = run("best-order", "--tree", AIMA, "--json")
    data = json.loads(result.output)
    assert data["leaves"] == 3**1 + 3**1 - 1  # b^ceil(d/2) + b^floor(d/2) - 1 with b = 3, d = 2
    again = json.loads(run("solve", "--tree", json.dumps(data["tree"]), "--json").output)
    assert len(again["leaf_order"]) == data["leaves"]


def test_generate_is_reproducible_and_meets_constraints():
    args = ["generate", "--seed", "42", "--depth", "4", "--min-deep-cutoffs", "1", "--json"]
    first, second = (json.loads(run(*args).output) for _ in range(2))
    assert first == second
    solved = json.loads(run("solve", "--tree", json.dumps(first["tree"]), "--json").output)
    assert any(c["deep"] for c in solved["cutoffs"])


def test_generate_reports_impossible_constraints():
    result = run(
        "generate", "--seed", "1", "--depth", "1", "--min-cutoffs", "5", "--max-tries", "50"
    )
    assert result.exit_code == 1
    assert "no tree met the constraints in 50 tries" in result.output


def test_show_draws_players_and_pruned_nodes():
    result = run("show", "--tree", "[[[2,3],[5,9]],[[0,1],[7,5]]]", "--solve")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("A MAX = 3")
    assert any(line.strip("│├└─ ").startswith("G MAX") and "pruned" in line for line in lines)


def test_cs188_file(tmp_path: Path):
    test_file = tmp_path / "lecture.test"
    test_file.write_text(
        'class: "GraphGameTreeTest"\nalg: "AlphaBetaAgent"\ndepth: "2"\n\nnum_agents: "2"\n\n'
        'start_state: "max"\nwin_states: "A B C D"\nlose_states: ""\n\n'
        'successors: """\nmax Left m1\nmax Right m2\nm1 Left A\nm1 Right B\nm2 Left C\nm2 Right D\n"""\n\n'
        'evaluation: """\nA 3.0\nB 5.0\nC 2.0\nD 9.0\n"""\n'
    )
    data = json.loads(run("solve", "--cs188", str(test_file), "--ties", "explore", "--json").output)
    assert data["value"] == 3 and data["pruned"] == ["1.1"]


def test_the_console_script_runs_as_a_subprocess():
    script = Path(sys.executable).with_name("grader")
    out = subprocess.run(
        [str(script), "tree", "solve", "--tree", AIMA, "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(out.stdout)["value"] == 3


def test_solve_a_cs188_file_prints_its_action_and_expanded_states():
    path = (
        Path(__file__).parents[1]
        / "gametree"
        / "data"
        / "cs188"
        / "q3"
        / "7-2a-check-depth-two-ghosts.test"
    )
    result = run("solve", "--cs188", str(path))
    assert result.exit_code == 0, result.output
    assert "CS188 AlphaBetaAgent, depth 1 (3 plies), strict ties" in result.output
    assert "action: Left" in result.output
    assert "expanded: a b1 b2 b3 c1 c2 c3 d1 d2 d3" in result.output
    data = json.loads(run("solve", "--cs188", str(path), "--json").output)
    assert data["cs188"] == {
        "alg": "AlphaBetaAgent",
        "action": "Left",
        "expanded": ["a", "b1", "b2", "b3", "c1", "c2", "c3", "d1", "d2", "d3"],
    }


def test_solve_with_a_depth_limit_uses_the_evaluations():
    tree = '[{"eval":3,"children":[1,5]},{"eval":2,"children":[9,4]}]'
    limited = json.loads(run("solve", "--tree", tree, "--depth-limit", "1", "--json").output)
    assert limited["value"] == 3 and limited["leaf_order"] == ["0", "1"]
    whole = json.loads(run("solve", "--tree", tree, "--json").output)
    assert whole["value"] == 4  # min(1, 5) = 1, min(9, 4) = 4
    refused = run("solve", "--tree", "[[1,2],[3,4]]", "--depth-limit", "1")
    assert refused.exit_code != 0 and "B lies at the depth limit (1)" in refused.output


CS188_Q4 = Path(__file__).parents[1] / "gametree" / "data" / "cs188" / "q4"
# Each q4 file's action: from CS188's solution file (2- to 5-, and the earlier release's for 0-
# and 1-), from the file's own comment (6-*: "so Left should be returned", ...), or worked by hand
# (0-eval-function-*: the larger of the two states' evaluations).
Q4_ACTIONS = {
    "0-eval-function-lose-states-1": "Left",
    "0-eval-function-lose-states-2": "Right",
    "0-eval-function-win-states-1": "Left",
    "0-eval-function-win-states-2": "Right",
    "0-expectimax1": "Left",
    "1-expectimax2": "Left",
    "2-one-ghost-3level": "L",
    "3-one-ghost-4level": "R",
    "4-two-ghosts-3level": "L",
    "5-two-ghosts-4level": "L",
    "6-1a-check-depth-one-ghost": "Left",
    "6-1b-check-depth-one-ghost": "Center",
    "6-1c-check-depth-one-ghost": "Right",
    "6-2a-check-depth-two-ghosts": "Left",
    "6-2b-check-depth-two-ghosts": "Center",
    "6-2c-check-depth-two-ghosts": "Right",
}


def test_every_q4_file_is_here():
    assert sorted(p.stem for p in CS188_Q4.glob("*.test")) == sorted(Q4_ACTIONS)


@pytest.mark.parametrize("name", sorted(Q4_ACTIONS))
def test_solve_a_cs188_q4_file_prints_its_action(name):
    result = run("solve", "--cs188", str(CS188_Q4 / f"{name}.test"))
    assert result.exit_code == 0, result.output
    assert "ghosts uniform chance nodes, nothing pruned" in result.output
    assert f"action: {Q4_ACTIONS[name]}\n" in result.output
    data = json.loads(run("solve", "--cs188", str(CS188_Q4 / f"{name}.test"), "--json").output)
    assert data["cs188"]["alg"] == "ExpectimaxAgent"
    assert data["cs188"]["action"] == Q4_ACTIONS[name]


def test_solve_q4_prints_the_states_it_expands_and_exact_values():
    result = run("solve", "--cs188", str(CS188_Q4 / "0-expectimax1.test"))
    assert "expanded: A B C D E F G H I exp1 exp2 exp3 max" in result.output  # its .solution
    assert "value: 7.67 (= 23/3)" in result.output  # (3 + 12 + 8) / 3
    assert "p=1/3 E 3" in result.output  # probabilities on the drawing's edges


def test_solve_with_bounds_cuts_at_chance_nodes_and_says_why():
    tree = "[[3,12,9],[2,7,7]]"
    result = run("solve", "--tree", tree, "--players", "max,chance", "--bounds", "0..12")
    assert result.exit_code == 0, result.output
    assert "pruned: I" in result.output  # C's third leaf
    assert "its value lies in [3, 7], and 7 <= alpha = 8" in result.output
    unbounded = run("solve", "--tree", tree, "--players", "max,chance")
    assert "pruned: nothing" in unbounded.output
    assert "note: No finite bounds [L, U]" in unbounded.output
    refused = run("solve", "--tree", tree, "--players", "max,chance", "--bounds", "0..10")
    assert refused.exit_code != 0 and "leaf E is 12, outside the bounds [0, 10]" in refused.output
    assert "bounds are written L..U" in run("solve", "--tree", tree, "--bounds", "0-10").output


def test_batch_solve_accepts_bounds_and_writes_fractions_exactly():
    line = '{"tree": [[3,4,7],[2,2,2]], "players": ["max","chance"], "bounds": [0, 10]}\n'
    out = json.loads(run("solve", "--batch", stdin=line).output)
    assert out["value"] == "14/3" and out["star1"] is True


def test_generate_chance_is_seeded():
    args = ("generate-chance", "--seed", "11", "--depth", "3", "--min-star1-cutoffs", "1", "--json")
    first, second = run(*args), run(*args)
    assert first.exit_code == 0, first.output
    assert json.loads(first.output)["tree"] == json.loads(second.output)["tree"]
    assert json.loads(first.output)["conventions"]["bounds"] == [0, 10]
    refused = run("generate-chance", "--seed", "1", "--players", "max,min")
    assert refused.exit_code == 1 and "needs 'chance' among its players" in refused.output
