"""The board: the step, shift and jump tables and the
Zobrist keys built at import (checked here against the mailbox geometry of
tests/checkers/_independent.py), the text diagram, copies, ``Board.empty``, ``peek``, the
legal-move generator's repr, a board made without a FEN, move text out of range, the ambiguity
message.

Mutants of board.py judged equivalent (docs/testing.md, "Mutation testing"): no behaviour
changes, so no test can kill them:
- ``_build_tables``: ``r + 2 * dr`` (or ``c + 2 * dc``) changed to ``2 / dr``: for a step of
  +-1 that is the same +-2, as a float, and the key (5.0, 2) finds the square stored as (5, 2).
- ``_zobrist_keys``: the seed 20_240_605 changed to 20_240_606: any fixed seed gives keys as
  reproducible and as distinct, and no hash outlives its process (the engine's table is in memory).
- ``Board.parse_pdn``: ``len(fits) > 1`` changed to ``>= 1``: reached only after ``== 1`` returned.
- ``count_moves``: the men's crown row always Black's or always White's: a man on its own king
  row has no forward jump left, so counting it as ended there or looking further gives the same 1,
  and a man never lands on the other side's king row.
- ``count_moves``, ``_captures``, ``_jump_from``: a king's crown row ``0`` changed to ``1``
  (square 1): a king lands on 1 only over 6 from 10, and its one jump from 1 is back over 6,
  already taken, so ending the jump there or looking further gives the same move.
- ``_captures``: ``crowned_continues=True`` as the default: its one caller passes the flag.
- ``_jump_from``: ``crowned_continues=True`` as the default: the one call without it passes
  ``crown=0`` (a king), where the flag is never read.
- ``Board.__init__``: ``self._hash = 1`` instead of 0: every board handed out as usable (from a
  FEN, ``empty()``, ``copy()``) has its hash set after; one made with ``Board(None)`` and filled by
  hand keeps no true hash either way.
- ``Board.set_fen``: ``if body`` changed to always true: an empty field splits into one empty
  item, which the filter drops.
- ``_steps_into``: ``shift > 0`` changed to ``>= 0`` or ``> 1``: a step's shift is 3, 4 or 5 either
  way, never 0 or 1.
- ``Board.generate_legal_moves``: ``key=_canonical`` dropped or ``key=None``: ``Move``'s own
  order (``order=True``) compares the same two fields, path then captured, so the sort is the same;
  the key only spares the comparisons in Python.
"""

from __future__ import annotations

import pytest

from grader.checkers import board as board_module
from grader.checkers.board import (
    BLACK,
    WHITE,
    Board,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    Move,
    Termination,
    zobrist_hash,
)
from grader.checkers.variants import CapturesOptionalBoard, CrownedContinuesBoard
from tests.checkers import _independent as ind

# Row and column steps of the four diagonal directions, Black moving down the rows.
DIRECTIONS = {"DL": (1, -1), "DR": (1, 1), "UL": (-1, -1), "UR": (-1, 1)}


def neighbour(index: int, direction: str, distance: int = 1) -> int | None:
    """The index `distance` squares away from `index` in `direction`, from the mailbox
    coordinates of the independent generator; None off the board."""
    dr, dc = DIRECTIONS[direction]
    row, col = ind.coords(index + 1)
    row, col = row + distance * dr, col + distance * dc
    return ind.square(row, col) - 1 if ind.on_board(row, col) else None


# -- the tables built at import ----------------------------------------------------------------


def test_the_step_and_jump_tables_are_the_board_geometry() -> None:
    steps, jumps = board_module._build_tables()
    assert list(steps) == list(jumps) == list(DIRECTIONS)
    for name in DIRECTIONS:
        assert len(steps[name]) == len(jumps[name]) == 32
        for i in range(32):
            one, two = neighbour(i, name), neighbour(i, name, 2)
            assert steps[name][i] == (-1 if one is None else one), (name, i + 1)
            assert jumps[name][i] == (None if two is None else (one, two)), (name, i + 1)
    # Hand-checked on the diagram: 1 steps down to 5 and 6; 4 is on the right edge, 5 on the
    # left; 1 jumps down-right over 6 to 10; 32 has no square below it.
    assert (steps["DL"][0], steps["DR"][0]) == (4, 5)
    assert (steps["DR"][3], steps["DL"][4], steps["UL"][4], steps["UR"][4]) == (-1, -1, -1, 0)
    assert (jumps["DR"][0], jumps["DL"][0], jumps["DL"][31]) == ((5, 9), None, None)
    assert (steps, jumps) == (board_module._STEPS, board_module._JUMPS)


@pytest.mark.parametrize("name", list(DIRECTIONS))
def test_a_step_is_a_shift_of_the_squares_in_one_mask(name: str) -> None:
    masks = board_module._shift_masks(name)
    deltas = [delta for _, delta in masks]
    assert len(masks) == 2 and deltas == sorted(set(deltas))
    for i in range(32):
        j = neighbour(i, name)
        holding = [delta for mask, delta in masks if mask >> i & 1]
        assert holding == ([] if j is None else [j - i]), i + 1
    assert not any(mask >> 32 for mask, _ in masks)


@pytest.mark.parametrize(
    ("names", "table"),
    [
        (("DL", "DR"), board_module._JUMPS_DOWN),
        (("UL", "UR"), board_module._JUMPS_UP),
        (("DL", "DR", "UL", "UR"), board_module._JUMPS_KING),
    ],
)
def test_the_jump_tables_list_each_jump_in_direction_order(
    names: tuple[str, ...], table: tuple[tuple[tuple[int, int, int], ...], ...]
) -> None:
    built = board_module._jump_table(names)
    assert len(built) == 32
    for i in range(32):
        expected = []
        for name in names:
            over, land = neighbour(i, name), neighbour(i, name, 2)
            if land is not None and over is not None:
                expected.append((1 << over, land, 1 << land))
        assert built[i] == tuple(expected), i + 1
    assert built == table


def test_the_zobrist_keys_are_reproducible_distinct_64_bit_numbers() -> None:
    first, again = board_module._zobrist_keys(), board_module._zobrist_keys()
    assert first == again
    *tables, black_to_move = first
    assert [len(t) for t in tables] == [32, 32, 32, 32]
    keys = [k for t in tables for k in t] + [black_to_move]
    assert len(set(keys)) == 129
    assert all(0 <= k < 2**64 for k in keys)


# -- the text diagram, copies, the empty board -----------------------------------------------

# Hand-checked: row 0 holds squares 1-4 in columns 1, 3, 5, 7; row 1 holds 5-8 in columns 0-6.
DIAGRAM = "\n".join(
    [
        "  .   .   W   .",
        "b   .   .   .  ",
        "  .   B   .   b",
        ".   .   .   .  ",
        "  .   w   w   .",
        ".   .   .   .  ",
        "  .   w   .   .",
        ".   .   .   .  ",
    ]
)


def test_the_diagram_puts_each_piece_on_its_dark_square() -> None:
    board = Board("W:WK3,18,19,26:B5,K10,12")
    assert str(board) == DIAGRAM
    start = str(Board()).split("\n")
    assert [len(line) for line in start] == [15] * 8  # 8 cells, one space between
    for row, line in enumerate(start):
        cells = [line[2 * col] for col in range(8)]
        expected = "b" if row < 3 else "w" if row > 4 else "."
        assert [cells[col] for col in range(8) if (row + col) % 2 == 0] == [" "] * 4, row
        assert [cells[col] for col in range(8) if (row + col) % 2 == 1] == [expected] * 4, row
    for square in range(1, 33):
        row, col = ind.coords(square)
        assert DIAGRAM.split("\n")[row][2 * col] == (board.piece_at(square) or "."), square


def test_a_copy_keeps_the_position_and_history_and_is_independent() -> None:
    board = Board("B:WK30,20:BK5,9")
    for text in ("5-1", "30-26", "1-5", "26-30"):
        board.push_pdn(text)
    board.halfmove_clock = 7
    twin = board.copy()
    assert (twin.fen(), twin.halfmove_clock, twin.zobrist_hash()) == (board.fen(), 7, board._hash)
    assert twin.move_stack == board.move_stack and twin.repetitions() == 2
    twin.push_pdn("9-13")
    assert twin.move_stack != board.move_stack and board.fen() == "B:W20,K30:BK5,9"
    assert board.repetitions() == 2 and twin.halfmove_clock == 0 and board.halfmove_clock == 7
    twin.pop()
    assert twin.pop() == Move.from_pdn("26-30") and twin.fen() == "W:W20,K26:BK5,9"
    fresh = board.copy(stack=False)
    assert fresh == board and fresh.zobrist_hash() == board.zobrist_hash()
    assert fresh.move_stack == [] and fresh.repetitions() == 1 and fresh.halfmove_clock == 7
    with pytest.raises(IndexError):
        fresh.pop()
    variant = CapturesOptionalBoard("B:W14:B9")
    assert type(variant.copy()) is CapturesOptionalBoard
    assert type(variant.copy(stack=False)) is CapturesOptionalBoard


def test_the_empty_board_has_no_pieces_and_black_has_lost() -> None:
    board = Board.empty()
    assert (board.black, board.white, board.kings, board.turn) == (0, 0, 0, BLACK)
    assert board.fen() == "B:W:B" and board.repetitions() == 1 and board.move_stack == []
    assert board.zobrist_hash() == zobrist_hash(0, 0, 0, BLACK) != 0
    outcome = board.outcome()
    assert outcome is not None and outcome.termination is Termination.NO_MOVES
    assert outcome.winner == WHITE


def test_peek_is_the_last_move_and_the_generator_repr_lists_the_moves() -> None:
    board = Board()
    board.push_pdn("11-15")
    board.push_pdn("23-19")
    board.push_pdn("8-11")
    assert board.peek() == Move.from_pdn("8-11") and len(board.move_stack) == 3
    assert repr(Board().legal_moves) == (
        "<LegalMoveGenerator (9-13, 9-14, 10-14, 10-15, 11-15, 11-16, 12-16)>"
    )
    assert repr(Board("B:W14:B9").legal_moves) == "<LegalMoveGenerator (9x18)>"
    assert repr(Board.empty().legal_moves) == "<LegalMoveGenerator ()>"


# -- move text and repetitions ---------------------------------------------------------------


@pytest.mark.parametrize("text", ["29-33", "33-29", "28x33", "0-5"])
def test_a_square_beyond_1_to_32_is_named_out_of_range(text: str) -> None:
    with pytest.raises(InvalidMoveError, match=f"square out of range 1-32 in move '{text}'"):
        Move.from_pdn(text)


def test_an_ambiguous_short_capture_lists_every_path_it_could_be() -> None:
    with pytest.raises(IllegalMoveError) as info:
        Board("B:W10,11,18,19:BK7").parse_pdn("7x7")
    assert str(info.value) == "ambiguous move '7x7': 7x14x23x16x7, 7x16x23x14x7"


def test_a_board_made_without_a_fen_is_empty_with_no_history_recorded() -> None:
    board = Board(None)  # what copy() and empty() start from
    assert (board.black, board.white, board.kings, board.turn) == (0, 0, 0, BLACK)
    assert board.halfmove_clock == 0 and board.move_stack == [] and board.repetitions() == 0
    board.black, board.white = 1 << 0, 1 << 31  # pieces set by hand: still no history
    assert board.repetitions() == 0 and board.outcome() is None
    board.push_pdn("1-5")
    assert board.repetitions() == 1 and board.fen() == "W:W32:B5"
    assert board.pop() == Move.from_pdn("1-5") and board.fen() == "B:W32:B1"
    assert board.move_stack == [] and board.repetitions() == 0


@pytest.mark.parametrize(
    ("fen", "by_the_rules", "jumping_on"),
    [
        # Hand-checked: 24x31 crowns; a king on 31 would go on over 26 to 22, then over 17 to
        # 13 or over 18 to 15, so the variant has two moves where the rules have one.
        ("B:W17,18,26,27:B24", ["24x31"], ["24x31x22x13", "24x31x22x15"]),
        # The same position turned round (square s becomes 33 - s), White to move.
        ("W:W9:B6,7,15,16", ["9x2"], ["9x2x11x18", "9x2x11x20"]),
    ],
)
def test_a_variant_where_a_crowned_man_jumps_on_lists_and_counts_its_moves(
    fen: str, by_the_rules: list[str], jumping_on: list[str]
) -> None:
    assert [m.pdn() for m in Board(fen).legal_moves] == by_the_rules
    assert len(Board(fen).legal_moves) == 1
    variant = CrownedContinuesBoard(fen)
    assert [m.pdn() for m in variant.legal_moves] == jumping_on
    assert len(variant.legal_moves) == variant.legal_moves.count() == 2


def test_push_and_pop_keep_the_repetition_count_of_every_position() -> None:
    board = Board("B:WK32:BK1")
    seen = [board.fen()]  # the positions of the game so far, counted independently
    shuffle = ["1-5", "32-27", "5-1", "27-32"]
    for text in shuffle * 2:
        board.push_pdn(text)
        seen.append(board.fen())
        assert board.repetitions() == seen.count(board.fen())
    assert board.repetitions() == 3
    while board.move_stack:
        board.pop()
        seen.pop()
        assert board.repetitions() == seen.count(board.fen()), len(seen)
    assert board.repetitions() == 1
    for text in shuffle * 2:  # the counts taken back are counted again from scratch
        board.push_pdn(text)
    assert board.repetitions() == 3 and board.outcome() is not None


@pytest.mark.parametrize("fen", ["B:W17,18,26,27:B24", "W:W9:B6,7,15,16", "B:W10,11,18,19:BK7"])
@pytest.mark.parametrize("crowned_continues", [False, True])
def test_a_raw_move_names_its_from_and_to_squares_and_what_it_captures(
    fen: str, crowned_continues: bool
) -> None:
    board = Board(fen)
    own, opp = (board.black, board.white) if board.turn == BLACK else (board.white, board.black)
    raws = board_module.generate_raw(
        own, opp, board.kings, board.turn, crowned_continues=crowned_continues
    )
    assert raws
    for frm, to, captured, path in raws:
        assert path is not None
        squares = [i + 1 for i in path]
        move = Move.from_pdn("x".join(map(str, squares)))
        assert frm == board_module.bit(squares[0]) and to == board_module.bit(squares[-1])
        assert captured == sum(board_module.bit(s) for s in move.captured)


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("B:W21", "expected 'B|W:W...:B...', got 'B:W21'"),
        ("X:W21:B1", "expected 'B|W:W...:B...', got 'X:W21:B1'"),
        ("B:W21:W22", "bad colour field 'W22' in FEN 'B:W21:W22'"),
        ("B:Wx:B1", "bad square 'x' in FEN 'B:Wx:B1'"),
        ("B:W21:B1X", "bad square '1X' in FEN 'B:W21:B1X'"),  # only quotes and a dot are dropped
        ("XB:W21:B1", "expected 'B|W:W...:B...', got 'XB:W21:B1'"),
        ("B:W21:B33", "square out of range 1-32: '33' in FEN 'B:W21:B33'"),
        ("B:W21,21:B1", "square 21 given twice in FEN 'B:W21,21:B1'"),
        (
            "B:W2:B5",
            "a man on the row where it would be crowned (1-4 for White, 29-32 for Black) must "
            "be a king in FEN 'B:W2:B5'",
        ),
    ],
)
def test_a_bad_fen_is_refused_with_the_whole_message(fen: str, message: str) -> None:
    with pytest.raises(InvalidFenError) as info:
        Board(fen)
    assert str(info.value) == message
