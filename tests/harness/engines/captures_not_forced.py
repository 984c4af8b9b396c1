"""A classic mistake: captures listed beside the steps, as if capturing were optional."""

import correct
from correct import *  # noqa: F403


def get_moves(board, turn):
    captures, steps = [], []
    for s in range(1, 33):
        piece = board[s]
        if piece.lower() != turn:
            continue
        correct._jumps(board, s, piece, (s,), (), captures, s)
        for dr, dc in correct.directions(piece):
            t = correct.STEP[s, dr, dc]
            if t and board[t] == ".":
                steps.append(((s, t), ()))
    moves = captures + steps
    moves.sort(key=lambda m: m[0])
    return moves


correct.get_moves = get_moves
