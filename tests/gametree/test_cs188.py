"""UC Berkeley CS188's own multiagent GraphGameTreeTest files (q2 minimax, q3 alpha-beta, q4
expectimax): the
import reads depth, internal evaluations and win/lose states, and gives CS188's action and its exact
set of expanded states (see data/cs188/ATTRIBUTION.md for where each file comes from).

Surviving mutants of grader/gametree/cs188.py judged equivalent (mutmut names of 2026-11-22):
- ``conventions_for`` 6 and 7: ``values="soft"`` or ``order="ltr"`` left out: both are the
  defaults of ``Conventions``.
- ``read_solution`` 2, 5 and 6 (``or`` to ``and``, ``rstrip``, ``"XX#XX"``): a comment or blank
  line no longer skipped is read as a field named ``#...`` or ``""``, never ``action`` or
  ``expanded``, so the answer is the same.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from grader.gametree import Conventions, Tree, TreeFormatError, solve
from grader.gametree.cs188 import answer, read_solution
from grader.gametree.tree import read_cs188

DATA = Path(__file__).parent / "data" / "cs188"
TESTS = sorted(DATA.glob("q*/*.test"))
SOLVED = [t for t in TESTS if t.with_suffix(".solution").exists()]
STATED = [t for t in TESTS if t.with_suffix(".stated").exists()]


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def test_the_release_files_are_all_here():
    assert len(TESTS) == 52 and len(SOLVED) == 14 and len(STATED) == 18
    assert len([t for t in TESTS if t.parent.name == "q4"]) == 16


@pytest.mark.parametrize("path", SOLVED, ids=_id)
def test_cs188_action_and_expanded_states_match_the_solution_file(path):
    expected = read_solution(path.with_suffix(".solution").read_text())
    got = answer(read_cs188(path.read_text()))
    assert (got.action, got.expanded) == expected


@pytest.mark.parametrize("path", STATED, ids=_id)
def test_depth_limited_files_give_the_action_and_horizon_their_comments_state(path):
    expected = read_solution(path.with_suffix(".stated").read_text())
    got = answer(read_cs188(path.read_text()))
    assert (got.action, got.expanded) == expected


@pytest.mark.parametrize("path", TESTS, ids=_id)
def test_every_file_imports_and_solves(path):
    problem = read_cs188(path.read_text())
    got = answer(problem)
    assert got.action == problem.actions[str(got.result.best_move)]
    assert "" in problem.states and set(got.expanded) <= set(problem.states.values())


def test_the_depth_limit_is_one_ply_per_agent_and_ignoring_it_changes_the_answer():
    text = (DATA / "q2" / "7-2a-check-depth-two-ghosts.test").read_text()
    problem = read_cs188(text)
    assert (problem.depth, problem.plies) == (1, 3)  # two ghosts: depth 1 is three levels
    limited = solve(problem.tree, Conventions(depth=problem.plies))
    whole = solve(problem.tree)
    assert (limited.best_move, limited.value) == (0, 10)  # d1's evaluation, at the horizon
    assert (whole.best_move, whole.value) == (2, 8)  # what the old import answered


def test_win_and_lose_states_are_scored_where_they_stand():
    text = (
        (DATA / "q3" / "0-tied-root.test")
        .read_text()
        .replace("min1 down A\n", "min1 down A\nA up deeper\n")
        .replace("C 0.0\n", "C 0.0\ndeeper -50.0\n")
    )
    problem = read_cs188(text)
    assert problem.tree.node("0").children[0].terminal  # A is a win state with a successor
    assert answer(problem).expanded == ("A", "B", "C", "max", "min1", "min2")


@pytest.mark.parametrize(
    ("old", "new", "quoted"),
    [
        ("C 0.0\n", "", "'C' is a win or lose state but has no evaluation"),
        ('depth: "3"', 'depth: "0"', "depth must be at least 1"),
        ('depth: "3"', 'depth: "x"', "depth must be a whole number"),
        ("max left min1\n", "max left min1\nmax left min2\n", "action 'left' twice"),
        ('num_agents: "2"\n', 'num_agents: "2"\nghosts: "1"\n', "unknown CS188 field 'ghosts'"),
        ('class: "GraphGameTreeTest"', 'class: "PacmanGameTreeTest"', "only GraphGameTreeTest"),
    ],
)
def test_what_cannot_be_represented_is_refused(old, new, quoted):
    text = (DATA / "q3" / "0-tied-root.test").read_text()
    assert old in text
    with pytest.raises(TreeFormatError, match=quoted):
        read_cs188(text.replace(old, new, 1))


def test_a_horizon_state_without_evaluation_is_refused():
    text = (DATA / "q2" / "7-1a-check-depth-one-ghost.test").read_text().replace("c1 10.0\n", "")
    with pytest.raises(TreeFormatError, match="'c1' lies at the depth limit"):
        read_cs188(text)


def test_export_with_a_depth_limit_round_trips_evaluations():
    problem = read_cs188((DATA / "q2" / "7-1b-check-depth-one-ghost.test").read_text())
    text = problem.tree.to_cs188("MinimaxAgent", plies=problem.plies)
    again = read_cs188(text)
    assert again.tree == problem.tree and again.plies == problem.plies
    assert answer(again).result.to_dict() == answer(problem).result.to_dict()


def test_nested_form_carries_evaluations_and_terminals():
    nested = [{"eval": 3, "children": [1, 5]}, {"eval": 2, "terminal": True, "children": [9]}]
    tree = Tree.from_nested(nested)
    assert Tree.from_nested(tree.to_nested()) == tree
    assert solve(tree, Conventions(depth=1)).value == 3  # both children scored by evaluation
    assert solve(tree).value == 2  # the terminal node stands; the other is searched: min(1,5)=1
    with pytest.raises(TreeFormatError, match="unknown key 'evl'"):
        Tree.from_nested([{"evl": 3, "children": [1]}])
    with pytest.raises(TreeFormatError, match="no evaluation"):
        solve(Tree.from_nested([[1, 2], [3]]), Conventions(depth=1))


def test_an_algorithm_that_is_not_a_game_tree_search_is_refused_by_name():
    text = (DATA / "q3" / "0-tied-root.test").read_text()
    problem = read_cs188(text.replace('alg: "AlphaBetaAgent"', 'alg: "GreedyAgent"'))
    with pytest.raises(TreeFormatError) as refused:
        answer(problem)
    assert str(refused.value) == (
        "CS188 algorithm 'GreedyAgent' is not a game-tree search this grader runs "
        "(MinimaxAgent, AlphaBetaAgent, ExpectimaxAgent, AgentPacmanExpectimax)"
    )


# -- q4: ExpectimaxAgent ------------------------------------------------------------------------

Q4 = DATA / "q4"


@pytest.mark.parametrize("name", ["0-expectimax1", "1-expectimax2"])
def test_q4_files_give_the_earlier_releases_solution(name):
    # The earlier release's solution files for trees the later release keeps (same states, same
    # values: 3, 12, 8 / 2, 4, 6 / 14, 5, 2 and 3, 12, 9 / 2, 4, 6 / 15, 6, 0).
    expected = read_solution((Q4 / f"{name}.earlier-release.solution").read_text())
    got = answer(read_cs188((Q4 / f"{name}.test").read_text()))
    assert (got.action, got.expanded) == expected


# Worked by hand: a MAX root over two states CS188 scores where they stand; the larger wins.
@pytest.mark.parametrize(
    ("name", "action", "value"),
    [
        ("0-eval-function-lose-states-1", "Left", 1),  # lose1 1 > lose2 0
        ("0-eval-function-lose-states-2", "Right", 1),  # lose1 0 < lose2 1
        ("0-eval-function-win-states-1", "Left", 1),
        ("0-eval-function-win-states-2", "Right", 1),
    ],
)
def test_q4_win_and_lose_states_are_scored_where_they_stand(name, action, value):
    got = answer(read_cs188((Q4 / f"{name}.test").read_text()))
    assert (got.action, got.result.value) == (action, value)


def test_q4_ghosts_are_uniform_chance_nodes_and_values_stay_exact():
    problem = read_cs188((Q4 / "0-expectimax1.test").read_text())
    assert problem.tree.players == ("max", "chance")
    got = answer(problem)
    # exp1 = (3 + 12 + 8) / 3 = 23/3, exp2 = 4, exp3 = 7: Left, worth 23/3 exactly.
    assert [got.result.nodes[p].value for p in ("0", "1", "2")] == [Fraction(23, 3), 4, 7]
    two = read_cs188((Q4 / "4-two-ghosts-3level.test").read_text())
    assert two.tree.players == ("max", "chance", "chance")


def test_q4_export_round_trips_and_writes_expectimax():
    problem = read_cs188((Q4 / "6-2b-check-depth-two-ghosts.test").read_text())
    text = problem.tree.to_cs188(plies=problem.plies)
    assert 'alg: "ExpectimaxAgent"' in text
    again = read_cs188(text)
    assert again.tree == problem.tree and again.plies == problem.plies
    assert answer(again).result.to_dict() == answer(problem).result.to_dict()


def test_the_renamed_expectimax_agent_is_read_as_expectimax():
    text = (Q4 / "0-expectimax1.test").read_text()
    renamed = read_cs188(text.replace('"ExpectimaxAgent"', '"AgentPacmanExpectimax"'))
    assert renamed.tree.players == ("max", "chance")
    assert answer(renamed).action == "Left"


def test_cs188_export_refuses_probabilities_its_ghosts_cannot_have():
    tree = Tree.from_nested([{"chance": ["1/4", "3/4"], "children": [1, 2]}], "max,chance")
    with pytest.raises(TreeFormatError, match="chance node B has its own probabilities"):
        tree.to_cs188()
    with pytest.raises(TreeFormatError, match="followed by chance nodes"):
        Tree.from_nested([[1, 2]], "max,min").to_cs188("ExpectimaxAgent")


def test_a_root_that_is_a_win_state_has_no_action():
    text = (DATA / "q3" / "0-tied-root.test").read_text()
    text = text.replace('win_states: "A B"', 'win_states: "A B max"').replace(
        "A 10.0\n", "A 10.0\nmax 7.0\n"
    )
    got = answer(read_cs188(text))
    assert (got.action, got.expanded, got.result.value) == (None, ("max",), 7)


def test_read_solution_splits_each_line_at_its_first_colon_and_unquotes_the_value():
    text = '# a comment: action: "up"\n\naction: "Xray:left"\n  expanded: "b a" \n'
    assert read_solution(text) == ("Xray:left", ("a", "b"))


@pytest.mark.parametrize("text", ['action: "left"\n', 'expanded: "A B"\n', "# action: x\n"])
def test_a_solution_file_without_action_or_expanded_is_refused(text):
    with pytest.raises(TreeFormatError) as refused:
        read_solution(text)
    assert str(refused.value) == "a CS188 solution file needs 'action' and 'expanded'"
