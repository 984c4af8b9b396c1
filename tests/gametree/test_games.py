"""Trees from real games: exact tic-tac-toe values, Connect-4 and checkers cut at a depth with
the prescribed evaluation, the first N moves in canonical order, a position per node."""

from __future__ import annotations

import random

import pytest

from grader.checkers import Board, evaluate
from grader.gametree import minimax, solve
from grader.gametree.games import (
    C4_WIN,
    GAMES,
    GameError,
    game_tree,
    random_start,
)


def test_tic_tac_toe_to_the_end_gives_the_exact_value():
    # X to move can win at once on 3 (the top row); O threatens the middle column.
    found = game_tree("tic-tac-toe", "XX. .O. .O.", depth=5, branching=5)
    assert minimax(found.tree).value == 1
    # Every leaf is the game's end or the depth, valued exactly from X's side.
    assert set(found.tree.node(p).value for p in found.tree.leaves()) <= {-1, 0, 1}
    assert found.positions["0"]["move"] == "X on 3" and found.positions["0"]["board"][0] == "XXX"
    assert found.tree.node("0").is_leaf  # X won: the game is over there


def test_tic_tac_toe_horizon_values_are_exact_too():
    cut = game_tree("tic-tac-toe", "XO..O.X..", depth=1, branching=5)
    # X wins on 4 (the left column) or by blocking on 8 (a fork); elsewhere O wins on 8
    assert [cut.tree.node(str(i)).value for i in range(5)] == [-1, 1, -1, 1, -1]
    open_children = [
        i for i in range(5) if GAMES["tic-tac-toe"].moves(cut.positions[str(i)]["position"])
    ]
    assert open_children == [0, 2, 3, 4]  # X won on 4: that child is the game's end
    full = {
        i: game_tree("tic-tac-toe", cut.positions[str(i)]["position"], depth=4, branching=4)
        for i in open_children
    }
    # X to move at the root: each child (O to move) is worth, for X, minus O's value found by
    # searching that child's game to its end.
    for i, sub in full.items():
        assert all(sub.tree.node(p).value in (-1, 0, 1) for p in sub.tree.leaves())
        assert cut.tree.node(str(i)).value == -minimax(sub.tree).value


def test_connect_four_values_at_the_horizon_and_a_win():
    found = game_tree("connect-4", "445566", depth=1, branching=7)
    assert found.positions["2"]["move"] == "X in column 3"
    assert found.tree.node("6").value == C4_WIN  # 7: four in a row on the bottom
    assert found.tree.node("2").value == C4_WIN  # 3: also four in a row (3-4-5-6)
    c4 = GAMES["connect-4"]
    for i in range(7):
        # the child is O to move: the root player's value is minus O's
        assert found.tree.node(str(i)).value == -c4.value(found.positions[str(i)]["position"])
    with pytest.raises(GameError, match="column 1 is full"):
        game_tree("connect-4", "1111111")


def test_checkers_first_moves_in_canonical_order_and_the_material_evaluation():
    found = game_tree("checkers", None, depth=2, branching=3)
    board = Board()
    first = [m.pdn() for m in board.generate_legal_moves()][:3]
    assert [found.positions[str(i)]["move"] for i in range(3)] == first
    for path in found.tree.leaves():
        position = Board(found.positions[path]["position"])
        assert found.tree.node(path).value == evaluate(position)  # Black to move again: MAX
    assert solve(found.tree).value == minimax(found.tree).value


def test_random_starts_are_seeded_and_playable():
    for name in GAMES:
        a = random_start(name, random.Random(5))
        assert a == random_start(name, random.Random(5))
        assert GAMES[name].moves(GAMES[name].parse(a))
        game_tree(name, a, depth=2, branching=3)


@pytest.mark.parametrize(
    "args, message",
    [
        (("chess",), "unknown game"),
        (("tic-tac-toe", "XXX......"), "X moves first"),
        (("tic-tac-toe", "XXXOO...."), "game is over"),
        (("connect-4", None, 8, 9), "too many"),
        (("checkers", "not a fen"), "not a checkers FEN"),
    ],
)
def test_bad_requests_are_refused(args, message):
    with pytest.raises(GameError, match=message):
        game_tree(*args)
