"""The reference engine students play against (grader/checkers/engine.py, ``ReferenceEngine``):
its time control on a clock of its own (time counted in nodes searched, so nothing here depends on
the machine's speed), what it reports, and its table against the plain fixed-depth search. The
values against the fixed-depth search on many positions are in tests/checkers/test_search_exact.py.

Surviving mutants judged equivalent (mutmut on engine.py, the ``ReferenceEngine`` methods and
``_to_tt`` / ``_from_tt``):
- ``__init__``: ``killers``, ``leaves`` and ``_deadline`` given other first values (``None``,
  ``1``, ``INFINITY / 1.0``, ``INFINITY * 2.0``): ``search`` sets each before it is read.
- ``search``: the first result's leaves (``None``, ``1``) and, per depth, its leaves, nodes and
  elapsed (``None``, ``clock() + start``): never read, the answer takes ``self.leaves``,
  ``self.nodes`` and the time again at the end; ``elapsed`` of a root with no move left out (the
  field's default is that ``0.0``); the killers' ``range(MAX_PLY + 2)`` (a spare row); a
  deadline of ``INFINITY / 1.0`` or ``* 2.0`` (both beyond any clock); depth 2's deadline lifted
  instead of depth 1's (``d == 2``): a depth-1 iteration searches under 1024 nodes (one per move
  plus the root), so its deadline is never read, and a depth-2 one would need 1024; the best move
  ``pv[0] if pv or True`` or ``else moves[1]``: the root's entry is stored last and its move is
  legal, so the variation is never empty; ``abs(value) >= WIN - MAX_PLY``: equal only for a win
  at ply ``MAX_PLY``, which a search needs 128 plies to see; the default depth 65 for 64: a cap
  that no search in a test's time reaches.
- ``_pv``: ``entry[3] is None or entry[3] not in legal`` with ``and``: a stored move is illegal
  in the position only on a 64-bit Zobrist collision.
- ``_order``: the table move's key ``1 << 40`` changed to ``2 << 40`` or ``1 << 41``: still above
  the killers' (``1 << 39``), so the order is the same; the history looked up (or stored, in
  ``_search``) under ``path[+1]`` for ``path[-1]``: only quiet moves get history, whose paths
  have two squares, and a jump's first landing is two rows away, never a quiet move's key.
- ``_search``: ``tt_move = ""`` for ``None`` (equal to no move either); ``value >= alpha`` for
  ``>`` (setting alpha to the value it has); the history's start ``1`` for ``0`` (every key gets
  the same extra 1 once, so the order is the same).
"""

from __future__ import annotations

import pytest

from grader.checkers import engine as engine_module
from grader.checkers.board import Board
from grader.checkers.engine import (
    EXACT,
    INFINITY,
    LOWER,
    MAX_PLY,
    UPPER,
    WIN,
    ReferenceEngine,
    SearchOutcome,
    _from_tt,
    _to_tt,
    alphabeta,
    search,
)
from grader.checkers.evaluation import evaluate
from grader.checkers.variants import CapturesOptionalBoard, CrownedContinuesBoard
from tests.checkers.test_search_exact import ALL, KINGS_AND_CROWNINGS

# A middlegame whose deepening crosses the clock checks (every 1024 nodes) at depth 6.
MIDDLE = "B:W6,20,21,26,27,28,29,30,31:B2,3,4,5,7,9,11,12"
EPOCH = 1000.0  # the node clock's reading before the search: a start that is not 0


def on_node_clock(fen: str, depth: int, limit: float | None) -> tuple[SearchOutcome, Board]:
    """The engine's search where one node searched is one second."""
    engine: ReferenceEngine
    engine = ReferenceEngine(clock=lambda: EPOCH + engine.nodes)
    board = Board(fen)
    return engine.search(board, depth, time_limit=limit), board


def nodes_through(fen: str, depth: int) -> int:
    """The nodes searched by the deepening from 1 to `depth`, with no time limit."""
    return ReferenceEngine().search(Board(fen), depth).nodes


def test_no_iteration_starts_once_half_the_limit_has_gone():
    start = Board().fen()
    three, four = nodes_through(start, 3), nodes_through(start, 4)
    assert four < 1024  # no clock check inside: only the rule between iterations acts
    stopped, _ = on_node_clock(start, 10, limit=2 * three - 1)  # more than half gone after 3
    assert (stopped.depth, stopped.nodes, stopped.elapsed) == (3, three, three)
    assert stopped.value == alphabeta(Board(), 3).value
    went_on, _ = on_node_clock(start, 10, limit=2 * three)  # exactly half: one more iteration
    assert (went_on.depth, went_on.nodes, went_on.elapsed) == (4, four, four)
    assert went_on.value == alphabeta(Board(), 4).value


def test_an_iteration_past_the_deadline_is_dropped_at_a_clock_check():
    four, five, six = (nodes_through(MIDDLE, d) for d in (4, 5, 6))
    assert five < 1024 and 2 * five < 2048 <= six < 3072  # depth 6 checks at 1024 and 2048
    # Past its deadline (2 * four) during depth 5, but no check falls in it: depth 5 completes.
    result, _ = on_node_clock(MIDDLE, 10, limit=2 * four)
    assert five > 2 * four and (result.depth, result.nodes) == (5, five)
    fixed5 = alphabeta(Board(MIDDLE), 5)
    for limit in (2 * five, 2047):
        # Depth 6 starts (half the limit not gone), and the check at node 2048 finds the
        # deadline passed: the answer is depth 5's, the nodes those searched until then.
        result, board = on_node_clock(MIDDLE, 10, limit)
        assert (result.depth, result.value, result.nodes, result.elapsed) == (
            5,
            fixed5.value,
            2048,
            2048,
        ), limit
        assert result.best_move == ReferenceEngine().search(Board(MIDDLE), 5).best_move
        assert board.fen() == MIDDLE  # the dropped iteration took its moves back
    # At the deadline exactly, not past it: depth 6 completes.
    result, _ = on_node_clock(MIDDLE, 10, limit=2048)
    assert (result.depth, result.nodes) == (6, six)
    assert result.value == alphabeta(Board(MIDDLE), 6).value
    # Below half the limit after 5 (2 * five - 1): no sixth iteration at all.
    result, _ = on_node_clock(MIDDLE, 10, limit=2 * five - 1)
    assert (result.depth, result.nodes) == (5, five)


def test_with_no_limit_the_clock_changes_nothing():
    plain = ReferenceEngine().search(Board(MIDDLE), 6)
    timed, _ = on_node_clock(MIDDLE, 6, limit=None)
    assert (timed.depth, timed.value, timed.best_move, timed.nodes, timed.leaves) == (
        6,
        plain.value,
        plain.best_move,
        plain.nodes,
        plain.leaves,
    )
    assert timed.elapsed == plain.nodes  # the time of the whole search, on the node clock


def test_depth_one_always_completes():
    # A limit of zero: depth 1's deadline is lifted, and no second iteration starts.
    result, _ = on_node_clock(MIDDLE, 10, limit=0.0)
    fixed = alphabeta(Board(MIDDLE), 1)
    assert (result.depth, result.value, result.best_move) == (1, fixed.value, fixed.best_move)
    assert result.nodes == fixed.nodes and result.leaves == fixed.leaves


@pytest.mark.parametrize(
    "fen",
    [
        Board().fen(),
        MIDDLE,
        "B:W13:BK32,9,1",  # 1-6 leaves White without a move: a leaf before the horizon
        "B:W25,26:B22",
    ],
)
def test_depth_one_counts_what_the_fixed_depth_search_counts(fen):
    # Depth 1 has nothing in the table yet and cuts nothing: the same leaves and nodes.
    result = ReferenceEngine().search(Board(fen), 1)
    fixed = alphabeta(Board(fen), 1)
    assert (result.value, result.best_move, result.leaves, result.nodes, result.depth) == (
        fixed.value,
        fixed.best_move,
        fixed.leaves,
        fixed.nodes,
        1,
    )


def test_a_root_with_no_move_is_lost_at_once():
    board = Board("W:W29:B22,25")
    fixed = alphabeta(board, 3)
    result = ReferenceEngine().search(board, 3)
    assert (result.value, result.best_move, result.leaves, result.nodes) == (
        fixed.value,
        None,
        fixed.leaves,
        fixed.nodes,
    )
    assert (result.depth, result.elapsed, result.pv) == (0, 0.0, ())


def test_depth_zero_searches_nothing_and_answers_the_first_move():
    board = Board(MIDDLE)
    result = ReferenceEngine().search(board, 0)
    assert (result.value, result.best_move, result.depth) == (
        alphabeta(board, 0).value,
        board.generate_legal_moves()[0],
        0,
    )
    assert (result.leaves, result.nodes, result.pv) == (0, 0, ())


class WatchedTable(dict):  # type: ignore[type-arg]
    """A table that remembers the most entries it ever held."""

    most = 0

    def __setitem__(self, key: object, value: object) -> None:
        super().__setitem__(key, value)
        self.most = max(self.most, len(self))


@pytest.mark.parametrize("size", [1, 2, 7])
def test_the_table_never_holds_more_than_its_size(size: int) -> None:
    board = Board(MIDDLE)
    small = ReferenceEngine(tt_size=size)
    small.tt = WatchedTable()
    result = small.search(board, 5)
    assert small.tt.most == size  # filled to its size, never past it
    full = ReferenceEngine()
    full.tt = WatchedTable()
    assert full.search(board, 5).value == result.value == alphabeta(board, 5).value
    assert full.tt.most > 7  # the bound, not the search, kept the small table small


def test_a_node_at_the_ply_limit_is_a_leaf():
    # No game reaches ply MAX_PLY within a test's time, so its node is searched directly, on an
    # engine whose search has set up its move-ordering tables.
    fen = "B:W25,26:B22"  # Black captures and crowns: one ply changes the material
    board = Board(fen)
    engine = ReferenceEngine()
    engine.search(board, 1)
    at_limit = engine._search(board, 3, MAX_PLY, -INFINITY, INFINITY)
    assert at_limit == evaluate(board)
    below = engine._search(board, 3, MAX_PLY - 1, -INFINITY, INFINITY)  # one ply, then leaves
    assert below == search(board, 1, ply=MAX_PLY - 1).value != at_limit
    assert board.fen() == fen


def test_a_leaf_with_no_move_is_lost_not_evaluated():
    # A leaf asks only whether a move exists (it lists none): with none, the side to move has
    # lost, at depth 0 and at the ply limit alike, and the leaf is counted once.
    board = Board("W:W29:B22,25")  # White to move, its one man blocked
    assert not board.generate_legal_moves() and evaluate(board) > -(WIN - MAX_PLY)
    engine = ReferenceEngine()
    engine.search(Board(MIDDLE), 1)  # sets up the move-ordering tables
    engine.leaves = 0
    assert engine._search(board, 0, 5, -INFINITY, INFINITY) == -(WIN - 5)
    assert engine._search(board, 3, MAX_PLY, -INFINITY, INFINITY) == -(WIN - MAX_PLY)
    assert engine.leaves == 2
    # Above the horizon the moves are listed: none, so lost there too, and one leaf more.
    assert engine._search(board, 3, 5, -INFINITY, INFINITY) == -(WIN - 5)
    assert engine.leaves == 3


# -- the table's bounds, entry by entry ------------------------------------------------------------


def probe(entry_value: int, flag: int, alpha: int, beta: int, ply: int = 1) -> tuple[int, int]:
    """(value, nodes) of the engine's node search on MIDDLE at depth 2 and `ply`, its table
    holding only an entry for MIDDLE (depth 2, `entry_value`, `flag`)."""
    board = Board(MIDDLE)
    engine = ReferenceEngine()
    engine.search(board, 1)  # sets up the move-ordering tables
    engine.tt = {board.zobrist_hash(): (2, entry_value, flag, None)}
    engine.nodes = 0
    value = engine._search(board, 2, ply, alpha, beta)
    return value, engine.nodes


def test_an_entry_cuts_only_where_its_bound_settles_the_window():
    true = search(Board(MIDDLE), 2, ply=1).value
    # A lower bound at or above beta, an upper bound at or below alpha, an exact value: no search.
    assert probe(true - 300, LOWER, true - 400, true - 300) == (true - 300, 1)
    assert probe(true + 300, UPPER, true + 300, true + 400) == (true + 300, 1)
    assert probe(true + 7, EXACT, true - 400, true + 400) == (true + 7, 1)
    # A bound on the wrong side of the window settles nothing: the node is searched.
    searched = [
        probe(true + 300, UPPER, true - 400, true + 200),  # at most true + 300, beta below
        probe(true - 300, LOWER, true - 200, true + 400),  # at least true - 300, alpha above
        probe(true - 300, LOWER, true - 400, true - 299),  # below beta by one
        probe(true + 300, UPPER, true + 299, true + 400),  # above alpha by one
    ]
    for value, nodes in searched:
        assert value == true and nodes > 1
    # The root is always searched, whatever the table holds: it must give a move.
    value, nodes = probe(true + 7, EXACT, -INFINITY, INFINITY, ply=0)
    assert value == search(Board(MIDDLE), 2).value and nodes > 1


def test_the_table_move_then_killers_then_history_then_canonical_order():
    board = Board()
    moves = board.generate_legal_moves()  # canonical: 9-13, 9-14, 10-14, ...
    engine = ReferenceEngine()
    engine.search(board, 1)
    engine.history = {(moves[5].path[0], moves[5].path[-1]): 1}
    engine.killers[3] = [moves[4], moves[6]]
    order = engine._order(moves, 3, moves[2])
    assert order == [moves[2], moves[4], moves[6], moves[5], moves[0], moves[1], moves[3]]
    engine.history[(moves[1].path[0], moves[1].path[-1])] = 9
    assert engine._order(moves, 0, None) == [moves[1], moves[5], moves[0], *moves[2:5], moves[6]]
    # Each rank above the next even where the canonical order runs the other way: the table's
    # move after both killers, the second killer before the first.
    engine.killers[2] = [moves[3], moves[1]]
    order = engine._order(moves, 2, moves[6])
    assert order == [moves[6], moves[3], moves[1], moves[5], moves[0], moves[2], moves[4]]


@pytest.mark.parametrize("fen", [MIDDLE, Board().fen(), "W:WK3,18,19,26,27,30:B5,K10,12,13,K22"])
def test_a_node_stores_what_its_value_proves(fen: str) -> None:
    # A value at or below alpha is an upper bound, at or above beta a lower bound, else exact;
    # each checked against the fixed-depth value, windows meeting it at either end included.
    board = Board(fen)
    true = search(board, 3, ply=1).value
    kinds = set()
    for lo, hi in ((-10, 10), (0, 10), (1, 10), (-10, 0), (-10, -1), (-500, -200), (200, 500)):
        engine = ReferenceEngine()
        engine.search(board, 1)
        engine.tt = {}
        value = engine._search(board, 3, 1, true + lo, true + hi)
        depth, stored, flag, move = engine.tt[board.zobrist_hash()]
        assert (depth, stored) == (3, value) and move in board.legal_moves
        if value <= true + lo:
            assert flag == UPPER and true <= stored
        elif value >= true + hi:
            assert flag == LOWER and true >= stored
        else:
            assert flag == EXACT and stored == true
        kinds.add((flag, value - true in (lo, hi)))
    assert {(UPPER, True), (LOWER, True), (EXACT, False)} <= kinds  # the ends are reached


def test_loss_scores_are_stored_relative_to_the_node_from_the_same_bound_as_wins():
    assert _to_tt(-(WIN - 2 * MAX_PLY), 7) == -(WIN - 2 * MAX_PLY)  # not a loss score
    assert _to_tt(-(WIN - 2 * MAX_PLY) - 1, 7) == -(WIN - 2 * MAX_PLY) - 8
    assert _from_tt(-(WIN - 2 * MAX_PLY), 7) == -(WIN - 2 * MAX_PLY)
    assert _from_tt(-(WIN - 2 * MAX_PLY) - 1, 7) == -(WIN - 2 * MAX_PLY) + 6
    assert _from_tt(WIN - 2 * MAX_PLY, 7) == WIN - 2 * MAX_PLY
    assert _from_tt(WIN - 2 * MAX_PLY + 1, 7) == WIN - 2 * MAX_PLY - 6


def test_bench_signature_over_the_whole_set():
    # As test_search_exact's bench, over every position of its set, position by position: the
    # killer-move bookkeeping changes one of them (a signature, recorded from this engine).
    nodes = [ReferenceEngine().search(Board(fen), 5).nodes for fen in ALL]
    assert nodes == [
        729, 106, 172, 1, 252, 194, 637, 180, 867, 594, 842, 970, 65,
        2, 6, 76, 68, 87, 152, 209, 131, 1435, 683, 58, 365,
    ]  # fmt: skip


# -- the engine's own positions: bitboards, not a Board ---------------------------------------------

VARIANT_POSITIONS = [
    "B:W17,18,26,27:B24",  # a crowned man jumps on only in CrownedContinuesBoard
    "W:W9:B6,7,15,16",
    "B:W14:B9",  # a capture or a step: both in CapturesOptionalBoard
    "B:W18,22:B14,15",
    # Where leaving a capture is better at depth 2 (found among seeded positions)
    "W:W7,10,20,21,27,28,30,31:B3,4,5,8,16",
    "B:W22,24,25,27,29,30:B1,2,4,8,10,12,17,18",
]


@pytest.mark.parametrize("rules", [Board, CapturesOptionalBoard, CrownedContinuesBoard])
def test_each_move_leads_where_board_push_leads(rules: type[Board]) -> None:
    """The engine's table lists a position's moves as the board's rules give them, and for each
    the position and Zobrist hash that Board.push reaches (the hash worked out from the squares
    that changed): men, kings, crownings, multi-jumps and a king's loop."""
    for fen in [*ALL, *KINGS_AND_CROWNINGS, *VARIANT_POSITIONS, "B:W10,11,18,19:BK15"]:
        board = rules(fen)
        engine = ReferenceEngine()
        engine.search(board, 1)  # the engine takes the board's rules
        own, opp = (board.black, board.white) if board.turn else (board.white, board.black)
        moves, children = engine._position(own, opp, board.kings, board.turn, board.zobrist_hash())
        assert list(moves) == board.generate_legal_moves(), fen
        for move, (c_own, c_opp, c_kings, c_hash) in zip(moves, children, strict=True):
            board.push(move)
            mover, other = (board.black, board.white) if board.turn else (board.white, board.black)
            assert (c_own, c_opp, c_kings, c_hash) == (
                mover,
                other,
                board.kings,
                board.zobrist_hash(),
            ), (fen, move.pdn())
            board.pop()


@pytest.mark.parametrize("rules", [CapturesOptionalBoard, CrownedContinuesBoard])
def test_a_variant_board_is_searched_by_its_own_rules(rules: type[Board]) -> None:
    for fen in [*VARIANT_POSITIONS, *KINGS_AND_CROWNINGS]:
        for depth in (1, 2, 3, 4):
            board = rules(fen)
            assert ReferenceEngine().search(board, depth).value == alphabeta(board, depth).value
    # The rules matter in these positions: the standard board's values differ somewhere.
    assert any(
        alphabeta(rules(fen), depth).value != alphabeta(Board(fen), depth).value
        for fen in VARIANT_POSITIONS
        for depth in (1, 2, 3, 4)
    )


def test_the_positions_table_never_holds_more_than_its_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(engine_module, "POSITIONS_SIZE", 5)
    small = ReferenceEngine()
    small._positions = WatchedTable()
    result = small.search(Board(MIDDLE), 5)
    assert small._positions.most == 5
    full = ReferenceEngine().search(Board(MIDDLE), 5)
    assert (result.value, result.best_move, result.nodes) == (
        full.value,
        full.best_move,
        full.nodes,
    )


def test_one_engine_searching_boards_of_other_rules_answers_each_by_its_own() -> None:
    """The engine's table of positions is kept across searches, but not across rules."""
    engine = ReferenceEngine()
    for fen in VARIANT_POSITIONS:
        for rules in (Board, CapturesOptionalBoard, Board, CrownedContinuesBoard, Board):
            board = rules(fen)
            assert engine.search(board, 3).value == alphabeta(board, 3).value, (fen, rules)
            assert engine.search(board, 1).best_move in board.legal_moves
