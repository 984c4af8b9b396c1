"""The opponents by name (grader/checkers/ladder.py), each against what the assignment says it is
(exercises/checkers/ASSIGNMENT.md, 'Opponents'), computed here independently where it can be.

mutmut on ladder.py: every mutant is killed by these tests and tests/checkers/test_engine.py.
"""

from __future__ import annotations

import random

import pytest

from grader.checkers.board import Board
from grader.checkers.engine import WIN, ReferenceEngine
from grader.checkers.ladder import (
    LADDER,
    GreedyPlayer,
    RandomPlayer,
    ReferencePlayer,
    player_from_name,
)
from tests.checkers.test_engine import material, positions

FENS = [fen for fen in positions() if Board(fen).legal_moves]


def test_every_ladder_name_gives_a_player_called_by_it():
    assert LADDER == ("random", "greedy", "ref:2", "ref:4", "ref:6", "ref:8", "ref:best")
    for name in LADDER:
        assert player_from_name(name).name == name
        assert player_from_name(f"  {name.upper()} ").name == name  # read as typed, any case


def test_ref_n_searches_n_plies_with_no_time_limit_and_ref_best_one_second_a_move():
    for n in (1, 2, 8, 12):
        player = player_from_name(f"ref:{n}")
        assert isinstance(player, ReferencePlayer)
        assert (player.depth, player.time_limit) == (n, None)
    best = player_from_name("ref:best")
    assert isinstance(best, ReferencePlayer) and best.time_limit == 1.0  # ASSIGNMENT.md
    assert best.depth > 8  # deepening goes on until its time is up
    assert ReferencePlayer().name == "ref" and ReferencePlayer().time_limit is None


@pytest.mark.parametrize("name", ["ref:0", "ref:", "ref:-1", "ref:x", "ref", "minimax", ""])
def test_an_unknown_name_is_refused_by_name(name: str) -> None:
    with pytest.raises(ValueError, match=f"unknown engine {name!r}") as refused:
        player_from_name(name)
    assert str(refused.value).endswith(f"expected one of {', '.join(LADDER)} or ref:N")


def test_greedy_plays_the_first_move_with_the_best_material_after_it():
    for fen in FENS:
        board = Board(fen)
        after = []
        for move in board.generate_legal_moves():
            board.push(move)
            after.append(-material(board) if board.legal_moves else WIN - 1)  # won
            board.pop()
        expected = board.generate_legal_moves()[after.index(max(after))]
        assert GreedyPlayer().choose_move(board) == expected, fen
        assert player_from_name("greedy").choose_move(board) == expected
        assert board.fen() == fen


def test_random_draws_from_its_seeded_generator():
    for seed in (0, 1, 5):
        player, rng = player_from_name("random", seed=seed), random.Random(seed)
        for fen in FENS:
            board = Board(fen)
            assert player.choose_move(board) == rng.choice(board.generate_legal_moves())
    for default in (RandomPlayer(), player_from_name("random")):  # seed 0 unless given
        rng = random.Random(0)
        for fen in FENS:
            legal = Board(fen).generate_legal_moves()
            assert default.choose_move(Board(fen)) == rng.choice(legal)


def test_a_reference_player_plays_its_engine_s_move_at_its_depth():
    for fen in FENS[:6]:
        for depth in (1, 2, 3):
            expected = ReferenceEngine().search(Board(fen), depth).best_move
            assert player_from_name(f"ref:{depth}").choose_move(Board(fen)) == expected
