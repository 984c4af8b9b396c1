"""The graded fixed-depth search against an independent brute-force minimax, and the engines."""

import random

import pytest

from grader.checkers.board import BLACK, Board
from grader.checkers.engine import WIN, ReferenceEngine, alphabeta, minimax
from grader.checkers.ladder import LADDER, player_from_name
from grader.checkers.parallel import root_parallel


def material(board: Board) -> int:
    """The prescribed evaluation, recomputed square by square: men 100, kings 150."""
    worth = {"b": 100, "B": 150, "w": -100, "W": -150}
    score = sum(worth.get(board.piece_at(s), 0) for s in range(1, 33))
    return score if board.turn == BLACK else -score


def brute(board: Board, depth: int, ply: int = 0) -> tuple[int, int, int | None]:
    """(value, leaves, index of the first best root move) of plain negamax."""
    moves = list(board.legal_moves)
    if not moves:
        return -(WIN - ply), 1, None
    if depth == 0:
        return material(board), 1, None
    values, leaves = [], 0
    for move in moves:
        board.push(move)
        value, n, _ = brute(board, depth - 1, ply + 1)
        board.pop()
        values.append(-value)
        leaves += n
    return max(values), leaves, values.index(max(values))


def positions() -> list[str]:
    """The start, hand-made endgames, and positions from seeded random play."""
    fens = [
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
        "B:W6,7,14,15:B2",
        "W:WK3,18,19,26,27,30:B5,K10,12,13,K22",
        "W:W29:B22,25",
        "B:WK27:BK1,K3",
        "W:W14,K30:B6,K23",
    ]
    rng = random.Random(7)
    for _ in range(6):
        board = Board()
        for _ in range(rng.randrange(10, 40)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        fens.append(board.fen())
    return fens


@pytest.mark.parametrize("fen", positions())
def test_fixed_depth_alphabeta_agrees_with_brute_force_minimax(fen):
    board = Board(fen)
    for depth in range(5):
        value, leaves, best = brute(board, depth)
        result = alphabeta(board, depth)
        assert result.value == value, depth
        assert result.leaves <= leaves
        assert minimax(board, depth).leaves == leaves and minimax(board, depth).value == value
        moves = list(board.legal_moves)
        assert result.best_move == (moves[best] if best is not None and depth else None)
    assert board.fen() == fen


def test_a_forced_win_scores_win_minus_the_plies_to_it():
    # White to move is blocked: lost at ply 0. Black takes the last white piece at ply 1.
    assert alphabeta(Board("W:W29:B22,25"), 3).value == -WIN
    result = alphabeta(Board("B:W14:B9"), 2)
    assert result.value == WIN - 1 and result.best_move.pdn() == "9x18"


def test_alphabeta_prunes_at_the_start_position():
    assert alphabeta(Board(), 4).leaves < minimax(Board(), 4).leaves == 1469


@pytest.mark.parametrize("fen", positions()[:8])
def test_the_enhanced_engine_finds_the_fixed_depth_value(fen):
    board = Board(fen)
    for depth in (1, 3, 4):
        assert ReferenceEngine().search(board, depth).value == alphabeta(board, depth).value


def test_the_enhanced_engine_stops_at_its_time_limit_with_a_legal_move():
    result = ReferenceEngine().search(Board(), 60, time_limit=0.2)
    assert result.depth >= 1 and result.best_move in Board().legal_moves


@pytest.mark.parametrize("fen", [positions()[0], positions()[2], positions()[7]])
def test_serial_threaded_and_process_parallel_search_agree(fen):
    board = Board(fen)
    serial = alphabeta(board, 4)
    for mode in ("threads", "processes"):
        result = root_parallel(board, 4, mode, workers=2)
        assert (result.value, result.best_move) == (serial.value, serial.best_move), mode
        assert result.leaves >= serial.leaves


@pytest.mark.parametrize("name", [n for n in LADDER if n not in ("ref:8", "ref:best")])
def test_every_ladder_engine_returns_a_legal_move(name):
    for fen in positions()[:8]:
        board = Board(fen)
        if board.legal_moves:
            assert player_from_name(name).choose_move(board) in board.legal_moves


def test_the_strongest_ladder_engines_return_a_legal_move_from_the_start():
    for name in ("ref:8", "ref:best"):
        assert player_from_name(name).choose_move(Board()) in Board().legal_moves


def test_an_unknown_engine_name_is_refused_by_name():
    with pytest.raises(ValueError, match="ref:x"):
        player_from_name("ref:x")
