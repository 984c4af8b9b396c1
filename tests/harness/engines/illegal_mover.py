"""Correct everywhere but in play, where it moves a piece of the opponent: ILLEGAL_MOVE."""

from correct import legal_moves, parse_fen, search, search_parallel  # noqa: F401


def choose_move(fen, time_left):
    board, turn = parse_fen(fen)
    theirs = "w" if turn == "b" else "b"
    for square in range(1, 33):
        if board[square].lower() == theirs:
            return f"{square}-{square + 4 if square <= 28 else square - 4}"
    return "1-5"
