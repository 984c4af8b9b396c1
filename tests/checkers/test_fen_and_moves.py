"""FEN read/write, Move text, canonical order and typed errors."""

import pytest

from grader.checkers.board import (
    BLACK,
    STARTING_FEN,
    WHITE,
    Board,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    Move,
    bit,
)


def test_the_start_position_has_black_on_1_to_12_and_black_to_move():
    board = Board()
    assert board.black == sum(bit(s) for s in range(1, 13))
    assert board.white == sum(bit(s) for s in range(21, 33))
    assert board.kings == 0 and board.turn == BLACK
    assert board.fen() == STARTING_FEN


@pytest.mark.parametrize(
    "fen",
    [
        STARTING_FEN,
        "W:WK3,18,19,26:B5,K10,12",
        "B:W6,7,14,15:B2",
        "W:W:BK1",
    ],
)
def test_fen_round_trips(fen):
    assert Board(fen).fen() == fen
    assert Board.from_fen(Board(fen).fen()) == Board(fen)


def test_fen_reading_accepts_ranges_either_field_order_and_a_trailing_dot():
    board = Board('"W:B1-3,K4:W30-32."')
    assert board.turn == WHITE
    assert board.fen() == "W:W30,31,32:B1,2,3,K4"


@pytest.mark.parametrize(
    "fen",
    [
        "X:W1:B2",
        "B:W1",
        "B:W1:W2",
        "B:W33:B1",
        "B:W1:B1",
        "B:Wa:B1",
        "B:W5:B30",
        "B:W2:B9-7",
    ],
)
def test_bad_fen_raises_invalid_fen_error_naming_the_text(fen):
    with pytest.raises(InvalidFenError) as info:
        Board(fen)
    assert fen in str(info.value)


@pytest.mark.parametrize("text", ["11-15", "22x15", "11x18x25", "7x14x23x16x7"])
def test_move_text_round_trips(text):
    assert Move.from_pdn(text).pdn() == text


def test_a_jump_knows_the_squares_it_captures():
    assert Move.from_pdn("11x18x25").captured == (15, 22)
    assert Move.from_pdn("11-15").captured == ()


@pytest.mark.parametrize("text", ["11-19", "0-4", "abc", "11x15", "11-15-19", "5-33", ""])
def test_bad_move_text_raises_invalid_move_error_naming_it(text):
    with pytest.raises(InvalidMoveError) as info:
        Move.from_pdn(text)
    assert repr(text) in str(info.value)


def test_an_illegal_move_raises_illegal_move_error_naming_it():
    with pytest.raises(IllegalMoveError, match="21-17"):
        Board().push_pdn("21-17")


def test_the_legal_moves_are_lazy_and_support_in_len_count_and_iteration():
    board = Board()
    moves = board.legal_moves
    assert len(moves) == moves.count() == 7
    assert Move.from_pdn("11-15") in moves
    assert Move.from_pdn("11-16") in moves and Move.from_pdn("21-17") not in moves
    assert [m.pdn() for m in moves] == ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]


def test_canonical_order_compares_paths_as_numbers_not_text():
    moves = sorted(Move.from_pdn(t) for t in ["11x18x25", "9-13", "10-14", "11x18", "9-14"])
    assert [m.pdn() for m in moves] == ["9-13", "9-14", "10-14", "11x18", "11x18x25"]


def test_push_and_pop_restore_the_position_and_the_hash():
    board = Board()
    before = (board.fen(), board.zobrist_hash())
    for text in ["11-15", "22-18", "15x22", "25x18", "8-11"]:
        board.push_pdn(text)
    assert board.zobrist_hash() != before[1]
    for _ in range(5):
        board.pop()
    assert (board.fen(), board.zobrist_hash()) == before


def test_the_incremental_hash_equals_the_hash_of_the_same_position_from_fen():
    board = Board()
    for text in ["11-15", "22-18", "15x22", "25x18", "8-11", "29-25"]:
        board.push_pdn(text)
        assert board.zobrist_hash() == Board(board.fen()).zobrist_hash()


def test_a_short_capture_is_read_when_only_one_path_fits_and_refused_when_ambiguous():
    board = Board("B:W14,23:B9")
    assert board.parse_pdn("9x27").pdn() == "9x18x27"
    with pytest.raises(IllegalMoveError, match="ambiguous"):
        Board("B:W10,11,18,19:BK7").parse_pdn("7x7")
