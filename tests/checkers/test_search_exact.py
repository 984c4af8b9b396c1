"""The graded search's exact answers (value, best move, leaves) against an independent alpha-beta
written in the tests (tests/checkers/_independent.py), since students are graded on exact leaf
counts; a loss at the horizon; and the reference engine students play against (transposition
table, distance to win, iterative deepening) against the plain fixed-depth search.

Surviving mutants judged equivalent (mutmut on engine.py):
- ``_negamax`` under ``shallow``: ``-best if best > -INFINITY else INFINITY`` with ``or True`` or
  ``>=`` (at ``best = -INFINITY`` both give ``INFINITY``); the child's alpha ``-INFINITY`` changed
  to ``+INFINITY``: with fail-soft values (the only way the shallow-cutoffs variant is used,
  grader/checkers/variants.py) a node reads its alpha only to pass it down, which the shallow
  rule does not do.
The reference engine's (``ReferenceEngine``, ``_to_tt``, ``_from_tt``) are listed in
tests/checkers/test_reference_engine.py, with its time control tested on a clock of its own.
"""

from __future__ import annotations

import random
import time

import pytest

from grader.checkers.board import Board
from grader.checkers.engine import (
    CONTRACT,
    INFINITY,
    MAX_PLY,
    WIN,
    CheckersSearchRules,
    ReferenceEngine,
    _from_tt,
    _to_tt,
    alphabeta,
    minimax,
    search,
)
from tests.checkers import _independent as ind
from tests.checkers.test_engine import positions

# Positions rich in kings, crownings and forced captures, beside test_engine's set.
KINGS_AND_CROWNINGS = [
    "B:W25,26:B22",  # two crowning captures from one square
    "B:W19,26,27:BK22",  # a king's multi-jump past the far row
    "B:W13:BK32,9,1",  # Black can leave White without a move at the horizon
    "W:WK1,K2,18,22:B5,6,K23,K31",
    "B:WK14,K19,K27,31:B9,10,K21,26",
    "W:W9,10,K28:B5,K17,K18,24",
    "B:W17,18,25,26:B13,14,21,22,K30",
]


def seeded_positions(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        board = Board()
        for _ in range(rng.randrange(20, 70)):
            legal = list(board.legal_moves)
            if not legal:
                break
            board.push(rng.choice(legal))
        out.append(board.fen())
    return out


ALL = positions() + KINGS_AND_CROWNINGS + seeded_positions(17, 6)


def independent(fen: str, depth: int, alpha=-INFINITY, beta=INFINITY):
    cells, black = ind.parse_fen(Board(fen).fen())
    return ind.alphabeta(cells, black, depth, alpha, beta)


def graded(fen: str, depth: int, **window):
    result = alphabeta(Board(fen), depth, **window)
    return result.value, result.best_move.pdn() if result.best_move else None, result.leaves


@pytest.mark.parametrize("fen", ALL)
def test_value_move_and_leaves_equal_the_independent_alpha_beta(fen):
    for depth in range(1, 6):
        assert graded(fen, depth) == independent(fen, depth), depth


@pytest.mark.parametrize("fen", ALL[::4])
def test_the_nodes_visited_too(fen):
    cells, black = ind.parse_fen(Board(fen).fen())
    for depth in (1, 3):
        stats = {}
        ind.alphabeta(cells, black, depth, stats=stats)
        assert alphabeta(Board(fen), depth).nodes == stats["nodes"]


@pytest.mark.parametrize("fen", ALL[::2])
def test_the_shallow_cutoffs_variant_against_the_independent_one(fen):
    cells, black = ind.parse_fen(Board(fen).fen())
    for depth in (2, 3, 4):
        result = search(Board(fen), depth, CheckersSearchRules(shallow=True))
        move = result.best_move.pdn() if result.best_move else None
        assert (result.value, move, result.leaves) == ind.alphabeta(
            cells, black, depth, shallow=True
        ), depth


def test_the_result_reports_depth_nodes_and_elapsed_time():
    before = time.perf_counter()
    result = alphabeta(Board(), 3)
    after = time.perf_counter()
    assert result.depth == 3 and minimax(Board(), 2).depth == 2
    assert 0 < result.elapsed <= after - before  # a duration, not a point in time
    stats = {}
    ind.alphabeta(*ind.parse_fen(Board().fen()), 3, stats=stats)
    assert result.nodes == stats["nodes"]


def test_the_move_orders_of_the_variants():
    # From the start every move is worth 0 at depth 1: the best move is the first searched.
    board = Board()
    assert alphabeta(board, 1).best_move.pdn() == "9-13"
    assert search(board, 1, CheckersSearchRules(order="reversed")).best_move.pdn() == "12-16"
    assert (
        search(board, 1, CheckersSearchRules(order="text")).best_move.pdn() == "10-14"
    )  # "10-14" < "9-13"


@pytest.mark.parametrize("fen", ALL[::3])
def test_with_a_window_too(fen):
    value = alphabeta(Board(fen), 3).value
    for lo, hi in (
        (value - 1, value + 1),
        (value, value + 1),
        (value - 1, value),
        (value - 60, value - 10),
        (value + 10, value + 60),
    ):
        assert graded(fen, 3, alpha=lo, beta=hi) == independent(fen, 3, lo, hi), (lo, hi)


# Golden counts, computed by the independent alpha-beta and written down: (value, move, leaves).
GOLDEN = {
    ("B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12", 4): (0, "9-13", 113),
    ("B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12", 5): (0, "9-13", 402),
    ("W:W14,K30:B6,K23", 3): (0, "30-25", 17),
    ("W:W14,K30:B6,K23", 4): (-100, "14-9", 24),
    ("B:WK27:BK1,K3", 4): (150, "1-5", 33),
    ("W:W24,25:B3,4,5,8,14,K15,26", 4): (-600, "24-20", 221),
    ("B:W13,25,28:B3,7,8,9,K20,26", 2): (350, "9-14", 12),
    ("B:W6,20,21,26,27,28,29,30,31:B2,3,4,5,7,9,11,12", 4): (-150, "3-8", 162),
    ("B:W13:BK32,9,1", 1): (WIN - 1, "1-6", 5),
}


@pytest.mark.parametrize(("fen", "depth"), sorted(GOLDEN))
def test_golden_counts(fen, depth):
    assert graded(fen, depth) == GOLDEN[(fen, depth)]
    assert independent(fen, depth) == GOLDEN[(fen, depth)]


def test_the_set_has_equal_values_at_the_cut():
    # Material values tie often: searching on at value == beta (CS188's rule) evaluates more
    # leaves on most of these positions, so a `>=` changed to `>` cannot go unnoticed.
    differ = [
        fen
        for fen in ALL
        if alphabeta(Board(fen), 4).leaves
        != search(Board(fen), 4, CheckersSearchRules(ties="explore")).leaves
    ]
    assert len(differ) >= len(ALL) // 2


def test_every_search_takes_the_evaluation_it_is_given():
    def seven(board):
        return 7

    board = Board()
    assert minimax(board, 2, evaluate=seven).value == 7
    assert alphabeta(board, 3, evaluate=seven).value == -7
    assert search(board, 1, evaluate=seven).value == -7
    assert ReferenceEngine(evaluate=seven).search(board, 2).value == 7


def test_minimax_counts_every_leaf_with_the_same_value():
    for fen in ALL[:10]:
        cells, black = ind.parse_fen(Board(fen).fen())
        for depth in (1, 2, 3):
            result = minimax(Board(fen), depth)
            assert result.value == independent(fen, depth)[0]
            legal = ind.moves(cells, black)
            horizon = sum(ind.perft(ind.play(cells, m), not black, depth - 1) for m in legal)
            # Leaves are horizon positions plus positions with no move before the horizon.
            assert result.leaves >= horizon if legal else result.leaves == 1


# -- losses and the horizon --------------------------------------------------------------------


def test_a_loss_at_the_horizon_scores_win_minus_the_ply():
    # After 1-6 White's only man (13) is blocked by 9 and cannot jump it (6 is taken): White has
    # no move at depth 0, one ply from the root.
    board = Board("B:W13:BK32,9,1")
    result = alphabeta(board, 1)
    assert (result.value, result.best_move.pdn(), result.leaves) == (WIN - 1, "1-6", 5)
    assert alphabeta(board, 3).value == WIN - 1
    board.push_pdn("1-6")
    assert not board.legal_moves
    for depth in (0, 2):
        assert alphabeta(board, depth).value == -WIN
        assert alphabeta(board, depth).leaves == 1
        assert search(board, depth, ply=7).value == -(WIN - 7)


def test_the_window_is_checked():
    with pytest.raises(ValueError, match="depth must be >= 0"):
        alphabeta(Board(), -1)
    with pytest.raises(ValueError, match="alpha < beta"):
        alphabeta(Board(), 2, alpha=5, beta=5)
    assert alphabeta(Board(), 0).value == 0 and alphabeta(Board(), 0).best_move is None
    assert CheckersSearchRules() == CONTRACT


# -- the reference engine -------------------------------------------------------------------------


@pytest.mark.parametrize("fen", ALL)
def test_the_reference_engine_finds_the_fixed_depth_value_and_a_move_reaching_it(fen):
    board = Board(fen)
    for depth in (1, 2, 3, 5):
        fixed = alphabeta(board, depth)
        result = ReferenceEngine().search(board, depth)
        assert result.value == fixed.value, depth
        if fixed.best_move is None:
            continue
        assert result.best_move in board.legal_moves
        # The move it plays reaches the value: its child scores -value one ply shallower.
        if abs(result.value) < WIN - MAX_PLY:
            assert result.depth == depth
            board.push(result.best_move)
            assert -search(board, depth - 1, ply=1).value == result.value
            board.pop()
        assert board.fen() == Board(fen).fen()


@pytest.mark.parametrize("fen", ALL)
def test_its_table_changes_no_value(fen):
    # A table of one entry (cleared at every store) against the full table.
    board = Board(fen)
    for depth in (2, 4, 6):
        small = ReferenceEngine(tt_size=1).search(board, depth)
        full = ReferenceEngine().search(board, depth)
        assert small.value == full.value, depth


def test_a_forced_win_is_found_at_its_distance_and_deepening_stops():
    # Black takes the last white piece at once (ply 1): WIN - 1 at any depth, and the engine
    # stops deepening at the first depth that finds it.
    result = ReferenceEngine().search(Board("B:W14:B9"), 10)
    assert (result.value, result.best_move.pdn(), result.depth) == (WIN - 1, "9x18", 1)
    # A win three plies away: White's men cannot escape Black's kings.
    fen = "B:W13:BK32,9,1"
    result = ReferenceEngine().search(Board(fen), 8)
    assert result.value == WIN - 1 and result.pv[0].pdn() == "1-6"
    lost = ReferenceEngine().search(Board("W:W29:B22,25"), 5)
    assert (lost.value, lost.best_move) == (-WIN, None)


@pytest.mark.parametrize("fen", ["W:W14,K30:B6,K23", "B:WK27:BK1,K3", "B:W25,26:B22"])
def test_distance_to_win_is_the_fixed_depth_distance(fen):
    board = Board(fen)
    for depth in (3, 5, 7):
        assert ReferenceEngine().search(board, depth).value == alphabeta(board, depth).value


def test_win_scores_are_stored_relative_to_the_node():
    for ply in (0, 1, 5, 40):
        for value in (WIN - 3, -(WIN - 9), 0, 250, -WIN + 2 * MAX_PLY, WIN - 2 * MAX_PLY):
            assert _from_tt(_to_tt(value, ply), ply) == value
    assert _to_tt(WIN - 5, 3) == WIN - 2 and _from_tt(WIN - 2, 4) == WIN - 6
    assert _to_tt(-(WIN - 5), 3) == -(WIN - 2) and _from_tt(-(WIN - 2), 4) == -(WIN - 6)
    assert _to_tt(WIN - 2 * MAX_PLY, 7) == WIN - 2 * MAX_PLY  # not a win score: unchanged
    assert _to_tt(WIN - 2 * MAX_PLY + 1, 7) == WIN - 2 * MAX_PLY + 8
    # Every score above WIN - 2 * MAX_PLY is a win: a win found 100 plies deep is still one.
    assert _from_tt(WIN - 100, 5) == WIN - 105 and _from_tt(-(WIN - 100), 5) == -(WIN - 105)
    assert _to_tt(WIN - 200, 5) == WIN - 195 and _to_tt(-(WIN - 200), 5) == -(WIN - 195)


def test_the_principal_variation_is_legal_and_ends_where_the_value_says():
    for fen in ALL[:12]:
        board = Board(fen)
        result = ReferenceEngine().search(board, 4)
        for move in result.pv:
            assert move in board.legal_moves
            board.push(move)
        for _ in result.pv:
            board.pop()
        assert board.fen() == Board(fen).fen()
        if result.pv:
            assert result.pv[0] == result.best_move


def test_bench_signature():
    # As Stockfish's `bench`: the nodes the engine searches over a fixed set of positions to a
    # fixed depth. Move ordering (table move, killers, history) and the table's cutoffs change
    # it while leaving values alone; a change here must be a change meant.
    total = sum(ReferenceEngine().search(Board(fen), 5).nodes for fen in positions())
    assert total == 5544


def test_time_control_without_timing_assertions():
    # A limit of zero still completes depth 1 (its deadline is lifted) and then stops; a limit
    # far beyond the search reaches the depth asked for, with the same answer as no limit.
    board = Board()
    quick = ReferenceEngine().search(board, 10, time_limit=0.0)
    assert quick.depth == 1 and quick.best_move in board.legal_moves
    assert quick.value == alphabeta(board, 1).value
    slow = ReferenceEngine().search(board, 4, time_limit=1e6)
    plain = ReferenceEngine().search(board, 4)
    assert (slow.depth, slow.value, slow.best_move, slow.nodes) == (
        4,
        plain.value,
        plain.best_move,
        plain.nodes,
    )
    assert plain.depth == 4 and plain.leaves > 0 and plain.nodes > plain.leaves
