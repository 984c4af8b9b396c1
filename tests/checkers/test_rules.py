"""One test per rule of exercises/checkers/RULES.md, on positions built for it."""

from grader.checkers.board import BLACK, WHITE, Board, Move, Termination


def pdns(board: Board) -> list[str]:
    return [m.pdn() for m in board.legal_moves]


def test_men_step_diagonally_forward_only():
    assert pdns(Board("B:W32:B14")) == ["14-17", "14-18"]
    assert pdns(Board("W:W14:B1")) == ["14-9", "14-10"]
    assert pdns(Board("B:W32:B12")) == ["12-16"]  # the right edge


def test_capture_is_compulsory():
    # Black's man on 1 could step, but the man on 9 can jump 14.
    assert pdns(Board("B:W14:B1,9")) == ["9x18"]


def test_any_capture_may_be_chosen_not_only_the_largest():
    board = Board("B:W7,14,23:B2,9")
    assert pdns(board) == ["2x11", "9x18x27"]
    board.push(Move.from_pdn("2x11"))  # taking one piece when two could be taken is legal
    assert board.white.bit_count() == 2


def test_a_multi_jump_must_be_completed():
    # The published example: exactly two moves, neither stopping after the first jump.
    assert pdns(Board("B:W6,7,14,15:B2")) == ["2x9x18", "2x11x18"]


def test_a_man_crowned_inside_a_jump_ends_its_move_there():
    # From 30 a king could jump 25 to 21, but the man is crowned on 30 and stops.
    board = Board("B:W25,26:B23")
    assert pdns(board) == ["23x30"]
    board.push_pdn("23x30")
    assert board.piece_at(30) == "B" and board.piece_at(25) == "w" and board.turn == WHITE


def test_a_man_reaching_the_far_row_by_a_step_is_crowned():
    board = Board("W:W5:B20")
    board.push_pdn("5-1")
    assert board.piece_at(1) == "W"


def test_kings_move_and_jump_backwards():
    assert pdns(Board("B:W32:BK18")) == ["18-14", "18-15", "18-22", "18-23"]
    assert pdns(Board("B:W14:BK18")) == ["18x9"]
    assert pdns(Board("W:B19:WK15")) == ["15x24"]


def test_loops_over_the_same_pieces_in_a_different_order_are_different_moves():
    board = Board("B:W10,11,18,19:BK7")
    moves = list(board.legal_moves)
    assert [m.pdn() for m in moves] == ["7x14x23x16x7", "7x16x23x14x7"]
    assert set(moves[0].captured) == set(moves[1].captured) == {10, 11, 18, 19}
    board.push(moves[0])
    assert board.white == 0 and board.piece_at(7) == "B"


def test_a_piece_cannot_be_jumped_twice_and_captured_pieces_block_until_the_move_ends():
    # The king takes 10 and 11 but cannot come back over them.
    assert pdns(Board("B:W10,11:BK7")) == ["7x14", "7x16"]


def test_the_side_with_no_legal_move_loses():
    blocked = Board("W:W29:B22,25")
    assert blocked.outcome().termination is Termination.NO_MOVES
    assert blocked.outcome().winner == BLACK and blocked.outcome().result() == "1-0"
    assert blocked.is_game_over() and not Board().is_game_over()
    no_pieces = Board("B:W5:B")
    assert no_pieces.outcome().winner == WHITE and no_pieces.outcome().result() == "0-1"


def test_threefold_repetition_is_a_draw():
    board = Board("B:WK32:BK1")
    shuffle = ["1-5", "32-27", "5-1", "27-32"]
    for text in shuffle + shuffle[:3]:
        board.push_pdn(text)
        assert board.outcome() is None and not board.is_game_over()
    board.push_pdn(shuffle[3])  # the start position for the third time
    assert board.repetitions() == 3 and board.is_game_over()
    assert board.outcome().termination is Termination.THREEFOLD_REPETITION
    assert board.outcome().result() == "1/2-1/2"


def test_forty_moves_each_without_capture_or_man_move_is_a_draw():
    board = Board("B:WK29,K31,K32:BK1,K2,K3")
    for ply in range(80):
        assert board.outcome() is None, ply
        # Any king step that neither captures nor makes a position appear a third time.
        for move in board.legal_moves:
            assert not move.is_capture
            board.push(move)
            if board.repetitions() < 3 and not board.has_captures():
                break
            board.pop()
        else:
            raise AssertionError(f"no quiet move at ply {ply} in {board.fen()}")
    assert board.halfmove_clock == 80 and board.is_game_over()
    assert board.outcome().termination is Termination.FORTY_MOVE_RULE


def test_a_capture_or_a_man_move_resets_the_forty_move_count():
    board = Board("B:WK32,20:BK1,9")
    board.push_pdn("1-5")
    board.push_pdn("32-27")
    assert board.halfmove_clock == 2
    board.push_pdn("9-13")
    assert board.halfmove_clock == 0
    board.push_pdn("27-23")
    board.push_pdn("5-1")
    board.push_pdn("23-18")
    assert board.halfmove_clock == 3
    board.pop()
    assert board.halfmove_clock == 2
