"""Trees from real games: exact tic-tac-toe values, Connect-4 and checkers cut at a depth with
the prescribed evaluation, the first N moves in canonical order, a position per node. Connect-4
against rules and an evaluation written again here from the docstring (every window of four,
every value, positions from seeded random games), what each game accepts and refuses in words,
random starts under scripted draws, and the limits and fields of a game tree.

Surviving mutants judged equivalent (mutmut names of 2026-11-22):
- ``ConnectFour._winner`` 4, 8, 11: ``window[1]`` for ``window[0]`` in the test or the result;
  a window counted 4 times over one of its cells holds that cell four times, so every cell is
  the same.
- ``TicTacToe.parse`` 23: ``set("XXXO.XX")`` is ``set("XO.")``.
- ``ConnectFour.value`` 47, 49, 56, 50: the default of ``.get`` (None, none, 1), and
  ``{2: 0, 2: 2, 3: 5}`` (1 missing, so 0 by default): a window scores only while it holds
  1 to 3 of one player's discs and no other (4 is a win, valued before).
- ``game_tree`` 18: ``>= MAX_LEAVES`` for ``>``: no branching 1..9 to a depth 1..8 gives 5,000.
"""

from __future__ import annotations

import random

import pytest

from grader.checkers import STARTING_FEN, Board, evaluate
from grader.gametree import minimax, solve
from grader.gametree.games import (
    C4_WIN,
    CHECKERS_WIN,
    GAMES,
    RANDOM_START_TRIES,
    GameError,
    _c4_windows,
    game_tree,
    random_start,
)
from tests.gametree._helpers import Draws


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


C4 = GAMES["connect-4"]
TTT = GAMES["tic-tac-toe"]
CHECKERS = GAMES["checkers"]

# -- Connect-4 written again: cells by (row from the bottom, column from the left) ------------

ROWS, COLUMNS = 6, 7


def _lines() -> list[tuple[tuple[int, int], ...]]:
    """The 69 lines of four cells: 24 across, 21 up, 12 up-right and 12 down-right."""
    lines = []
    for r in range(ROWS):
        lines += [tuple((r, c + i) for i in range(4)) for c in range(COLUMNS - 3)]
    for r in range(ROWS - 3):
        lines += [tuple((r + i, c) for i in range(4)) for c in range(COLUMNS)]
        for c in range(COLUMNS - 3):
            lines.append(tuple((r + i, c + i) for i in range(4)))
            lines.append(tuple((r + 3 - i, c + i) for i in range(4)))
    return lines


LINES = _lines()


def _cells(moves: str) -> dict[tuple[int, int], str]:
    stacks: list[list[str]] = [[] for _ in range(COLUMNS)]
    for n, column in enumerate(moves):
        stacks[int(column) - 1].append("XO"[n % 2])
    return {(r, c): disc for c, stack in enumerate(stacks) for r, disc in enumerate(stack)}


def _won(cells: dict[tuple[int, int], str]) -> bool:
    return any(
        len({cells.get(p) for p in line} - {None}) == 1 and all(p in cells for p in line)
        for line in LINES
    )


def _reference_value(moves: str) -> int:
    """The docstring's evaluation for the player to move, from the cells."""
    cells = _cells(moves)
    if _won(cells):
        return -C4_WIN
    if len(moves) == ROWS * COLUMNS:
        return 0
    me, them = ("X", "O") if len(moves) % 2 == 0 else ("O", "X")
    score = 0
    for line in LINES:
        held = [cells.get(p) for p in line]
        for player, sign in ((me, 1), (them, -1)):
            if player in held and set(held) <= {player, None}:
                score += sign * {2: 2, 3: 5}.get(held.count(player), 0)
    centre = [cells.get((r, COLUMNS // 2)) for r in range(ROWS)]
    return score + 3 * (centre.count(me) - centre.count(them))


def _reference_moves(moves: str) -> list[str]:
    cells = _cells(moves)
    if _won(cells):
        return []
    return [str(c + 1) for c in range(COLUMNS) if (ROWS - 1, c) not in cells]


def _random_games(count: int) -> list[str]:
    """Every position of ``count`` seeded random games to their end (win or full board)."""
    positions = []
    for seed in range(count):
        rng, moves = random.Random(seed), ""
        while True:
            positions.append(moves)
            legal = _reference_moves(moves)
            if not legal:
                break
            moves += rng.choice(legal)
    return positions


POSITIONS = _random_games(40)
# A full board with no four in a row, its centre column 4 discs to 2 (so an evaluation of it
# is not 0 by chance): a seeded random game, found once and written here.
DRAWN = "567736127133242575653317215644454742116632"


def test_every_window_of_four_is_read_once_in_each_direction():
    labels = [[f"{r},{c}" for c in range(COLUMNS)] for r in range(ROWS)]
    windows = sorted(tuple(sorted(w)) for w in _c4_windows(labels))
    expected = sorted(tuple(sorted(f"{r},{c}" for r, c in line)) for line in LINES)
    assert len(windows) == 69
    assert windows == expected


def test_the_random_games_end_in_wins_in_every_direction():
    ends = [p for p in POSITIONS if not _reference_moves(p)]
    assert len(ends) == 40
    # wins across, up and along both diagonals occur among them (a full board: DRAWN)
    kinds = set()
    for position in ends:
        cells = _cells(position)
        for line in LINES:
            if len({cells.get(p) for p in line}) == 1 and line[0] in cells:
                (r0, c0), (r1, c1) = line[0], line[1]
                kinds.add((r1 - r0, c1 - c0))
    assert kinds == {(0, 1), (1, 0), (1, 1), (-1, 1)}


def test_connect_four_rules_and_evaluation_match_a_second_implementation():
    for moves in [*POSITIONS, DRAWN]:
        assert C4.parse(moves) == moves
        assert C4.moves(moves) == _reference_moves(moves), moves
        assert C4.value(moves) == _reference_value(moves), moves
        cells = _cells(moves)
        assert C4.board(moves) == [
            "".join(cells.get((r, c), ".") for c in range(COLUMNS)) for r in reversed(range(ROWS))
        ], moves


def test_connect_four_values_worked_by_hand():
    # X on 3, 4, 5 along the bottom, O on 4, 5 above: for X the windows 1-4 and 4-7 hold two
    # (2 points each), 2-5 and 3-6 three (5 each): 14; for O, 2-5, 3-6 and 4-7 hold two: 6.
    # One disc each in the centre. O is to move: 6 - 14.
    assert C4.value("44553") == -8
    # X two high in the centre (one window of two, 2 points; 2 centre discs, 6): O to move.
    assert C4.value("414") == -8
    assert C4.value("") == 0
    assert C4.value("4") == -3  # X's centre disc, O to move
    assert C4.value("1213141") == -C4_WIN  # X's four up column 1: O to move has lost


def test_a_full_board_without_four_in_a_row_is_a_draw():
    cells = _cells(DRAWN)
    centre = [cells[(r, COLUMNS // 2)] for r in range(ROWS)]
    assert sorted(centre.count(p) for p in "XO") == [2, 4]
    assert C4.parse(DRAWN) == DRAWN and C4.moves(DRAWN) == []
    assert C4.value(DRAWN) == 0
    last = game_tree("connect-4", DRAWN[:-1], depth=1, branching=7)
    assert last.tree.node("0").value == 0


def test_connect_four_accepts_spaces_and_refuses_in_words():
    assert C4.parse(" 44 5\t3 ") == "4453"
    assert C4.parse("111111") == "111111"  # a column takes six
    assert C4.moves("111111") == ["2", "3", "4", "5", "6", "7"]
    assert C4.moves("") == [str(c) for c in range(1, 8)]
    assert C4.parse("1213141") == "1213141"  # the winning move may be the last
    words = "a Connect-4 position is the columns played so far, 1-7 (e.g. 4453)"
    for text in ("4a", "480", "4-4", "4X4"):
        with pytest.raises(GameError) as refused:
            C4.parse(text)
        assert str(refused.value) == words
    for text, words in [
        ("1111111", "column 1 is full at move 7"),
        ("21111111", "column 1 is full at move 8"),
        ("12131415", "the game was over after move 7"),
        ("121314155", "the game was over after move 7"),
    ]:
        with pytest.raises(GameError) as refused:
            C4.parse(text)
        assert str(refused.value) == words


def test_connect_four_names_who_plays_where():
    assert C4.move_text("", "4") == "X in column 4"
    assert C4.move_text("4", "3") == "O in column 3"
    assert C4.move_text("43", "3") == "X in column 3"
    assert C4.board("44553") == ["......."] * 4 + ["...OO..", "..XXX.."]


# -- tic-tac-toe ----------------------------------------------------------------------------


def test_tic_tac_toe_reads_rows_any_way_they_are_typed():
    assert TTT.parse("x - o\n_ . .\n. . .") == "X.O......"
    assert TTT.board("XOX.O.X..") == ["XOX", ".O.", "X.."]
    assert TTT.text("XOX.O.X..") == "XOX.O.X.."
    assert TTT.move_text("X........", 4) == "O on 5"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("XO.XO.XO", "a tic-tac-toe position is 9 cells of X, O or '.', row by row"),
        ("XO.XO.XO..", "a tic-tac-toe position is 9 cells of X, O or '.', row by row"),
        ("XO.XO.XOZ", "a tic-tac-toe position is 9 cells of X, O or '.', row by row"),
        ("O........", "X moves first: X has as many marks as O, or one more"),
        ("XX.......", "X moves first: X has as many marks as O, or one more"),
    ],
)
def test_tic_tac_toe_refusals_in_words(text, words):
    with pytest.raises(GameError) as refused:
        TTT.parse(text)
    assert str(refused.value) == words


# -- checkers --------------------------------------------------------------------------------


def test_checkers_positions_boards_and_a_lost_position():
    assert CHECKERS.parse("") == STARTING_FEN
    assert CHECKERS.parse("  B:W6:B1 ") == "B:W6:B1"
    assert CHECKERS.board(STARTING_FEN) == [
        "  b   b   b   b",
        "b   b   b   b  ",
        "  b   b   b   b",
        ".   .   .   .  ",
        "  .   .   .   .",
        "w   w   w   w  ",
        "  w   w   w   w",
        "w   w   w   w  ",
    ]
    assert CHECKERS.moves(STARTING_FEN) == [m.pdn() for m in Board().generate_legal_moves()]
    # White to move with no piece left has lost; Black's only move takes the last piece.
    assert CHECKERS.moves("W:W:B10") == [] and CHECKERS.value("W:W:B10") == -CHECKERS_WIN
    assert CHECKERS.moves("B:W6:B1") == ["1x10"]
    found = game_tree("checkers", "B:W6:B1", depth=3, branching=3)
    assert found.positions["0"]["move"] == "1x10" and found.tree.node("0").is_leaf
    assert found.tree.node("0").value == CHECKERS_WIN  # from Black's side, at the root
    with pytest.raises(GameError) as refused:
        CHECKERS.parse("B:W21,21:B1")
    assert str(refused.value).startswith("not a checkers FEN: ")


# -- random starts under scripted draws -------------------------------------------------------


def test_a_random_start_draws_the_number_of_plies_then_each_move():
    # 0.7 of the 5 counts 2..6 is the 4th: 5 plies; then of the empty cells, in reading order:
    # the first of 9, the last of 8 (7.92), the 4th of 7 (3.5), the first of 6, the 2nd of 5.
    rng = Draws(0.7, 0.0, 0.99, 0.5, 0.0, 0.2)
    assert random_start("tic-tac-toe", rng) == "XO.XX...O"
    assert rng.taken == 6


@pytest.mark.parametrize(
    ("draw", "expected"), [(0.0, "X........"), (0.34, "XO......."), (0.99, "XOX......")]
)
def test_each_number_of_plies_in_the_range_can_be_drawn(draw, expected):
    assert random_start("tic-tac-toe", Draws(draw, 0.0, 0.0, 0.0), plies=(1, 3)) == expected


def test_walks_that_end_the_game_are_tried_again_then_the_start():
    # Nine plies always asked, the first empty cell always taken: X wins on its 4th move (cells
    # 3, 5, 7 of the diagonal), the walk stops there (8 draws), the game is over, it is tried
    # again.
    rng = Draws(0.0)
    assert random_start("tic-tac-toe", rng, plies=(9, 9)) == "." * 9
    assert rng.taken == RANDOM_START_TRIES * 8


def test_random_starts_reach_every_count_and_every_first_move():
    counts = {len(random_start("connect-4", random.Random(s))) for s in range(60)}
    assert counts == {2, 3, 4, 5, 6}
    firsts = {random_start("tic-tac-toe", random.Random(s), plies=(1, 1)) for s in range(80)}
    assert len(firsts) == 9


# -- game trees -------------------------------------------------------------------------------


def _plies(path: str) -> int:
    return path.count(".") + 1 if path else 0


def test_a_game_tree_by_default_is_two_plies_of_three_from_the_start():
    found = game_tree("tic-tac-toe")
    assert found.game == "tic-tac-toe" and found.start == "." * 9
    assert found.tree.players == ("max", "min")
    assert len(found.tree.leaves()) == 9 and all(_plies(p) == 2 for p in found.tree.leaves())
    assert found.positions[""] == {"board": ["..."] * 3, "move": None, "position": "." * 9}
    assert found.to_dict() == {
        "game": "tic-tac-toe",
        "start": "." * 9,
        "positions": found.positions,
    }
    assert set(found.positions) == {"", *found.tree.paths()}


@pytest.mark.parametrize(("depth", "branching"), [(1, 1), (8, 2), (1, 9), (4, 8)])
def test_depths_and_branchings_at_the_limits_are_built(depth, branching):
    found = game_tree("tic-tac-toe", None, depth, branching)
    assert max(_plies(p) for p in found.tree.leaves()) == depth
    assert len(found.tree.node("").children) == branching
    assert minimax(found.tree).value in (-1, 0, 1)


@pytest.mark.parametrize(
    ("depth", "branching", "words"),
    [
        (0, 3, "depth must be 1..8 and branching 1..9, got 0 and 3"),
        (9, 2, "depth must be 1..8 and branching 1..9, got 9 and 2"),
        (2, 0, "depth must be 1..8 and branching 1..9, got 2 and 0"),
        (2, 10, "depth must be 1..8 and branching 1..9, got 2 and 10"),
        (4, 9, "9^4 leaves is too many for an exercise (at most 5000)"),
    ],
)
def test_sizes_past_the_limits_are_refused_in_words(depth, branching, words):
    with pytest.raises(GameError) as refused:
        game_tree("tic-tac-toe", None, depth, branching)
    assert str(refused.value) == words


def test_unknown_games_and_ended_games_are_refused_in_words():
    with pytest.raises(GameError) as refused:
        game_tree("chess")
    assert str(refused.value) == "unknown game 'chess' (tic-tac-toe, connect-4, checkers)"
    with pytest.raises(GameError) as refused:
        game_tree("connect-4", "1213141")
    assert str(refused.value) == "the game is over in that position: there is no move to search"
